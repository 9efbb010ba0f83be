// EXPERIMENT opencl-launch-cost (reports/h100/REPORT.md): where do the opencl backend's 13-17 us
// per launch go? Launches the same small kernel N times back to back on the first GPU of the
// first OpenCL platform that has one (else the first device), in six ways that each drop one thing the backend does, and
// prints the wall time per launch (first enqueue to clFinish returning), the host time spent in
// the enqueue calls, and, where events exist, the device span per launch. Raw OpenCL API, no
// tribench code, so the runtime is measured alone.
//   build: g++ -O2 -std=c++17 launch_cost.cpp -o launch_cost -l:libOpenCL.so.1
//   run:   ./launch_cost [launches=2000]
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(cl_int rc, const char* what) {
    if (rc != CL_SUCCESS) {
        std::fprintf(stderr, "launch_cost: %s failed with OpenCL error %d\n", what, rc);
        std::exit(1);
    }
}

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const char* kSource = R"CL(
__kernel void scale(__global const float *restrict x, __global float *restrict y, int n, float a)
{
    const int i = (int)get_global_id(0);
    if (i < n) y[i] = a * x[i];
}
)CL";

struct Mode {
    const char* name;
    bool profiling_queue;  // CL_QUEUE_PROFILING_ENABLE
    bool set_args_each;    // clGetKernelInfo(NUM_ARGS) + clSetKernelArg x4 before every launch
    bool event_each;       // an event per launch, released after clFinish
    bool marker_span;      // an event on the first launch and a marker with an event at the end
};

struct Result {
    double wall_us, enqueue_us, device_us;  // per launch; device_us < 0: no events
};

Result run(cl_context ctx, cl_device_id dev, cl_kernel k, cl_mem x, cl_mem y, int n, std::size_t global,
           const Mode& m, int launches) {
    cl_int rc = CL_SUCCESS;
    const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                         cl_queue_properties(m.profiling_queue ? CL_QUEUE_PROFILING_ENABLE : 0), 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &rc);
    check(rc, "clCreateCommandQueueWithProperties");
    const float a = 2.0f;
    auto set_args = [&] {
        cl_uint nargs = 0;
        check(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr), "clGetKernelInfo");
        check(clSetKernelArg(k, 0, sizeof x, &x), "clSetKernelArg");
        check(clSetKernelArg(k, 1, sizeof y, &y), "clSetKernelArg");
        check(clSetKernelArg(k, 2, sizeof n, &n), "clSetKernelArg");
        check(clSetKernelArg(k, 3, sizeof a, &a), "clSetKernelArg");
    };
    const std::size_t local = 256;
    // Warm-up: first launches pay for module load and queue setup.
    set_args();
    for (int i = 0; i < 50; ++i) check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), "warm-up");
    check(clFinish(q), "clFinish");

    std::vector<cl_event> events(launches, nullptr);
    cl_event marker = nullptr;
    double enqueue = 0;
    const double t0 = now_us();
    for (int i = 0; i < launches; ++i) {
        const double e0 = now_us();
        if (m.set_args_each) set_args();
        cl_event* ev = (m.event_each || (m.marker_span && i == 0)) ? &events[i] : nullptr;
        check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, ev), "clEnqueueNDRangeKernel");
        enqueue += now_us() - e0;
    }
    if (m.marker_span) check(clEnqueueMarkerWithWaitList(q, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
    check(clFinish(q), "clFinish");
    const double wall = now_us() - t0;

    double device = -1;
    auto stamp = [](cl_event e, cl_profiling_info what) {
        cl_ulong t = 0;
        check(clGetEventProfilingInfo(e, what, sizeof t, &t, nullptr), "clGetEventProfilingInfo");
        return t;
    };
    if (m.event_each) {
        cl_ulong first = stamp(events.front(), CL_PROFILING_COMMAND_START), last = 0;
        for (cl_event e : events) last = std::max(last, stamp(e, CL_PROFILING_COMMAND_END));
        device = double(last - first) / 1e3 / launches;
    } else if (m.marker_span) {
        const cl_ulong first = stamp(events.front(), CL_PROFILING_COMMAND_START);
        const cl_ulong end = stamp(marker, CL_PROFILING_COMMAND_END);
        device = end > first ? double(end - first) / 1e3 / launches : 0.0;
    }
    for (cl_event e : events)
        if (e) clReleaseEvent(e);
    if (marker) clReleaseEvent(marker);
    clReleaseCommandQueue(q);
    return {wall / launches, enqueue / launches, device};
}

}  // namespace

