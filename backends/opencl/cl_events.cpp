#include "cl_events.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "device.hpp"

namespace tb::cl {

SpanMode span_mode_from_environment() {
    const char* v = std::getenv("TRIBENCH_OPENCL_TIMING");
    if (!v || !*v || std::string(v) == "bracket") return SpanMode::bracket;
    if (std::string(v) == "each") return SpanMode::each;
    throw Error(std::string("TRIBENCH_OPENCL_TIMING is '") + v + "'; expected 'bracket' or 'each'");
}

EventSpan::~EventSpan() {
    for (cl_event e : events_) api().ReleaseEvent(e);  // nothing useful to do on failure
}

double EventSpan::elapsed_ms() const {
    const Api& a = api();
    cl_ulong first = std::numeric_limits<cl_ulong>::max();
    cl_ulong last = 0;
    for (cl_event e : events_) {
        cl_ulong start = 0, end = 0;
        check(a.GetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
              "clGetEventProfilingInfo(CL_PROFILING_COMMAND_START)");
        check(a.GetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
              "clGetEventProfilingInfo(CL_PROFILING_COMMAND_END)");
        first = std::min(first, start);
        last = std::max(last, end);
    }
    return last > first ? double(last - first) / 1e6 : 0.0;
}

}  // namespace tb::cl
