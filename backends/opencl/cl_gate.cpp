#include "cl_gate.hpp"

#include <cstdio>

namespace tb::cl {

bool QueueGate::supported() {
    const Api& a = api();
    return a.CreateUserEvent && a.SetUserEventStatus && a.EnqueueMarkerWithWaitList;
}

QueueGate::QueueGate(cl_context ctx, cl_command_queue queue) {
    const Api& a = api();
    cl_int rc = CL_SUCCESS;
    user_event_ = a.CreateUserEvent(ctx, &rc);
    check(rc, "clCreateUserEvent");
    rc = a.EnqueueMarkerWithWaitList(queue, 1, &user_event_, nullptr);
    if (rc != CL_SUCCESS) {
        a.SetUserEventStatus(user_event_, CL_COMPLETE);
        a.ReleaseEvent(user_event_);
        check(rc, "clEnqueueMarkerWithWaitList(gate)");
    }
}

QueueGate::~QueueGate() {
    if (!open_) {
        if (cl_int rc = api().SetUserEventStatus(user_event_, CL_COMPLETE); rc != CL_SUCCESS)
            std::fprintf(stderr, "tribench: warning: clSetUserEventStatus failed: %s\n", error_name(rc));
    }
    api().ReleaseEvent(user_event_);
}

void QueueGate::open() {
    if (open_) return;
    open_ = true;
    check(api().SetUserEventStatus(user_event_, CL_COMPLETE), "clSetUserEventStatus");
}

}  // namespace tb::cl
