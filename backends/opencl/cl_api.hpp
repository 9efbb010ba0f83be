// The OpenCL API, opened at run time from the ICD loader (libOpenCL.so.1). CL/cl.h is
// included for its types only: no OpenCL symbol is linked, so the binary starts on machines
// without any OpenCL installed, and the opencl backend reports why it is unavailable.
#pragma once

#include <CL/cl.h>

#include <string>
#include <string_view>

namespace tb::cl {

// The entry points tribench uses, resolved by name from the loader.
struct Api {
    decltype(&::clGetPlatformIDs) GetPlatformIDs = nullptr;
    decltype(&::clGetPlatformInfo) GetPlatformInfo = nullptr;
    decltype(&::clGetDeviceIDs) GetDeviceIDs = nullptr;
    decltype(&::clGetDeviceInfo) GetDeviceInfo = nullptr;
    decltype(&::clCreateContext) CreateContext = nullptr;
    decltype(&::clReleaseContext) ReleaseContext = nullptr;
    // OpenCL 2.0+; nullptr when the loader predates it.
    decltype(&::clCreateCommandQueueWithProperties) CreateCommandQueueWithProperties = nullptr;
    // Deprecated in 2.0 but the only choice on 1.2 platforms; nullptr if the loader lacks it.
    cl_command_queue(CL_API_CALL* CreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties,
                                                     cl_int*) = nullptr;
    decltype(&::clReleaseCommandQueue) ReleaseCommandQueue = nullptr;
    decltype(&::clCreateBuffer) CreateBuffer = nullptr;
    decltype(&::clReleaseMemObject) ReleaseMemObject = nullptr;
    decltype(&::clEnqueueWriteBuffer) EnqueueWriteBuffer = nullptr;
    decltype(&::clEnqueueReadBuffer) EnqueueReadBuffer = nullptr;
    decltype(&::clEnqueueCopyBuffer) EnqueueCopyBuffer = nullptr;
    decltype(&::clEnqueueFillBuffer) EnqueueFillBuffer = nullptr;
    decltype(&::clEnqueueMarkerWithWaitList) EnqueueMarkerWithWaitList = nullptr;  // 1.2+; may be null
    decltype(&::clCreateProgramWithSource) CreateProgramWithSource = nullptr;
    decltype(&::clCreateProgramWithBinary) CreateProgramWithBinary = nullptr;
    decltype(&::clBuildProgram) BuildProgram = nullptr;
    decltype(&::clGetProgramInfo) GetProgramInfo = nullptr;
    decltype(&::clGetProgramBuildInfo) GetProgramBuildInfo = nullptr;
    decltype(&::clReleaseProgram) ReleaseProgram = nullptr;
    decltype(&::clCreateKernel) CreateKernel = nullptr;
    decltype(&::clGetKernelInfo) GetKernelInfo = nullptr;
    decltype(&::clGetKernelWorkGroupInfo) GetKernelWorkGroupInfo = nullptr;
    decltype(&::clReleaseKernel) ReleaseKernel = nullptr;
    decltype(&::clSetKernelArg) SetKernelArg = nullptr;
    decltype(&::clEnqueueNDRangeKernel) EnqueueNDRangeKernel = nullptr;
    decltype(&::clFinish) Finish = nullptr;
    decltype(&::clGetEventProfilingInfo) GetEventProfilingInfo = nullptr;
    decltype(&::clReleaseEvent) ReleaseEvent = nullptr;
    // OpenCL 1.1+; nullptr when the loader lacks them (then gated timing falls back to plain).
    decltype(&::clCreateUserEvent) CreateUserEvent = nullptr;
    decltype(&::clSetUserEventStatus) SetUserEventStatus = nullptr;
};

// Loads the library once per process. Throws tb::Error("libOpenCL.so.1 not found") when no
// ICD loader is installed (every call, with the same message).
const Api& api();

// "CL_BUILD_PROGRAM_FAILURE" for -11; "CL_UNKNOWN_ERROR" for codes no header names.
const char* error_name(cl_int code);

// Throws tb::Error("<call> failed: <NAME> (<code>)") unless code is CL_SUCCESS.
void check(cl_int code, std::string_view call);

}  // namespace tb::cl
