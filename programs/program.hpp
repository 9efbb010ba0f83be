// What a benchmark program is: named datasets, kernel sources for both dialects, and host
// code written once against tb::Device that prepares inputs, runs, and validates outputs
// against a CPU reference.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device.hpp"
#include "tuning_space.hpp"

namespace tb {

struct Dataset {
    std::string name;  // short, lowercase, stable: "1024x1024", "n100k"
    std::map<std::string, std::int64_t> params;
    std::string description;
    bool small = false;  // CI-sized: what runs by default on CPU (PoCL) devices
    std::string file;    // input file (spmv --matrix FILE.mtx); empty for generated data
    std::int64_t param(const std::string& key) const;  // throws if absent
};

// The work one run() performs, from which throughput and roofline position are derived.
// Conventions are documented per program (docs/programs.md).
struct WorkModel {
    double bytes = 0;  // DRAM bytes a perfect implementation moves
    double flops = 0;  // floating-point operations under the program's stated convention
    double items = 0;  // program-specific unit count (pixels, interactions, non-zeros...)
    std::string item_name;  // "pixels", "interactions", ...
};

struct Validation {
    bool ok = false;
    std::string detail;       // one line: what was compared and how it went
    std::size_t checked = 0;  // number of output values compared
    bool sampled = false;     // true when only a seeded random sample was checked
};

// An array written by `tribench run --save-outputs` as .npy.
struct NamedArray {
    std::string name;
    std::string dtype;  // numpy descr: "<f4", "<i4", "<u4", "<f8"
    std::vector<std::size_t> shape;
    std::vector<unsigned char> data;
};

enum class LaunchMode { Stream, Graph };
const char* to_string(LaunchMode m);

struct RunConfig {
    std::string variant;  // one of Program::variants()
    LaunchMode launch = LaunchMode::Stream;
    std::uint64_t seed = 42;
    // The tuning configuration the module was compiled with (Program::defines(config));
    // empty: the program's reference configuration (Program::config_of).
    TuningConfig tuning;
};

// One program on one device with one dataset: inputs generated and uploaded.
class Instance {
public:
    virtual ~Instance() = default;
    // Overwrite every output with a pattern a correct run never produces.
    virtual void poison() = 0;
    // Enqueue one complete execution: the unit that is timed.
    virtual void run() = 0;
    // Wait for the device, download outputs, compare against the CPU reference.
    virtual Validation validate() = 0;
    virtual WorkModel work() const = 0;
    // Inputs and outputs for --save-outputs (downloads outputs).
    virtual std::vector<NamedArray> arrays() { return {}; }
    // Graph mode: record run() once (or twice, for pointer swaps) so it can be replayed.
    // Returns the capture time in ms; only called when the program is iterative.
    virtual double prepare_graph() { return 0; }
    // The variant that actually runs when the program chose it itself (spmv's `auto`);
    // empty otherwise. Recorded as `picked` in the results (docs/results-json.md).
    virtual std::string picked_variant() const { return {}; }
    // When it chose by timing candidates on the device (spmv's `auto`): the wall time the
    // choice took, ms, and each candidate's time per run, ms; 0 and empty otherwise.
    // Recorded as `pick` in the results.
    virtual double pick_cost_ms() const { return 0; }
    virtual std::map<std::string, double> pick_candidates_ms() const { return {}; }
};

class Program {
public:
    virtual ~Program() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<Dataset> datasets() const = 0;
    virtual std::vector<std::string> variants() const { return {"default"}; }
    // Iterative programs offer --launch graph on backends that support graphs.
    virtual bool iterative() const { return false; }
    // Device memory the dataset needs, checked against free memory before allocating.
    virtual std::uint64_t device_bytes(const Dataset& d, const std::string& variant) const = 0;
    // Tuning (docs/tuning.md). The parameters that may vary and the constraints on them;
    // empty for a program whose constants are all fixed.
    virtual const TuningSpace& tuning_space() const;
    // The configuration to start from on `dev`, derived from what it reports. A device that
    // reports nothing (DeviceInfo{}) and an H100 both get the reference configuration: the
    // constants the kernels were tuned with on an H100.
    virtual TuningConfig default_config(const DeviceInfo& dev) const;
    // -D defines for both kernel compilers under configuration c (tunable and fixed constants).
    virtual std::vector<std::string> defines(const TuningConfig& c) const;
    // The reference configuration's defines: default_config(DeviceInfo{}).
    std::vector<std::string> defines() const { return defines(default_config(DeviceInfo{})); }
    // The configuration a prepare() runs with: cfg.tuning, or the reference configuration
    // when it is empty (a module compiled with defines()).
    TuningConfig config_of(const RunConfig& cfg) const;
    virtual std::unique_ptr<Instance> prepare(Device& dev, Module& mod, const Dataset& d,
                                              const RunConfig& cfg) const = 0;

    // Vendor-library baseline (cuFFT, cuSPARSE) on NVIDIA CUDA devices: the same inputs and
    // validation, shown as backend "vendor". The library is opened at run time; when it is
    // missing, prepare_vendor throws tb::Error saying so and only that row is lost.
    virtual bool has_vendor_baseline() const { return false; }
    virtual std::string vendor_library() const { return ""; }  // "cuFFT", "cuSPARSE"
    // The variants vendor rows run under: by default the kernel variants (one vendor row
    // beside each); a program whose library offers its own algorithms names them instead
    // (spmv: csr-alg1, csr-alg2), and those variants run only as vendor rows.
    virtual std::vector<std::string> vendor_variants() const { return variants(); }
    virtual std::unique_ptr<Instance> prepare_vendor(Device& dev, const Dataset& d, const RunConfig& cfg) const;

    // Programs that read a matrix file (`tribench run --matrix FILE.mtx`) make a dataset of it.
    virtual bool takes_matrix_file() const { return false; }
    virtual Dataset dataset_from_file(const std::string& path) const;
};

// Kernel source of a program for a dialect, from the files embedded at build time.
Source program_source(const Program& p, Dialect d);

// Every program, in the suite's order.
const std::vector<const Program*>& all_programs();
// Throws tb::Error("unknown program 'x' (known: ...)").
const Program& find_program(const std::string& name);
// Throws tb::Error("unknown dataset 'x' for program p (known: ...)").
const Dataset& find_dataset(const std::vector<Dataset>& sets, const std::string& program,
                            const std::string& name);

}  // namespace tb
