// What the toolkit's assembler makes of PTX, without a GPU: registers, barriers, shared
// memory, constant banks, stack frame and spills per function from `ptxas -v`, and SASS
// from `cuobjdump -sass` on the cubin ptxas wrote (docs/ptx-tools.md).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tb::ptx {

// One function as `ptxas -v` reports it; -1 where it said nothing (device functions get
// no "Used ..." line of their own).
struct FunctionResources {
    std::string name;
    bool entry = false;                  // "Compiling entry function"
    int registers = -1;                  // per thread
    int barriers = -1;                   // named barriers used
    long shared_bytes = -1;              // static shared memory
    std::map<int, long> const_bytes;     // cmem[bank] (CUDA 13's ptxas no longer prints these)
    long stack_frame_bytes = -1;         // per-thread local memory: spills and local arrays
    long spill_store_bytes = -1, spill_load_bytes = -1;
    long cumulative_stack_bytes = -1;    // the frame with its callees'
};

struct PtxasReport {
    long global_bytes = -1;  // "N bytes gmem": module-scope __device__ data
    std::vector<FunctionResources> functions;  // in the order ptxas named them
    std::vector<std::string> warnings;         // "ptxas warning : ..." lines
    const FunctionResources* find(const std::string& name) const;  // nullptr if absent
};

// Parses the informational output of `ptxas -v` (CUDA 11 to 13 formats). Lines it does not
// know are ignored.
PtxasReport parse_ptxas_verbose(const std::string& text);

// Absolute path of a CUDA toolkit program ("ptxas", "cuobjdump"), looked for in the
// toolkit the build was configured with, then $CUDA_HOME/bin, $CUDA_PATH/bin, then PATH;
// "" when none has it.
std::string find_cuda_tool(const std::string& name);

struct Assembly {
    std::string ptxas;        // the ptxas used
    PtxasReport report;
    std::string sass;         // `cuobjdump -sass` output; empty when not asked or unavailable
    std::string sass_error;   // why there is no SASS (cuobjdump missing or failed)
};

// Assembles `ptx` for `arch` ("sm_90"; "compute_90" is taken as sm_90) with `ptxas -v` in a
// temporary folder and, when `want_sass`, disassembles the cubin. Throws tb::Error when
// ptxas is missing ("ptxas not found (...)") or rejects the PTX (its first error line).
Assembly assemble(const std::string& ptx, const std::string& arch, bool want_sass);

}  // namespace tb::ptx
