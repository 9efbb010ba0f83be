// Shared by the fuzz targets: what counts as a finding. Each reader promises to reject bad
// input with one tb::Error; anything else escaping it (a JSON library exception, a standard
// library exception, a broken invariant) is a bug, reported by abort() so libFuzzer saves
// the input. Sanitizer reports (ASan, UBSan) abort on their own.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "device.hpp"

namespace tb::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
    std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void check(bool ok, const std::string& what) {
    if (!ok) finding("invariant broken: " + what);
}

// An in-memory file (memfd) for readers that take a path: rewritten for each input,
// nothing left on disk whichever way the fuzzer ends. Its path is /proc/self/fd/N.
class ScratchFile {
public:
    ScratchFile() : fd_(memfd_create("tribench-fuzz", MFD_CLOEXEC)) {
        if (fd_ < 0) finding("memfd_create failed");
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    const std::string& path() const { return path_; }
    void write(const std::uint8_t* data, std::size_t size) {
        if (ftruncate(fd_, 0) != 0) finding("ftruncate of the scratch file failed");
        for (std::size_t done = 0; done < size;) {
            const ssize_t w = pwrite(fd_, data + done, size - done, off_t(done));
            if (w <= 0) finding("write to the scratch file failed");
            done += std::size_t(w);
        }
    }

private:
    int fd_;
    std::string path_;
};

// Runs f; returns true if it completed, false if it threw tb::Error (the documented way to
// reject input). Any other exception is a finding.
template <class F>
bool accepts(const char* who, F&& f) {
    try {
        f();
        return true;
    } catch (const tb::Error& e) {
        const std::string msg = e.what();
        if (msg.find("internal error") != std::string::npos) finding(std::string(who) + ": " + msg);
        return false;
    } catch (const std::exception& e) {
        finding(std::string(who) + " threw a non-tb::Error exception: " + e.what());
    } catch (...) {
        finding(std::string(who) + " threw a non-standard exception");
    }
}

}  // namespace tb::fuzz
