#include "program_registry.hpp"

#include <algorithm>

namespace tb {
namespace {

std::vector<std::unique_ptr<Program>>& storage() {
    static std::vector<std::unique_ptr<Program>> programs;
    return programs;
}

// The suite's presentation order; programs not listed follow alphabetically.
int rank(const std::string& name) {
    static const char* order[] = {"nbody", "mandelbrot", "fft", "kmeans", "stencil", "spmv"};
    for (int i = 0; i < 6; ++i)
        if (name == order[i]) return i;
    return 6;
}

}  // namespace

ProgramRegistration::ProgramRegistration(std::unique_ptr<Program> p) { storage().push_back(std::move(p)); }

const std::vector<const Program*>& all_programs() {
    static const std::vector<const Program*> list = [] {
        std::vector<const Program*> v;
        for (const auto& p : storage()) v.push_back(p.get());
        std::sort(v.begin(), v.end(), [](const Program* a, const Program* b) {
            return std::make_pair(rank(a->name()), a->name()) < std::make_pair(rank(b->name()), b->name());
        });
        return v;
    }();
    return list;
}

}  // namespace tb
