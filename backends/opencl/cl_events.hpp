// The events of one Device::time_ms region, and the device-side time they span: from the
// earliest CL_PROFILING_COMMAND_START to the latest ..._END.
//
// Two ways to bracket a region (docs/opencl-backend.md, "Timing"):
//  - bracket (the default): an event on the region's first command and a marker with an event
//    after its last; in an in-order queue the marker ends after every command before it.
//  - each: an event on every command (what the backend did before 2026-11-23). NVIDIA's
//    runtime then costs ~10 us more per launch (reports/h100/REPORT.md), so this is kept
//    only to measure that cost, and for platforms without clEnqueueMarkerWithWaitList.
#pragma once

#include <vector>

#include "cl_api.hpp"

namespace tb::cl {

enum class SpanMode { bracket, each };

// TRIBENCH_OPENCL_TIMING=bracket|each (unset: bracket); anything else is a tb::Error.
SpanMode span_mode_from_environment();

class EventSpan {
public:
    explicit EventSpan(SpanMode mode) : mode_(mode) {}
    EventSpan(const EventSpan&) = delete;
    EventSpan& operator=(const EventSpan&) = delete;
    ~EventSpan();  // releases every event

    // Whether the next enqueued command should get an event.
    bool wants_event() const { return mode_ == SpanMode::each || events_.empty(); }
    void add(cl_event e) { events_.push_back(e); }
    bool empty() const { return events_.empty(); }
    // Milliseconds; every event must have completed (the queue was finished).
    double elapsed_ms() const;

private:
    SpanMode mode_;
    std::vector<cl_event> events_;
};

}  // namespace tb::cl
