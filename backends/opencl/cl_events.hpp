// The events of the commands enqueued inside one Device::time_ms region, and the device-side
// time they span: from the earliest CL_PROFILING_COMMAND_START to the latest ..._END.
#pragma once

#include <vector>

#include "cl_api.hpp"

namespace tb::cl {

class EventSpan {
public:
    EventSpan() = default;
    EventSpan(const EventSpan&) = delete;
    EventSpan& operator=(const EventSpan&) = delete;
    ~EventSpan();  // releases every event

    void add(cl_event e) { events_.push_back(e); }
    bool empty() const { return events_.empty(); }
    // Milliseconds; every event must have completed (the queue was finished).
    double elapsed_ms() const;

private:
    std::vector<cl_event> events_;
};

}  // namespace tb::cl
