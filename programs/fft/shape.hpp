// What one fft dataset transforms: a batch of 1-D transforms or one 2-D image, all sizes
// powers of two, complex float values interleaved (re, im), row-major.
#pragma once

#include <cstdint>
#include <string>

#include "program.hpp"

namespace tb::fft {

struct Shape {
    int dims = 1;                     // 1: `batch` transforms of `length`; 2: one rows x cols image
    std::int64_t length = 0, batch = 1;  // 1-D
    std::int64_t rows = 0, cols = 0;     // 2-D (cols is the contiguous axis)

    std::int64_t points() const { return dims == 1 ? length * batch : rows * cols; }
    std::int64_t transform_size() const { return dims == 1 ? length : rows * cols; }  // N
    std::int64_t transforms() const { return dims == 1 ? batch : 1; }
    std::string describe() const;  // "16 x 2^20" or "4096 x 4096 (2-D)"
};

// Reads the dataset's parameters; throws tb::Error on sizes the program does not support.
Shape shape_of(const Dataset& d);

int log2_exact(std::int64_t n);  // throws tb::Error unless n is a power of two >= 1

}  // namespace tb::fft
