#include "kernel_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <system_error>

namespace tb::cuda {
namespace {

namespace fs = std::filesystem;

// Bump when the entry layout changes, so old entries read as misses.
constexpr const char* kMagic = "tribench-nvrtc-cache 1";

std::atomic<bool> g_enabled{true};

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

std::optional<std::string> read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return std::nullopt;
    return data;
}

// Layout: "<magic>\n<key bytes> <log bytes> <ptx bytes>\n" then key, log and ptx back to back.
std::string encode(const std::string& key, const CachedPtx& e) {
    std::string out = std::string(kMagic) + "\n" + std::to_string(key.size()) + " " +
                      std::to_string(e.log.size()) + " " + std::to_string(e.ptx.size()) + "\n";
    out.reserve(out.size() + key.size() + e.log.size() + e.ptx.size());
    out += key;
    out += e.log;
    out += e.ptx;
    return out;
}

std::optional<CachedPtx> decode(const std::string& data, const std::string& key) {
    const std::string magic = std::string(kMagic) + "\n";
    if (data.compare(0, magic.size(), magic) != 0) return std::nullopt;
    std::size_t header_end = data.find('\n', magic.size());
    if (header_end == std::string::npos) return std::nullopt;
    std::istringstream header(data.substr(magic.size(), header_end - magic.size()));
    std::uint64_t key_len = 0, log_len = 0, ptx_len = 0;
    if (!(header >> key_len >> log_len >> ptx_len)) return std::nullopt;
    const std::uint64_t body = data.size() - (header_end + 1);
    // Compared without overflow: each length must fit in what is left.
    if (key_len > body || log_len > body - key_len || ptx_len != body - key_len - log_len) return std::nullopt;
    std::size_t pos = header_end + 1;
    if (key_len != key.size() || data.compare(pos, key_len, key) != 0) return std::nullopt;  // collision
    pos += key_len;
    CachedPtx e;
    e.log = data.substr(pos, log_len);
    e.ptx = data.substr(pos + log_len, ptx_len);
    if (e.ptx.empty()) return std::nullopt;
    return e;
}

void warn_once(const std::string& what) {
    static std::once_flag once;
    std::call_once(once, [&] { std::fprintf(stderr, "tribench: warning: kernel cache not written (compiles still work): %s\n", what.c_str()); });
}

}  // namespace

void set_kernel_cache_enabled(bool enabled) { g_enabled = enabled; }

bool kernel_cache_enabled() {
    return g_enabled && env("TRIBENCH_NO_CACHE") != "1" && !kernel_cache_dir().empty();
}

fs::path kernel_cache_dir() {
    fs::path root;
    if (std::string d = env("TRIBENCH_CACHE_DIR"); !d.empty()) root = d;
    else if (std::string x = env("XDG_CACHE_HOME"); !x.empty()) root = fs::path(x) / "tribench";
    else if (std::string h = env("HOME"); !h.empty()) root = fs::path(h) / ".cache" / "tribench";
    else return {};
    return root / "nvrtc";
}

fs::path kernel_cache_entry_path(const std::string& key) {
    return kernel_cache_dir() / (fnv1a64_hex(key) + ".entry");
}

std::optional<CachedPtx> kernel_cache_load(const std::string& key) {
    if (!kernel_cache_enabled()) return std::nullopt;
    auto data = read_file(kernel_cache_entry_path(key));
    if (!data) return std::nullopt;
    return decode(*data, key);
}

bool kernel_cache_store(const std::string& key, const CachedPtx& entry) {
    if (!kernel_cache_enabled()) return false;
    const fs::path dir = kernel_cache_dir();
    const fs::path final_path = kernel_cache_entry_path(key);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        warn_once("cannot create " + dir.string() + ": " + ec.message());
        return false;
    }
    // A name no other writer uses, in the same folder, so the rename is atomic.
    static std::atomic<unsigned> counter{0};
    const fs::path tmp = final_path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        const std::string data = encode(key, entry);
        out.write(data.data(), static_cast<std::streamsize>(data.size()));
        out.close();
        if (!out) {
            fs::remove(tmp, ec);
            warn_once("cannot write " + tmp.string());
            return false;
        }
    }
    fs::rename(tmp, final_path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        warn_once("cannot rename " + tmp.string() + " to " + final_path.string() + ": " + ec.message());
        return false;
    }
    return true;
}

}  // namespace tb::cuda
