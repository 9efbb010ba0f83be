// Gated timing for the opencl backend: a marker that waits on a user event holds the
// in-order queue while a timed region is enqueued; opening the gate (the user event set
// CL_COMPLETE) lets the device run the region back to back, so its events measure execution
// rather than the host's enqueue rate (docs/measurement.md, "Gated timing").
#pragma once

#include "cl_api.hpp"

namespace tb::cl {

class QueueGate {
public:
    // Whether the loader offers what a gate needs (OpenCL 1.2's markers with wait lists).
    static bool supported();
    // Closes the gate: every command enqueued on `queue` after this waits for open().
    QueueGate(cl_context ctx, cl_command_queue queue);
    ~QueueGate();  // opens the gate if still closed: a queue is never left held
    QueueGate(const QueueGate&) = delete;
    QueueGate& operator=(const QueueGate&) = delete;

    void open();
    bool is_open() const { return open_; }

private:
    cl_event user_event_ = nullptr;
    bool open_ = false;
};

}  // namespace tb::cl
