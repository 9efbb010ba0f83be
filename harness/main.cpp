// The `tribench` command: list, run, ptx.
#include <algorithm>
#include <cstring>
#include <iostream>

#include <CLI/CLI.hpp>
#include <benchmark/benchmark.h>

#include "commands.hpp"
#include "device.hpp"

namespace {

// Google Benchmark's own flags (--benchmark_*) go to it; everything else to CLI11. It only
// sees its flags, so `tribench --help` stays tribench's.
std::vector<std::string> take_benchmark_flags(int argc, char** argv, std::vector<std::string>& rest) {
    std::vector<std::string> gb = {argv[0]};
    for (int i = 0; i < argc; ++i) {
        if (i > 0 && std::strncmp(argv[i], "--benchmark_", 12) == 0) gb.emplace_back(argv[i]);
        else rest.emplace_back(argv[i]);
    }
    return gb;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> rest;
    std::vector<std::string> gb_args = take_benchmark_flags(argc, argv, rest);
    bool gb_min_time = false;
    for (const auto& a : gb_args) gb_min_time = gb_min_time || a.rfind("--benchmark_min_time", 0) == 0;
    std::vector<char*> gb_argv;
    for (auto& a : gb_args) gb_argv.push_back(a.data());
    int gb_argc = int(gb_argv.size());
    benchmark::Initialize(&gb_argc, gb_argv.data());
    if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) return 2;

    CLI::App app{"tribench: the same GPU programs through cuda-native, cuda-prelude and opencl, validated and compared"};
    app.require_subcommand(1);

    tb::ListOptions list_opt;
    auto* list = app.add_subcommand("list", "programs, datasets, backends and devices with availability");
    list->add_flag("--json", list_opt.json, "machine-readable output");

    tb::RunOptions run_opt;
    run_opt.argv.assign(argv, argv + argc);
    run_opt.min_time_from_flags = gb_min_time;
    auto* run = app.add_subcommand("run", "validate and time benchmarks; Google Benchmark's --benchmark_* flags apply");
    run->add_option("-p,--program", run_opt.programs, "program(s), repeatable or comma-separated (default: all)");
    run->add_option("-d,--dataset", run_opt.datasets, "dataset(s) (default: all on GPUs, small ones on CPUs)");
    run->add_option("-b,--backend", run_opt.backends, "cuda-native, cuda-prelude, opencl, vendor (default: all)");
    run->add_option("--device", run_opt.devices, "device index or name substring (default: GPUs, else all)");
    run->add_option("--matrix", run_opt.matrix_files, "Matrix Market file(s) as spmv datasets (docs/matrix-market.md)")
        ->check(CLI::ExistingFile);
    run->add_option("--variant", run_opt.variants, "program variant(s) (default: all)");
    run->add_option("--launch", run_opt.launches, "stream, graph or all, for iterative programs (default: all)");
    run->add_option("--math", run_opt.math, "default, precise or fast (docs/math-modes.md)");
    run->add_option("--seed", run_opt.seed, "seed of the dataset generators");
    run->add_option("-o,--out", run_opt.out, "write the results JSON here (docs/results-json.md)");
    run->add_option("--save-outputs", run_opt.save_outputs, "write inputs and outputs as .npy into this folder");
    run->add_option("--min-time", run_opt.min_time_s, "minimum device time per benchmark, seconds");
    run->add_flag("--keep-going", run_opt.keep_going, "carry on after a failing benchmark");
    run->add_flag("--no-cache", run_opt.no_cache, "bypass the on-disk kernel cache");
    run->add_flag("--all-datasets", run_opt.all_datasets, "on CPU devices, run the large datasets too");

    tb::PtxOptions ptx_opt;
    auto* ptx = app.add_subcommand("ptx", "write the PTX of programs' kernels per backend (no GPU needed for CUDA)");
    ptx->add_option("-p,--program", ptx_opt.programs, "program(s) (default: all)");
    ptx->add_option("-b,--backend", ptx_opt.backends, "backend(s) (default: all that can produce PTX)");
    ptx->add_option("--arch", ptx_opt.arch, "sm_XX (default: the GPU's, else sm_90)");
    ptx->add_option("--math", ptx_opt.math, "default, precise or fast");
    ptx->add_option("-o,--out", ptx_opt.out, "output folder (default: ptx)");

    try {
        std::vector<std::string> args(rest.begin() + 1, rest.end());
        std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);
        std::cerr << "tribench: error: " << e.what() << "\n";
        return 2;
    }

    try {
        if (*list) return tb::cmd_list(list_opt);
        if (*run) return tb::cmd_run(run_opt);
        if (*ptx) return tb::cmd_ptx(ptx_opt);
    } catch (const tb::Error& e) {
        const std::string msg = e.what();
        std::cerr << "tribench: error: " << msg << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "tribench: internal error: " << e.what() << "\n";
        return 3;
    }
    return 0;
}
