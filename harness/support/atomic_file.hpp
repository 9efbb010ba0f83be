// Writing an output file the user named (--out and the like) so that results already
// measured are never lost, and nothing but the named file is touched:
//   - a regular file, or one that does not exist yet, is replaced atomically (written to a
//     temporary beside it, then renamed over it): readers see the old content or the whole
//     new one, never half, whatever a crash or a full disk does mid-write. A symbolic link
//     to a regular file keeps being a link: its target is replaced.
//   - `-`, /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are the process's own
//     streams: written to the open descriptor, after what was printed there already.
//   - any other existing file (a device such as /dev/null or /dev/full, a FIFO) is written
//     through, never replaced; a failed write (/dev/full) is an error like any other.
// (docs/robustness.md, "Output paths".)
#pragma once

#include <string>

namespace tb {

// Refuses a path that cannot be written the way write_file_atomically() would write it,
// before any work is done: a folder, a missing or read-only parent folder, a read-only
// file, a descriptor that is not open for writing. Throws tb::Error("cannot write <path>: <why>").
void check_output_path(const std::string& path);

// True when path names standard output (`-`, /dev/stdout, /dev/fd/1, /proc/self/fd/1).
bool is_standard_output(const std::string& path);

// Writes content to path as described above. Throws tb::Error("cannot write <path>: <reason>").
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tb
