#include "ptx/ptx_hash.hpp"

namespace tb {

std::map<std::string, std::string> ptx_hashes(const std::string& ptx) {
    std::map<std::string, std::string> out;
    std::size_t pos = 0;
    while ((pos = ptx.find(".entry ", pos)) != std::string::npos) {
        const std::size_t name_begin = pos + 7;
        std::size_t name_end = name_begin;
        while (name_end < ptx.size() && ptx[name_end] != '(' && ptx[name_end] != ' ' && ptx[name_end] != '\n')
            ++name_end;
        std::size_t next = ptx.find(".entry ", name_end);
        // A kernel's text runs up to the next entry (or the end).
        const std::size_t end = next == std::string::npos ? ptx.size() : next;
        out[ptx.substr(name_begin, name_end - name_begin)] = hex64(fnv1a64(std::string_view(ptx).substr(pos, end - pos)));
        pos = end;
    }
    return out;
}

}  // namespace tb
