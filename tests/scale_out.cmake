# Scale-out, end to end (docs/scale-out.md). Included from tests/CMakeLists.txt after
# e2e.cmake (tb_cli_test, TB, E2E_DIR).
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(SO_CMP ${CMAKE_CURRENT_SOURCE_DIR}/data/compare)

# Usage errors: exit 2 and one line.
tb_cli_test(shard_bad 2 ONE_LINE ERR "--shard takes K/N with 1 <= K <= N \\(got '3/2'\\)"
            ARGS run -p mandelbrot -b opencl --shard 3/2)
tb_cli_test(shard_cost_alone 2 ONE_LINE ERR "--cost-from balances shards: it needs --shard"
            ARGS run -p mandelbrot -b opencl --cost-from ${SO_CMP}/old.json)
tb_cli_test(shard_cost_not_results 2 ONE_LINE ERR "truncated.json: malformed JSON"
            ARGS run -p mandelbrot -b opencl --shard 1/2 --cost-from ${SO_CMP}/truncated.json)
tb_cli_test(shard_gb_filter 2 ONE_LINE ERR "cannot take --benchmark_filter"
            ARGS run -p mandelbrot -b opencl --shard 1/2 --benchmark_filter=x)
tb_cli_test(parallel_with_shard 2 ONE_LINE ERR "--parallel-devices makes one shard per GPU itself"
            ARGS run -p mandelbrot --parallel-devices --shard 1/2)
tb_cli_test(parallel_gb_out 2 ONE_LINE ERR "cannot take --benchmark_out"
            ARGS run -p mandelbrot --parallel-devices --benchmark_out=${E2E_DIR}/gb.json)
tb_cli_test(parallel_device_index 2 ONE_LINE ERR "choose the GPUs there, not with --device 1"
            ARGS run -p mandelbrot --parallel-devices --device 1)
tb_cli_test(pin_cpus_alone 2 ONE_LINE ERR "--pin-cpus is an option of --parallel-devices"
            ARGS run -p mandelbrot --pin-cpus)
tb_cli_test(merge_needs_out 2 ONE_LINE ERR "--out is required" ARGS merge ${SO_CMP}/old.json)
tb_cli_test(merge_unreadable 2 ONE_LINE ERR "cannot read .*nosuch.json" ARGS merge ${SO_CMP}/nosuch.json -o ${E2E_DIR}/m.json)
tb_cli_test(merge_old_file 2 ONE_LINE ERR "old.json records no selection .*--ignore-selection"
            ARGS merge ${SO_CMP}/old.json -o ${E2E_DIR}/m.json)

# Shards, merge, compare/report/export of the merge, refusals, --cost-from, --parallel-devices.
add_test(NAME e2e.shards COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/shard/check_shards.py
         $<TARGET_FILE:tribench> ${CMAKE_CURRENT_BINARY_DIR}/shards)
set_tests_properties(e2e.shards PROPERTIES TIMEOUT 600)

# The two-GPU check's summary (scripts/parallel_devices_check.sh) on made-up results.
add_test(NAME scripts.parallel_devices_summary COMMAND ${Python3_EXECUTABLE}
         ${CMAKE_CURRENT_SOURCE_DIR}/parallel_devices_summary_check.py
         ${PROJECT_SOURCE_DIR}/scripts/parallel_devices_summary.py ${CMAKE_CURRENT_BINARY_DIR}/parallel_devices_summary)

# A real one-node Slurm cluster (slurm-wlm, munge) running the job array: skipped, with the
# reason, where the daemons are missing or cannot start.
add_test(NAME slurm.array COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/slurm/run_slurm_test.sh
         $<TARGET_FILE:tribench> ${PROJECT_SOURCE_DIR})
# COST: it takes ~130 s, mostly waiting on Slurm's time limits; a fresh clone (CI) has no
# timings of ctest's own, so without it the test started last and the gate waited for it.
set_tests_properties(slurm.array PROPERTIES TIMEOUT 420 SKIP_RETURN_CODE 77 RESOURCE_LOCK slurm COST 130)
