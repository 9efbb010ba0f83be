#include "tuning.hpp"

namespace tb::spmv {

const TuningSpace& tuning_space() {
    static const TuningSpace space = [] {
        TuningSpace s;
        s.param("scalar_batch", {2, 4, 8, 16}, "non-zeros a scalar work-item loads per batch, all in flight together");
        return s;
    }();
    return space;
}

// 8 everywhere (the reference): how many loads a work-item keeps in flight pays off is a
// matter of memory latency, which no device field tells; tune it.
TuningConfig default_config(const DeviceInfo&) { return {{"scalar_batch", kScalarBatch}}; }

}  // namespace tb::spmv
