#include "support/atomic_file.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.hpp"
#include "printable.hpp"

namespace tb {
namespace {

[[noreturn]] void cannot_write(const std::string& path, const std::string& why) {
    throw Error("cannot write " + printable_path(path) + ": " + why);
}

// How a path is written (see atomic_file.hpp).
enum class Kind { Stream, Special, Replace };
struct Target {
    Kind kind = Kind::Replace;
    int fd = -1;           // Stream: the descriptor
    std::string file;      // Replace: the file to replace (symbolic links resolved)
    bool exists = false;   // Replace: the file exists (its permissions are kept)
    mode_t mode = 0644;
};

// The descriptor named by `-`, /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N; -1 for other paths.
int stream_fd(const std::string& path) {
    if (path == "-" || path == "/dev/stdout") return 1;
    if (path == "/dev/stderr") return 2;
    for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        const std::size_t n = std::strlen(prefix);
        if (path.compare(0, n, prefix) != 0 || path.size() == n || path.size() > n + 9) continue;
        if (path.find_first_not_of("0123456789", n) != std::string::npos) continue;
        return std::atoi(path.c_str() + n);
    }
    return -1;
}

std::string parent_of(const std::string& file) {
    const auto slash = file.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : file.substr(0, slash);
}

// A new file is made in `dir` (the temporary, then the rename): it must be a writable folder.
void check_folder(const std::string& path, const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) cannot_write(path, "folder " + printable_path(dir) + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) cannot_write(path, printable_path(dir) + " is not a folder");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        cannot_write(path, "folder " + printable_path(dir) + ": " + std::strerror(errno));
}

Target classify(const std::string& path) {
    Target t;
    if (path.empty()) cannot_write(path, "empty path");
    if (const int fd = stream_fd(path); fd >= 0) {
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0) cannot_write(path, std::string("descriptor ") + std::to_string(fd) + " is not open");
        if ((flags & O_ACCMODE) == O_RDONLY)
            cannot_write(path, std::string("descriptor ") + std::to_string(fd) + " is open for reading only");
        t.kind = Kind::Stream;
        t.fd = fd;
        return t;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno != ENOENT) cannot_write(path, std::strerror(errno));
        struct stat lst {};
        if (::lstat(path.c_str(), &lst) == 0) cannot_write(path, "a symbolic link to nothing");
        check_folder(path, parent_of(path));
        t.file = path;
        return t;
    }
    if (S_ISDIR(st.st_mode)) cannot_write(path, "is a directory");
    if (!S_ISREG(st.st_mode)) {
        if (::access(path.c_str(), W_OK) != 0) cannot_write(path, std::strerror(errno));
        t.kind = Kind::Special;
        return t;
    }
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved)) cannot_write(path, std::strerror(errno));
    t.file = resolved;
    t.exists = true;
    t.mode = st.st_mode & 07777;
    if (::access(t.file.c_str(), W_OK) != 0) cannot_write(path, std::strerror(errno));
    check_folder(path, parent_of(t.file));
    return t;
}

// Writes all of content to fd; returns errno, or 0.
int write_all(int fd, const std::string& content) {
    std::size_t done = 0;
    while (done < content.size()) {
        const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        done += std::size_t(w);
    }
    return 0;
}

void write_stream(const std::string& path, int fd, const std::string& content) {
    // What was printed through the C++ and C streams comes first.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    if (const int e = write_all(fd, content)) cannot_write(path, std::strerror(e));
}

void write_through(const std::string& path, const std::string& content) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) cannot_write(path, std::strerror(errno));
    const int e = write_all(fd, content);
    if (e) {
        ::close(fd);
        cannot_write(path, std::strerror(e));
    }
    if (::close(fd) != 0) cannot_write(path, std::strerror(errno));
}

void replace(const std::string& path, const Target& t, const std::string& content) {
    const std::string tmp = t.file + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) cannot_write(path, std::strerror(errno));
    const auto give_up = [&](int e) {
        ::close(fd);
        ::unlink(tmp.c_str());
        cannot_write(path, std::strerror(e));
    };
    if (const int e = write_all(fd, content)) give_up(e);
    if (t.exists && ::fchmod(fd, t.mode) != 0) give_up(errno);
    if (::fsync(fd) != 0) give_up(errno);
    if (::close(fd) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        cannot_write(path, std::strerror(e));
    }
    if (std::rename(tmp.c_str(), t.file.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        cannot_write(path, std::strerror(e));
    }
}

}  // namespace

void check_output_path(const std::string& path) { (void)classify(path); }

bool is_standard_output(const std::string& path) { return stream_fd(path) == 1; }

void write_file_atomically(const std::string& path, const std::string& content) {
    const Target t = classify(path);
    switch (t.kind) {
        case Kind::Stream: return write_stream(path, t.fd, content);
        case Kind::Special: return write_through(path, content);
        case Kind::Replace: return replace(path, t, content);
    }
}

}  // namespace tb
