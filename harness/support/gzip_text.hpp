// Results and tuning files may be stored gzip-compressed (reports/ keeps large ones as
// .json.gz): readers take either form, told apart by the gzip magic bytes, not by the name;
// writers compress when the name the user gave ends in ".gz".
#pragma once

#include <cstddef>
#include <string>

namespace tb {

// True when `bytes` begins with gzip's magic (1f 8b).
bool is_gzip(const std::string& bytes);

// The decompressed text of gzip `bytes` (several members are read one after another).
// Throws tb::Error naming `path` for a truncated or corrupt stream, output beyond
// `limit_bytes`, or a tribench built without zlib.
std::string gunzip(const std::string& bytes, const std::string& path, std::size_t limit_bytes = std::size_t(1) << 30);

// The text of the file at `path`, decompressed when it is gzip. Throws tb::Error as
// read_file() and gunzip() do.
std::string read_text_maybe_gzip(const std::string& path);

// `text` as one gzip member. Throws tb::Error naming `path` when compression fails or
// tribench was built without zlib.
std::string gzip(const std::string& text, const std::string& path);

// `text` compressed when `path` ends in ".gz", else as it is: what a writer puts in `path`.
std::string file_bytes_for(const std::string& path, const std::string& text);

}  // namespace tb
