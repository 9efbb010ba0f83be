#include "cl_api.hpp"

#include <string>

#include "device.hpp"
#include "dynlib.hpp"

namespace tb::cl {
namespace {

struct Loaded {
    DynLib lib;
    Api api;
    std::string error;  // non-empty when loading failed
};

template <class Fn>
void bind(const DynLib& lib, Fn& slot, const char* symbol) {
    slot = reinterpret_cast<Fn>(lib.require(symbol));
}

template <class Fn>
void bind_optional(const DynLib& lib, Fn& slot, const char* symbol) {
    slot = reinterpret_cast<Fn>(lib.find(symbol));
}

Loaded load() {
    Loaded l;
    try {
        l.lib = DynLib::open({"libOpenCL.so.1", "libOpenCL.so"});
        Api& a = l.api;
        bind(l.lib, a.GetPlatformIDs, "clGetPlatformIDs");
        bind(l.lib, a.GetPlatformInfo, "clGetPlatformInfo");
        bind(l.lib, a.GetDeviceIDs, "clGetDeviceIDs");
        bind(l.lib, a.GetDeviceInfo, "clGetDeviceInfo");
        bind(l.lib, a.CreateContext, "clCreateContext");
        bind(l.lib, a.ReleaseContext, "clReleaseContext");
        bind_optional(l.lib, a.CreateCommandQueueWithProperties, "clCreateCommandQueueWithProperties");
        bind_optional(l.lib, a.CreateCommandQueue, "clCreateCommandQueue");
        if (!a.CreateCommandQueueWithProperties && !a.CreateCommandQueue)
            throw Error(l.lib.name() + ": symbol clCreateCommandQueue not found");
        bind(l.lib, a.ReleaseCommandQueue, "clReleaseCommandQueue");
        bind(l.lib, a.CreateBuffer, "clCreateBuffer");
        bind(l.lib, a.ReleaseMemObject, "clReleaseMemObject");
        bind(l.lib, a.EnqueueWriteBuffer, "clEnqueueWriteBuffer");
        bind(l.lib, a.EnqueueReadBuffer, "clEnqueueReadBuffer");
        bind(l.lib, a.EnqueueCopyBuffer, "clEnqueueCopyBuffer");
        bind(l.lib, a.EnqueueFillBuffer, "clEnqueueFillBuffer");
        bind_optional(l.lib, a.EnqueueMarkerWithWaitList, "clEnqueueMarkerWithWaitList");
        bind(l.lib, a.CreateProgramWithSource, "clCreateProgramWithSource");
        bind(l.lib, a.CreateProgramWithBinary, "clCreateProgramWithBinary");
        bind(l.lib, a.BuildProgram, "clBuildProgram");
        bind(l.lib, a.GetProgramInfo, "clGetProgramInfo");
        bind(l.lib, a.GetProgramBuildInfo, "clGetProgramBuildInfo");
        bind(l.lib, a.ReleaseProgram, "clReleaseProgram");
        bind(l.lib, a.CreateKernel, "clCreateKernel");
        bind(l.lib, a.GetKernelInfo, "clGetKernelInfo");
        bind(l.lib, a.GetKernelWorkGroupInfo, "clGetKernelWorkGroupInfo");
        bind(l.lib, a.ReleaseKernel, "clReleaseKernel");
        bind(l.lib, a.SetKernelArg, "clSetKernelArg");
        bind(l.lib, a.EnqueueNDRangeKernel, "clEnqueueNDRangeKernel");
        bind(l.lib, a.Finish, "clFinish");
        bind(l.lib, a.GetEventProfilingInfo, "clGetEventProfilingInfo");
        bind(l.lib, a.ReleaseEvent, "clReleaseEvent");
        bind_optional(l.lib, a.CreateUserEvent, "clCreateUserEvent");
        bind_optional(l.lib, a.SetUserEventStatus, "clSetUserEventStatus");
    } catch (const Error& e) {
        l.error = e.what();
    }
    return l;
}

struct CodeName {
    cl_int code;
    const char* name;
};

#define TB_CL_CODE(c) CodeName{c, #c}
// Core codes come from CL/cl.h (so a typo cannot compile); extension codes are written as
// numbers because older and newer headers disagree on which of them they define.
constexpr CodeName kCodes[] = {
    TB_CL_CODE(CL_SUCCESS),
    TB_CL_CODE(CL_DEVICE_NOT_FOUND),
    TB_CL_CODE(CL_DEVICE_NOT_AVAILABLE),
    TB_CL_CODE(CL_COMPILER_NOT_AVAILABLE),
    TB_CL_CODE(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    TB_CL_CODE(CL_OUT_OF_RESOURCES),
    TB_CL_CODE(CL_OUT_OF_HOST_MEMORY),
    TB_CL_CODE(CL_PROFILING_INFO_NOT_AVAILABLE),
    TB_CL_CODE(CL_MEM_COPY_OVERLAP),
    TB_CL_CODE(CL_IMAGE_FORMAT_MISMATCH),
    TB_CL_CODE(CL_IMAGE_FORMAT_NOT_SUPPORTED),
    TB_CL_CODE(CL_BUILD_PROGRAM_FAILURE),
    TB_CL_CODE(CL_MAP_FAILURE),
    TB_CL_CODE(CL_MISALIGNED_SUB_BUFFER_OFFSET),
    TB_CL_CODE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    TB_CL_CODE(CL_COMPILE_PROGRAM_FAILURE),
    TB_CL_CODE(CL_LINKER_NOT_AVAILABLE),
    TB_CL_CODE(CL_LINK_PROGRAM_FAILURE),
    TB_CL_CODE(CL_DEVICE_PARTITION_FAILED),
    TB_CL_CODE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    TB_CL_CODE(CL_INVALID_VALUE),
    TB_CL_CODE(CL_INVALID_DEVICE_TYPE),
    TB_CL_CODE(CL_INVALID_PLATFORM),
    TB_CL_CODE(CL_INVALID_DEVICE),
    TB_CL_CODE(CL_INVALID_CONTEXT),
    TB_CL_CODE(CL_INVALID_QUEUE_PROPERTIES),
    TB_CL_CODE(CL_INVALID_COMMAND_QUEUE),
    TB_CL_CODE(CL_INVALID_HOST_PTR),
    TB_CL_CODE(CL_INVALID_MEM_OBJECT),
    TB_CL_CODE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    TB_CL_CODE(CL_INVALID_IMAGE_SIZE),
    TB_CL_CODE(CL_INVALID_SAMPLER),
    TB_CL_CODE(CL_INVALID_BINARY),
    TB_CL_CODE(CL_INVALID_BUILD_OPTIONS),
    TB_CL_CODE(CL_INVALID_PROGRAM),
    TB_CL_CODE(CL_INVALID_PROGRAM_EXECUTABLE),
    TB_CL_CODE(CL_INVALID_KERNEL_NAME),
    TB_CL_CODE(CL_INVALID_KERNEL_DEFINITION),
    TB_CL_CODE(CL_INVALID_KERNEL),
    TB_CL_CODE(CL_INVALID_ARG_INDEX),
    TB_CL_CODE(CL_INVALID_ARG_VALUE),
    TB_CL_CODE(CL_INVALID_ARG_SIZE),
    TB_CL_CODE(CL_INVALID_KERNEL_ARGS),
    TB_CL_CODE(CL_INVALID_WORK_DIMENSION),
    TB_CL_CODE(CL_INVALID_WORK_GROUP_SIZE),
    TB_CL_CODE(CL_INVALID_WORK_ITEM_SIZE),
    TB_CL_CODE(CL_INVALID_GLOBAL_OFFSET),
    TB_CL_CODE(CL_INVALID_EVENT_WAIT_LIST),
    TB_CL_CODE(CL_INVALID_EVENT),
    TB_CL_CODE(CL_INVALID_OPERATION),
    TB_CL_CODE(CL_INVALID_GL_OBJECT),
    TB_CL_CODE(CL_INVALID_BUFFER_SIZE),
    TB_CL_CODE(CL_INVALID_MIP_LEVEL),
    TB_CL_CODE(CL_INVALID_GLOBAL_WORK_SIZE),
    TB_CL_CODE(CL_INVALID_PROPERTY),
    TB_CL_CODE(CL_INVALID_IMAGE_DESCRIPTOR),
    TB_CL_CODE(CL_INVALID_COMPILER_OPTIONS),
    TB_CL_CODE(CL_INVALID_LINKER_OPTIONS),
    TB_CL_CODE(CL_INVALID_DEVICE_PARTITION_COUNT),
    TB_CL_CODE(CL_INVALID_PIPE_SIZE),
    TB_CL_CODE(CL_INVALID_DEVICE_QUEUE),
    TB_CL_CODE(CL_INVALID_SPEC_ID),
    TB_CL_CODE(CL_MAX_SIZE_RESTRICTION_EXCEEDED),
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    {-1002, "CL_INVALID_D3D10_DEVICE_KHR"},
    {-1003, "CL_INVALID_D3D10_RESOURCE_KHR"},
    {-1004, "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1005, "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1057, "CL_DEVICE_PARTITION_FAILED_EXT"},
    {-1058, "CL_INVALID_PARTITION_COUNT_EXT"},
    {-1059, "CL_INVALID_PARTITION_NAME_EXT"},
    {-1092, "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1093, "CL_INVALID_EGL_OBJECT_KHR"},
    {-1094, "CL_INVALID_ACCELERATOR_INTEL"},
    {-1095, "CL_INVALID_ACCELERATOR_TYPE_INTEL"},
    {-1096, "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL"},
    {-1097, "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
    {-1121, "CL_CONTEXT_TERMINATED_KHR"},
    {-1138, "CL_INVALID_COMMAND_BUFFER_KHR"},
    {-1139, "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR"},
    {-1140, "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR"},
    {-1141, "CL_INVALID_MUTABLE_COMMAND_KHR"},
    {-1142, "CL_INVALID_SEMAPHORE_KHR"},
};
#undef TB_CL_CODE

}  // namespace

const Api& api() {
    static const Loaded loaded = load();
    if (!loaded.error.empty()) throw Error(loaded.error);
    return loaded.api;
}

const char* error_name(cl_int code) {
    for (const auto& c : kCodes)
        if (c.code == code) return c.name;
    return "CL_UNKNOWN_ERROR";
}

void check(cl_int code, std::string_view call) {
    if (code == CL_SUCCESS) return;
    throw Error(std::string(call) + " failed: " + error_name(code) + " (" + std::to_string(code) + ")");
}

}  // namespace tb::cl
