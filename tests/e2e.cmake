# End-to-end tests of the `tribench` command. On a machine without a GPU they run on PoCL.
set(TB $<TARGET_FILE:tribench>)
set(E2E_DIR ${CMAKE_CURRENT_BINARY_DIR}/e2e)
file(MAKE_DIRECTORY ${E2E_DIR})

# tb_cli_test(NAME RC [ERR regex] [OUT regex] [ONE_LINE] [FILE path] [NO_FILE path] ARGS ...)
function(tb_cli_test name rc)
  cmake_parse_arguments(T "ONE_LINE" "ERR;OUT;FILE;FILE_MATCH;NO_FILE" "ARGS" ${ARGN})
  set(defs -DEXPECT_RC=${rc})
  if(T_ERR)
    list(APPEND defs "-DEXPECT_ERR=${T_ERR}")
  endif()
  if(T_OUT)
    list(APPEND defs "-DEXPECT_OUT=${T_OUT}")
  endif()
  if(T_ONE_LINE)
    list(APPEND defs -DONE_LINE_ERROR=ON)
  endif()
  if(T_FILE)
    list(APPEND defs "-DEXPECT_FILE=${T_FILE}")
  endif()
  if(T_FILE_MATCH)
    list(APPEND defs "-DEXPECT_FILE_MATCH=${T_FILE_MATCH}")
  endif()
  if(T_NO_FILE)
    list(APPEND defs "-DEXPECT_NO_FILE=${T_NO_FILE}")
  endif()
  # Arguments travel joined by "|" (a ";" would split the add_test argument).
  string(REPLACE ";" "|" cmd "${TB};${T_ARGS}")
  add_test(NAME e2e.${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" ${defs} -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_cli.cmake)
  set_tests_properties(e2e.${name} PROPERTIES TIMEOUT 900)
endfunction()

tb_cli_test(list 0 OUT "mandelbrot.*backends:.*opencl" ARGS list)
tb_cli_test(list_json 0 OUT "\"programs\"" ARGS list --json)
tb_cli_test(help 0 OUT "run" ARGS --help)

# One-line errors and non-zero exits for names that match nothing.
tb_cli_test(unknown_program 2 ONE_LINE ERR "unknown program 'nosuch' \\(known: .*mandelbrot" ARGS run --program nosuch)
tb_cli_test(unknown_backend 2 ONE_LINE ERR "unknown backend 'cuda-magic' \\(known: cuda-native, cuda-prelude, opencl\\)"
            ARGS run --backend cuda-magic)
tb_cli_test(unknown_dataset 2 ONE_LINE ERR "unknown dataset '3x3' for program mandelbrot"
            ARGS run --program mandelbrot --dataset 3x3 --backend opencl)
tb_cli_test(unknown_device 2 ONE_LINE ERR "unknown device 'no-such-gpu' \\(available: "
            ARGS run --program mandelbrot --backend opencl --device no-such-gpu)
tb_cli_test(unknown_math 2 ONE_LINE ERR "unknown math mode 'sloppy'" ARGS run --math sloppy --backend opencl)
tb_cli_test(unknown_option 2 ONE_LINE ERR "tribench: error: .*--frobnicate \\(tribench run --help\\)"
            ARGS run --frobnicate)
tb_cli_test(bad_number 2 ONE_LINE ERR "tribench: error: .*--seed" ARGS run --seed banana)
tb_cli_test(unknown_command 2 ONE_LINE ERR "unknown command 'frob' \\(known: list, run, tune, .*merge\\)" ARGS frob)
tb_cli_test(no_command 2 ONE_LINE ERR "no command given \\(known: list, run, " ARGS)
tb_cli_test(option_before_command 2 ONE_LINE ERR "unknown option '--bogus' before the command \\(tribench --help\\)"
            ARGS --bogus)
tb_cli_test(version 0 OUT "^tribench [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit [0-9a-z]+\\)" ARGS --version)

# A budget too small for the selection says how many medians rest on fewer than 5 samples.
tb_cli_test(run_budget_few_samples 0 ERR "budget: 2 have fewer than 5 samples"
            ARGS run --program mandelbrot --dataset 128x128,512x512 --backend opencl --budget 0.01 --min-samples 3)

# mandelbrot validates and is timed on the opencl backend (PoCL here), results written.
tb_cli_test(run_mandelbrot_opencl 0 OUT "mandelbrot/128x128/opencl +opencl:[0-9]+ +ok"
            FILE ${E2E_DIR}/mandelbrot.json FILE_MATCH "\"pocl_affinity\": \"(pinned by tribench|unpinned)\""
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --min-time 0.05 --timeout 1
                 --out ${E2E_DIR}/mandelbrot.json)
# tribench tune (docs/tuning.md): a two-point search on PoCL writes a tuning file, and run
# takes its configuration from it and records it; bad tuning files are refused in one line.
tb_cli_test(tune_mandelbrot_opencl 0 OUT "mandelbrot/128x128/opencl on .*: group_x=[0-9]+,group_y=[0-9]+ .*tuning written to"
            ERR "tune: \\[2/2\\] group_x=" FILE ${E2E_DIR}/tuning.json
            ARGS tune --program mandelbrot --dataset 128x128 --backend opencl --exhaustive 0 --max-points 2
                 --min-time 0.02 --timeout 0.5 --out ${E2E_DIR}/tuning.json)
tb_cli_test(run_tuned_mandelbrot_opencl 0 FILE ${E2E_DIR}/mandelbrot-tuned.json
            FILE_MATCH "\"config_source\": \"tuned\""
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --min-time 0.02 --timeout 0.5 --no-batch
                 --tuning ${E2E_DIR}/tuning.json --out ${E2E_DIR}/mandelbrot-tuned.json)
# Under --budget every key's default is timed first, then each key searches under a share of
# what is left (docs/tuning.md, "--budget"); the budget holds both searches whole even where
# a trial takes seconds (a loaded machine, the sanitizers), so the count is exact.
tb_cli_test(tune_budget_shares 0 ERR "tune: device default 2 of 2, [0-9]+ s in.*tune: key 2 of 2, [0-9]+ s in, a share of [0-9]+ s"
            OUT "tune: 2 keys in [0-9]+ s: 2 searched beyond their device default \\(6 configurations in all\\), [0-2] changed it, 0 with none validated"
            ARGS tune --program mandelbrot --dataset 128x128,512x512 --backend opencl --exhaustive 0 --max-points 3
                 --min-time 0.02 --timeout 0.5 --budget 60 --out ${E2E_DIR}/tuning-budget.json)
set_tests_properties(e2e.tune_mandelbrot_opencl PROPERTIES FIXTURES_SETUP tuning_file)
set_tests_properties(e2e.run_tuned_mandelbrot_opencl PROPERTIES FIXTURES_REQUIRED tuning_file)
tb_cli_test(run_tuning_malformed 2 ONE_LINE ERR "malformed.json: not JSON"
            ARGS run --program mandelbrot --backend opencl --tuning ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/malformed.json)
tb_cli_test(run_tuning_foreign_device 2 ONE_LINE
            ERR "foreign-device.json: tuned for Imaginary GPU 9000 \\(driver 1.0\\), not for .*--tuning none"
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl
                 --tuning ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/foreign-device.json)
# Borrowed configurations (docs/tuning.md, "Two cross-backend views", "Portability"): another
# device's, then another backend's on it; each recorded with where it came from.
tb_cli_test(run_tuning_device 0 FILE ${E2E_DIR}/mandelbrot-borrowed.json
            FILE_MATCH "\"config_source\": \"tuned on Imaginary GPU 9000\""
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --min-time 0.02 --timeout 0.5 --no-batch
                 --tuning ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/two-backends.json --tuning-device "Imaginary GPU 9000"
                 --out ${E2E_DIR}/mandelbrot-borrowed.json)
tb_cli_test(run_tuning_backend 0 FILE ${E2E_DIR}/mandelbrot-shared.json
            FILE_MATCH "\"group_x\": 8,[^}]*\"group_y\": 2[^}]*}[^}]*\"config_source\": \"tuned for cuda-native on Imaginary GPU 9000\""
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --min-time 0.02 --timeout 0.5 --no-batch
                 --tuning ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/two-backends.json --tuning-device "Imaginary GPU 9000"
                 --tuning-backend cuda-native --out ${E2E_DIR}/mandelbrot-shared.json)
# A tuning file that is not there is the one-line error of any missing file (docs/robustness.md).
tb_cli_test(run_tuning_missing 2 ONE_LINE ERR "cannot read .*nosuch-tuning.json: No such file or directory"
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --tuning ${E2E_DIR}/nosuch-tuning.json)
# A tuning file as reports/ commits them, gzip-compressed, reads as the plain one does.
tb_cli_test(run_tuning_gzip 0 FILE ${E2E_DIR}/mandelbrot-borrowed-gz.json
            FILE_MATCH "\"config_source\": \"tuned on Imaginary GPU 9000\""
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --min-time 0.02 --timeout 0.5 --no-batch
                 --tuning ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/two-backends.json.gz --tuning-device "Imaginary GPU 9000"
                 --out ${E2E_DIR}/mandelbrot-borrowed-gz.json)
set_tests_properties(e2e.run_tuning_device e2e.run_tuning_backend PROPERTIES FIXTURES_SETUP borrowed_runs)
tb_cli_test(compare_each_at_its_best 0 OUT "opencl best.*each \"best\" column"
            ARGS compare --backends ${E2E_DIR}/mandelbrot-shared.json --best ${E2E_DIR}/mandelbrot-borrowed.json
                 --baseline opencl)
set_tests_properties(e2e.compare_each_at_its_best PROPERTIES FIXTURES_REQUIRED borrowed_runs)
tb_cli_test(compare_best_needs_backends 2 ONE_LINE ERR "--best applies to compare --backends"
            ARGS compare a.json b.json --best c.json)
tb_cli_test(run_tuning_backend_unknown 2 ONE_LINE ERR "--tuning-backend: unknown backend 'cuda-magic'"
            ARGS run --program mandelbrot --backend opencl --tuning-backend cuda-magic
                 --tuning ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/two-backends.json)
tb_cli_test(run_tuning_backend_no_file 2 ONE_LINE ERR "--tuning-backend needs a tuning file"
            ARGS run --program mandelbrot --backend opencl --tuning-backend opencl --tuning none)
tb_cli_test(run_tuning_device_unmatched 2 ONE_LINE ERR "no configuration tuned on Nope GPU matches a benchmark of this run"
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --tuning-device "Nope GPU"
                 --tuning ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/two-backends.json)
tb_cli_test(unwritable_out 2 ONE_LINE ERR "cannot write /nonexistent-dir/r.json"
            ARGS run --program mandelbrot --backend opencl --out /nonexistent-dir/r.json)
if(TRIBENCH_HAVE_CUDA)
  tb_cli_test(ptx_mandelbrot 0 OUT "mandelbrot/cuda-native.ptx.*mandelbrot/cuda-prelude.ptx"
              FILE ${E2E_DIR}/ptx/mandelbrot/cuda-prelude.ptx
              ARGS ptx --program mandelbrot --arch sm_90 --backend cuda-native,cuda-prelude --out ${E2E_DIR}/ptx)
endif()

# compare, report and export on the synthetic results of tests/data/compare (make_data.py
# writes them): exit 0 for no or acceptable change, 1 for a regression, 2 for bad input.
set(CMP ${CMAKE_CURRENT_SOURCE_DIR}/data/compare)
tb_cli_test(compare_same 0 OUT "summary: 8 unchanged" ARGS compare ${CMP}/old.json ${CMP}/same.json)
tb_cli_test(compare_slower 1 OUT "cuda-native +0[.][0-9]+ +0[.][0-9]+ +0[.]9[01]x +[+].*regression.*summary: 8 regressions"
            ARGS compare ${CMP}/old.json ${CMP}/slower10.json)
tb_cli_test(compare_faster 0 OUT "(1[.]09|1[.]1[01])x.*summary: 8 faster" ARGS compare ${CMP}/old.json ${CMP}/faster10.json)
tb_cli_test(compare_within_threshold 0 OUT "summary: 8 slower"
            ARGS compare ${CMP}/old.json ${CMP}/slower10.json --threshold 20)
tb_cli_test(compare_small_slowdown 0 OUT "summary: 8 slower" ARGS compare ${CMP}/old.json ${CMP}/slower3.json)
tb_cli_test(compare_strict_threshold 1 OUT "summary: 8 regressions"
            ARGS compare ${CMP}/old.json ${CMP}/slower3.json --threshold 1)
tb_cli_test(compare_broken 1 OUT "validation_failed +broken [(]NEW: validation failed"
            ARGS compare ${CMP}/old.json ${CMP}/broken.json)
tb_cli_test(compare_one_sided 0 OUT "opencl +0[.][0-9]+ +only in OLD.*2048x2048/cuda-native +0[.][0-9]+ +only in NEW"
            ARGS compare ${CMP}/old.json ${CMP}/changed_set.json)
tb_cli_test(compare_other_device 2 ONE_LINE ERR "tribench: error: results are from different devices .*A100.*--force"
            ARGS compare ${CMP}/old.json ${CMP}/other_device.json)
tb_cli_test(compare_forced 0 OUT "warning: --force: .*A100" ARGS compare ${CMP}/old.json ${CMP}/other_device.json --force)
tb_cli_test(compare_truncated 2 ONE_LINE ERR "truncated.json: malformed JSON at byte"
            ARGS compare ${CMP}/old.json ${CMP}/truncated.json)
tb_cli_test(compare_wrong_version 2 ONE_LINE ERR "results version 99 is not supported \\(this tribench reads 1\\)"
            ARGS compare ${CMP}/wrong_version.json ${CMP}/old.json)
tb_cli_test(compare_not_results 2 ONE_LINE ERR "not a tribench results file"
            ARGS compare ${CMP}/old.json ${CMP}/not_results.json)
tb_cli_test(compare_missing_file 2 ONE_LINE ERR "cannot read .*nosuch.json" ARGS compare ${CMP}/old.json ${CMP}/nosuch.json)
tb_cli_test(compare_one_file 2 ONE_LINE ERR "compare takes two results files" ARGS compare ${CMP}/old.json)
tb_cli_test(compare_bad_alpha 2 ONE_LINE ERR "--alpha must lie between 0 and 1"
            ARGS compare ${CMP}/old.json ${CMP}/same.json --alpha 2)
tb_cli_test(compare_markdown 1 OUT "[|] benchmark [|] old ms [|].*[|] [*][*]regression[*][*] [|]"
            ARGS compare ${CMP}/old.json ${CMP}/slower10.json --markdown)
tb_cli_test(compare_json 1 OUT "\"schema\": \"tribench-compare\".*\"p_value\": [0-9]"
            ARGS compare ${CMP}/old.json ${CMP}/slower10.json --json)
tb_cli_test(compare_out_file 0 FILE ${E2E_DIR}/compare.md
            ARGS compare ${CMP}/old.json ${CMP}/faster10.json --markdown --out ${E2E_DIR}/compare.md)
tb_cli_test(compare_backends 0 OUT "fft/4096x1024/stream +0[.][0-9]+ +1[.]00x +~?0[.][0-9]+x +~?0[.][0-9]+x +~?1[.][0-9]+x"
            ARGS compare --backends ${CMP}/suite.json)
tb_cli_test(compare_backends_json 0 OUT "\"schema\": \"tribench-backend-matrix\""
            ARGS compare --backends ${CMP}/suite.json --baseline opencl --json)
tb_cli_test(compare_backends_bad_baseline 2 ONE_LINE ERR "baseline backend 'nope' has no benchmarks"
            ARGS compare --backends ${CMP}/suite.json --baseline nope)
tb_cli_test(export_futhark 0 OUT "wrote .*futhark.json: 20 Futhark programs" FILE ${E2E_DIR}/futhark.json
            ARGS export --futhark ${CMP}/suite.json ${E2E_DIR}/futhark.json)
tb_cli_test(export_needs_format 2 ONE_LINE ERR "export needs a format: --futhark"
            ARGS export ${CMP}/suite.json ${E2E_DIR}/nothing.json)

# report: REPORT.md and PNGs (python3 + matplotlib, which scripts/setup.sh installs).
add_test(NAME e2e.report_clean COMMAND ${CMAKE_COMMAND} -E rm -rf ${E2E_DIR}/report)
tb_cli_test(report 0 OUT "wrote .*REPORT.md and 9 plots" FILE ${E2E_DIR}/report/REPORT.md
            ARGS report ${CMP}/suite.json --out ${E2E_DIR}/report)
add_test(NAME e2e.report_plots COMMAND python3 ${CMP}/check_report.py ${E2E_DIR}/report)
set_tests_properties(e2e.report_clean PROPERTIES FIXTURES_SETUP report_clean)
set_tests_properties(e2e.report PROPERTIES FIXTURES_REQUIRED report_clean FIXTURES_SETUP report_out)
set_tests_properties(e2e.report_plots PROPERTIES FIXTURES_REQUIRED report_out)

# The same command in a changed environment (missing python3 or matplotlib): one-line errors.
# tb_cli_env_test(NAME RC VAR=VALUE ERR|OUT regex args...); ERR also demands one line.
function(tb_cli_env_test name rc env stream regex)
  string(REPLACE ";" "|" cmd "${CMAKE_COMMAND};-E;env;${env};${TB};${ARGN}")
  set(defs "-DEXPECT_${stream}=${regex}")
  if(stream STREQUAL "ERR")
    list(APPEND defs -DONE_LINE_ERROR=ON)
  endif()
  add_test(NAME e2e.${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" -DEXPECT_RC=${rc} ${defs}
           -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_cli.cmake)
endfunction()
tb_cli_env_test(report_no_matplotlib 2 "PYTHONPATH=${CMP}/no_matplotlib;PYTHONDONTWRITEBYTECODE=1"
                ERR "tribench: error: python3 cannot import matplotlib .*scripts/setup.sh.*--no-plots"
                report ${CMP}/suite.json --out ${E2E_DIR}/report-no-mpl)
tb_cli_env_test(report_no_python 2 PATH=/nonexistent ERR "tribench: error: python3 not found on PATH"
                report ${CMP}/suite.json --out ${E2E_DIR}/report-no-python)
tb_cli_env_test(report_no_plots 0 PATH=/nonexistent OUT "wrote .*REPORT.md and 0 plots"
                report ${CMP}/suite.json --no-plots --out ${E2E_DIR}/report-md-only)

# `tribench ptx` resources and `tribench ptxdiff` (docs/ptx-tools.md). Between the two CUDA
# backends nothing needs a GPU: CI compares every program's kernels this way.
if(TRIBENCH_HAVE_CUDA)
  tb_cli_test(ptx_resources 0 OUT "mandelbrot/cuda-native.resources.json"
              FILE ${E2E_DIR}/ptx-res/mandelbrot/cuda-prelude.resources.json
              ARGS ptx --program mandelbrot --arch sm_90 --backend cuda-native,cuda-prelude --out ${E2E_DIR}/ptx-res)
  set_tests_properties(e2e.ptx_resources PROPERTIES FIXTURES_SETUP ptx_dump)
  tb_cli_test(ptxdiff_mandelbrot 0 OUT "kernel mandelbrot: .*instruction histogram by class.*resources"
              ARGS ptxdiff --program mandelbrot cuda-native cuda-prelude)
  tb_cli_test(ptxdiff_all_programs 0 OUT "ptxdiff mandelbrot\n.*instruction histogram"
              ARGS ptxdiff --program all cuda-native cuda-prelude --arch sm_90)
  tb_cli_test(ptxdiff_math_modes 0 OUT "fp32.add.ftz"
              ARGS ptxdiff --program mandelbrot cuda-native cuda-native:fast)
  tb_cli_test(ptxdiff_folder 0 OUT "normalized PTX: identical"
              ARGS ptxdiff --program mandelbrot ${E2E_DIR}/ptx-res:cuda-prelude cuda-prelude --arch sm_90)
  set_tests_properties(e2e.ptxdiff_folder PROPERTIES FIXTURES_REQUIRED ptx_dump)
  tb_cli_test(ptxdiff_out 0 OUT "normalized diff written to" FILE ${E2E_DIR}/mandelbrot.ptxdiff
              ARGS ptxdiff --program mandelbrot cuda-native cuda-prelude --out ${E2E_DIR}/mandelbrot.ptxdiff)
  # Two dumps with the same PTX and the SASS in another order (tests/data/ptx/README.md):
  # the SASS line says how much of it runs in the same order, read from the dumps' .sass.
  foreach(side a b)
    configure_file(${CMAKE_CURRENT_SOURCE_DIR}/data/ptx/opencl_spmv.ptx ${E2E_DIR}/sass-${side}/spmv/opencl.ptx COPYONLY)
  endforeach()
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/data/ptx/opencl_spmv.sass ${E2E_DIR}/sass-a/spmv/opencl.sass COPYONLY)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/data/ptx/opencl_spmv_reordered.sass ${E2E_DIR}/sass-b/spmv/opencl.sass
                 COPYONLY)
  tb_cli_test(ptxdiff_sass_order 0
              OUT "kernel spmv_merge_partition: .*SASS: 64 instructions in A, 64 in B \\(0\\). 56 the same and in the same order \\(88% of the longer\\).*normalized PTX: identical"
              ARGS ptxdiff --program spmv ${E2E_DIR}/sass-a:opencl ${E2E_DIR}/sass-b:opencl)
endif()
tb_cli_test(ptxdiff_bad_operand 2 ONE_LINE ERR "tribench: error: bad operand 'cuda-magic': expected a backend"
            ARGS ptxdiff --program mandelbrot cuda-native cuda-magic)
tb_cli_test(ptxdiff_bad_math 2 ONE_LINE ERR "unknown math mode 'sloppy'"
            ARGS ptxdiff --program mandelbrot cuda-native cuda-native:sloppy)
tb_cli_test(ptxdiff_missing_dump 2 ONE_LINE ERR "no .*/mandelbrot/cuda-native.ptx \\(write it with"
            ARGS ptxdiff --program mandelbrot ${E2E_DIR}:cuda-native cuda-prelude)
tb_cli_test(ptxdiff_one_operand 2 ONE_LINE ERR "tribench: error: " ARGS ptxdiff --program mandelbrot cuda-native)

# Google Benchmark's --benchmark_out JSON is well formed and matches tribench's results.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  add_test(NAME e2e.gb_json COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gb_json_check.py
           $<TARGET_FILE:tribench> ${E2E_DIR}/gb_json)
  set_tests_properties(e2e.gb_json PROPERTIES TIMEOUT 600)