int main(int argc, char** argv) {
    const int launches = argc > 1 ? std::atoi(argv[1]) : 2000;
    cl_uint np = 0;
    check(clGetPlatformIDs(0, nullptr, &np), "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(np);
    check(clGetPlatformIDs(np, platforms.data(), nullptr), "clGetPlatformIDs");
    cl_device_id dev = nullptr;
    for (cl_platform_id p : platforms)
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &dev, nullptr) == CL_SUCCESS) break;
    if (!dev)  // no GPU: any device (PoCL on a CPU), so the program can be tried anywhere
        for (cl_platform_id p : platforms)
            if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr) == CL_SUCCESS) break;
    if (!dev) {
        std::fprintf(stderr, "launch_cost: no OpenCL device\n");
        return 1;
    }
    char name[256] = {}, version[256] = {};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
    clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof version, version, nullptr);
    cl_int rc = CL_SUCCESS;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &rc);
    check(rc, "clCreateContext");
    cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &rc);
    check(rc, "clCreateProgramWithSource");
    check(clBuildProgram(prog, 1, &dev, "", nullptr, nullptr), "clBuildProgram");
    cl_kernel k = clCreateKernel(prog, "scale", &rc);
    check(rc, "clCreateKernel");

    const Mode modes[] = {
        {"backend before: profiling queue, args + event per launch", true, true, true, false},
        {"profiling queue, args per launch, no events", true, true, false, false},
        {"profiling queue, event per launch, args once", true, false, true, false},
        {"profiling queue, first-launch event + end marker", true, false, false, true},
        {"profiling queue, no events, args once", true, false, false, false},
        {"plain queue, no events, args once", false, false, false, false},
    };
    std::printf("device: %s, driver %s, %d launches per row\n", name, version, launches);
    // Two sizes: 1 group of 256 (launch cost alone) and 1M items (about a 128x128x64 stencil sweep).
    for (const int n : {256, 1 << 20}) {
        std::vector<float> host(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) host[std::size_t(i)] = float(i % 97) + 0.5f;
        cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * n, host.data(), &rc);
        check(rc, "clCreateBuffer");
        cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(float) * n, nullptr, &rc);
        check(rc, "clCreateBuffer");
        const std::size_t global = (std::size_t(n) + 255) / 256 * 256;
        std::printf("\nkernel scale, %d items (%zu groups of 256)\n", n, global / 256);
        std::printf("  %-58s %10s %12s %12s\n", "mode", "wall us", "enqueue us", "device us");
        for (const Mode& m : modes) {
            // Twice each, the second counted: the first pass of a mode warms its path.
            run(ctx, dev, k, x, y, n, global, m, launches / 4);
            const Result r = run(ctx, dev, k, x, y, n, global, m, launches);
            char dev_text[32] = "-";
            if (r.device_us >= 0) std::snprintf(dev_text, sizeof dev_text, "%.2f", r.device_us);
            std::printf("  %-58s %10.2f %12.2f %12s\n", m.name, r.wall_us, r.enqueue_us, dev_text);
        }
        // The result must be right, or the timings mean nothing.
        std::vector<float> out(static_cast<std::size_t>(n));
        cl_command_queue rq = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &rc);
        check(rc, "clCreateCommandQueueWithProperties");
        check(clEnqueueReadBuffer(rq, y, CL_TRUE, 0, sizeof(float) * n, out.data(), 0, nullptr, nullptr),
              "clEnqueueReadBuffer");
        clReleaseCommandQueue(rq);
        for (int i = 0; i < n; ++i)
            if (out[std::size_t(i)] != 2.0f * host[std::size_t(i)]) {
                std::fprintf(stderr, "launch_cost: wrong result at %d: %g\n", i, double(out[std::size_t(i)]));
                return 1;
            }
        std::printf("  (result checked: y = 2x for all %d items)\n", n);
        clReleaseMemObject(x);
        clReleaseMemObject(y);
    }
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return 0;
}
