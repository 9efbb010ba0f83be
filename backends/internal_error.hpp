// A broken invariant of tribench's own code: a bug, never the input's fault. Kept apart from
// tb::Error (bad input, a failing API, which callers report and survive) so that no handler
// for bad input can swallow a bug, and so that tests and fuzzers tell the two apart by type
// rather than by the words of a message that may echo input. `tribench` reports one as
// "internal error" with exit status 3 (harness/main.cpp).
#pragma once

#include <stdexcept>
#include <string>

namespace tb {

struct InternalError : std::logic_error {
    using std::logic_error::logic_error;
};

}  // namespace tb
