#include "shape.hpp"

namespace tb::fft {

namespace {
// Indices are 32-bit in the kernels: keep every array below 2^28 points (2 GiB).
constexpr std::int64_t kMaxPoints = std::int64_t(1) << 28;
}  // namespace

int log2_exact(std::int64_t n) {
    if (n < 1 || (n & (n - 1)) != 0) throw Error("fft: size " + std::to_string(n) + " is not a power of two");
    int l = 0;
    while ((std::int64_t(1) << l) < n) ++l;
    return l;
}

std::string Shape::describe() const {
    if (dims == 1) return std::to_string(batch) + " x 2^" + std::to_string(log2_exact(length));
    return std::to_string(rows) + " x " + std::to_string(cols) + " (2-D)";
}

Shape shape_of(const Dataset& d) {
    Shape s;
    s.dims = int(d.param("dims"));
    if (s.dims == 1) {
        s.length = d.param("length");
        s.batch = d.param("batch");
        log2_exact(s.length);
        if (s.length < 8 || s.batch < 1) throw Error("fft dataset " + d.name + ": needs length >= 8 and batch >= 1");
    } else if (s.dims == 2) {
        s.rows = d.param("rows");
        s.cols = d.param("cols");
        log2_exact(s.rows);
        log2_exact(s.cols);
        if (s.rows < 8 || s.cols < 8) throw Error("fft dataset " + d.name + ": needs rows, cols >= 8");
    } else {
        throw Error("fft dataset " + d.name + ": dims must be 1 or 2");
    }
    if (s.points() > kMaxPoints) throw Error("fft dataset " + d.name + ": more than 2^28 points");
    return s;
}

}  // namespace tb::fft
