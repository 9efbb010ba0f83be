// Writes a file so that readers see either the old content or the complete new one:
// results already measured are never lost to a crash or a full disk mid-write.
#pragma once

#include <string>

namespace tb {

// Throws tb::Error("cannot write <path>: <reason>").
void write_file_atomically(const std::string& path, const std::string& content);
// Throws tb::Error("cannot read <path>: <reason>").
std::string read_file(const std::string& path);

}  // namespace tb
