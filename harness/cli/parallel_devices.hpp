// `tribench run --parallel-devices`: every GPU of the host measures its own shard of the
// selection in its own process, pinned with CUDA_VISIBLE_DEVICES, while this process shows
// their progress as one display and merges their files (docs/scale-out.md).
#pragma once

#include <string>
#include <vector>

namespace tb {

// The GPUs to use, one CUDA_VISIBLE_DEVICES value each: the entries of CUDA_VISIBLE_DEVICES
// when it is set, else 0..n-1 for the n GPUs the CUDA driver reports. Throws tb::Error when
// there is none.
std::vector<std::string> parallel_device_list();

// The command line of shard K's process: the parent's, less --parallel-devices and its
// output option, plus --shard K/N --out FILE --progress; the parent's --resume becomes
// --resume FILE (each shard carries on from its own journal).
std::vector<std::string> shard_command(const std::vector<std::string>& parent_argv, const std::string& exe,
                                       int index, int count, const std::string& out);

// Splits one child's stderr into lines; keeps a partial last line for the next read.
class LineSplitter {
public:
    std::vector<std::string> feed(const char* data, std::size_t n);
    std::string rest();  // what is left at EOF (without a newline), then empty

private:
    std::string pending_;
};

// Parses a runner progress line "[i/n] name what"; false for other lines.
bool parse_progress(const std::string& line, std::size_t* done, std::size_t* total);

}  // namespace tb
