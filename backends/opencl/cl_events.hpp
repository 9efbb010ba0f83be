// The events of one Device::time_ms region, and the device-side time they span: from the
// earliest CL_PROFILING_COMMAND_START to the latest ..._END.
//
// Ways to bracket a region (docs/opencl-backend.md, "Timing"):
//  - bracket (the default of plain regions): an event on the region's first command and a
//    marker with an event after its last; in an in-order queue the marker ends after every
//    command before it.
//  - each: an event on every command (what the backend did before 2026-11-23). NVIDIA's
//    runtime then costs ~10 us more per launch of host time, and on the GPU ~2.7 us between
//    dependent kernels (reports/h100/REPORT.md), so this is kept only to measure that cost,
//    and for platforms without clEnqueueMarkerWithWaitList.
//  - ends (gated regions): an event on the first command and on the one expected to be last
//    (the previous region of the same timing series had that many commands), so nothing
//    sits between the kernels and no marker's processing is in the span; when the last
//    command got no event (the first region of a series, or a different count) a marker
//    closes the span as in `bracket`.
#pragma once

#include <cstddef>
#include <vector>

#include "cl_api.hpp"

namespace tb::cl {

enum class SpanMode { bracket, each, ends };

// TRIBENCH_OPENCL_TIMING=bracket|each (unset: bracket); anything else is a tb::Error.
SpanMode span_mode_from_environment();

class EventSpan {
public:
    // `expected`: the commands the region is expected to enqueue (`ends`; 0: not known).
    explicit EventSpan(SpanMode mode, std::size_t expected = 0) : mode_(mode), expected_(expected) {}
    EventSpan(const EventSpan&) = delete;
    EventSpan& operator=(const EventSpan&) = delete;
    ~EventSpan();  // releases every event

    // Whether the next enqueued command should get an event; call once per command.
    bool next_wants_event() {
        const std::size_t i = commands_++;
        last_has_event_ = mode_ == SpanMode::each || i == 0 || (mode_ == SpanMode::ends && i + 1 == expected_);
        return last_has_event_;
    }
    void add(cl_event e) { events_.push_back(e); }
    bool empty() const { return events_.empty(); }
    // Whether a closing marker must end the span: always in `bracket`; in `ends` when the
    // last command has no event of its own.
    bool needs_end_marker() const {
        return commands_ > 0 && (mode_ == SpanMode::bracket || (mode_ == SpanMode::ends && !last_has_event_));
    }
    std::size_t commands() const { return commands_; }
    // Milliseconds; every event must have completed (the queue was finished).
    double elapsed_ms() const;

private:
    SpanMode mode_;
    std::size_t expected_ = 0;
    std::size_t commands_ = 0;
    bool last_has_event_ = false;
    std::vector<cl_event> events_;
};

}  // namespace tb::cl
