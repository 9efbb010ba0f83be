// Shared by the fuzz targets: what counts as a finding. Each reader promises to reject bad
// input with one tb::Error whose message is one printable line; anything else escaping it
// (a tb::InternalError, a JSON library exception, a standard library exception, a broken
// invariant) is a bug, reported by abort() so libFuzzer saves the input. Sanitizer reports
// (ASan, UBSan) abort on their own.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "device.hpp"
#include "internal_error.hpp"
#include "printable.hpp"

namespace tb::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
    std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void check(bool ok, const std::string& what) {
    if (!ok) finding("invariant broken: " + what);
}

// A rejection is one line of printable text however hostile the input (backends/printable.hpp):
// no control byte (newline included), no invalid UTF-8, and of bounded length.
inline constexpr std::size_t kMaxMessageBytes = 4096;
inline void check_message(const char* who, const std::string& msg) {
    const auto shown = [&] { return tb::printable(msg, 200); };
    check(!msg.empty(), std::string(who) + ": an empty error message");
    check(msg.size() <= kMaxMessageBytes,
          std::string(who) + ": a " + std::to_string(msg.size()) + "-byte error message: " + shown());
    check(tb::is_printable(msg),
          std::string(who) + ": an error message with control or non-UTF-8 bytes: " + shown());
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
// reject input). A tb::InternalError (a broken invariant of tribench's own code) or any
// other exception is a finding. The oracle goes by type only: a rejection message may echo
// any text of the input, "internal error" included.
template <class F>
bool accepts(const char* who, F&& f) {
    try {
        f();
        return true;
    } catch (const tb::InternalError& e) {
        finding(std::string(who) + " broke an invariant of its own: " + e.what());
    } catch (const tb::Error& e) {
        check_message(who, e.what());
        return false;
    } catch (const std::exception& e) {
        finding(std::string(who) + " threw a non-tb::Error exception: " + e.what());
    } catch (...) {
        finding(std::string(who) + " threw a non-standard exception");
    }
}

}  // namespace tb::fuzz
