#include "support/gzip_text.hpp"

#include "device.hpp"  // tb::Error
#include "printable.hpp"
#include "read_file.hpp"

#if TRIBENCH_HAVE_ZLIB
#include <climits>

#include <zlib.h>
#endif

namespace tb {

bool is_gzip(const std::string& bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
           static_cast<unsigned char>(bytes[1]) == 0x8b;
}

#if TRIBENCH_HAVE_ZLIB
std::string gunzip(const std::string& bytes, const std::string& path, std::size_t limit_bytes) {
    const std::string where = printable_path(path);
    if (bytes.size() > UINT_MAX) throw Error(where + ": a compressed file over 4 GiB is not read");
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw Error(where + ": cannot start gzip decompression");
    std::string out;
    char chunk[1 << 16];
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = static_cast<uInt>(bytes.size());
    int rc = Z_OK;
    for (;;) {
        z.next_out = reinterpret_cast<Bytef*>(chunk);
        z.avail_out = sizeof chunk;
        rc = inflate(&z, Z_NO_FLUSH);
        if (rc != Z_OK && rc != Z_STREAM_END) break;
        out.append(chunk, sizeof chunk - z.avail_out);
        if (out.size() > limit_bytes) {
            inflateEnd(&z);
            throw Error(where + ": decompresses to more than " + std::to_string(limit_bytes >> 20) + " MiB");
        }
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            if (inflateReset(&z) != Z_OK) break;  // a further gzip member follows
        } else if (z.avail_in == 0 && z.avail_out != 0) {
            rc = Z_BUF_ERROR;  // input ended inside the stream
            break;
        }
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw Error(where + ": corrupt or truncated gzip data" +
                    (rc == Z_BUF_ERROR ? std::string(" (it ends early)") : std::string()));
    return out;
}

std::string gzip(const std::string& text, const std::string& path) {
    const std::string where = printable_path(path);
    if (text.size() > UINT_MAX) throw Error(where + ": over 4 GiB, too large to compress in one piece");
    z_stream z{};
    // 16 + MAX_WBITS: a gzip header and trailer rather than zlib's.
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw Error(where + ": cannot start gzip compression");
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);  // the bound above makes one call enough
    out.resize(out.size() - z.avail_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) throw Error(where + ": gzip compression failed");
    return out;
}
#else
std::string gzip(const std::string&, const std::string& path) {
    throw Error(printable_path(path) + ": a name ending in .gz asks for gzip, and this tribench was built without zlib: drop the .gz");
}

std::string gunzip(const std::string&, const std::string& path, std::size_t) {
    throw Error(printable_path(path) + ": gzip-compressed, and this tribench was built without zlib: gunzip it first");
}
#endif

std::string read_text_maybe_gzip(const std::string& path) {
    std::string bytes = read_file(path);
    return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

std::string file_bytes_for(const std::string& path, const std::string& text) {
    return path.ends_with(".gz") ? gzip(text, path) : text;
}

}  // namespace tb