endif()

# scripts/portability.py: each device's tuning run here, and the table (docs/tuning.md).
if(Python3_FOUND)
  add_test(NAME e2e.portability COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/portability_check.py ${TB}
           ${CMAKE_CURRENT_SOURCE_DIR}/data/tuning/two-backends.json ${E2E_DIR}/portability)
endif()

# scripts/opencl_ptx_to_prelude.py on real NVIDIA OpenCL output (docs/ptx-tools.md, "Running other PTX").
if(Python3_FOUND)
  add_test(NAME scripts.opencl_ptx_to_prelude
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/opencl_ptx_to_prelude_check.py
                   ${PROJECT_SOURCE_DIR}/scripts/opencl_ptx_to_prelude.py ${CMAKE_CURRENT_SOURCE_DIR}/data/ptx/opencl_spmv.ptx
                   ${E2E_DIR}/opencl_ptx)
endif()

# cmake/WriteBuildId.cmake: the commit results files record, read at every build.
if(Python3_FOUND)
  add_test(NAME scripts.build_id
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/build_id_check.py ${CMAKE_COMMAND}
                   ${PROJECT_SOURCE_DIR}/cmake/WriteBuildId.cmake ${E2E_DIR}/build_id)
endif()

# scripts/reference_table.py and scripts/launch_rate.py, the tables of reports/h100/suite, and
# scripts/spmv_auto_table.py, on results files whose answers are known (docs/compare.md,
# "Against the reference").
if(Python3_FOUND)
  add_test(NAME scripts.report_tables
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report_tables_check.py
                   ${PROJECT_SOURCE_DIR}/scripts ${E2E_DIR}/report_tables)
endif()

# --save-outputs dumps mean the same thing whichever backend wrote them (docs/save-outputs.md):
# every small dataset on every backend present (PoCL here; the CUDA backends and vendor on a
# GPU machine), each dump checked with numpy against its documented meaning.
if(Python3_FOUND)
  add_test(NAME e2e.save_outputs_meaning
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/save_outputs_check.py
                   --run $<TARGET_FILE:tribench> run --small --min-time 0.01 --timeout 0.2 -- ${E2E_DIR}/save_outputs)
  set_tests_properties(e2e.save_outputs_meaning PROPERTIES TIMEOUT 600)
endif()
