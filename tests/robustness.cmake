# Bad input, failing kernels and interrupted runs, end to end (docs/bad-inputs.md lists every
# case with its test). Included from tests/CMakeLists.txt after e2e.cmake (tb_cli_test, TB).
# Usage errors: exit 2, one line on stderr, no results file. Failures found while running
# (a matrix entry, a kernel, the device's memory): that benchmark fails, the rest are "not
# run" unless --keep-going, exit 1, and the results file records why.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
set(RB_DIR ${CMAKE_CURRENT_BINARY_DIR}/robustness)
set(RB_IN ${RB_DIR}/in)
set(RB_OUT ${RB_DIR}/out)
file(MAKE_DIRECTORY ${RB_IN} ${RB_OUT} ${RB_OUT}/a-directory)
set(RB_SRC ${CMAKE_CURRENT_SOURCE_DIR}/robustness)
# PoCL, by its platform name: the tests that time signals or cap memory need a CPU device
# (on a GPU machine, opencl would otherwise pick the GPU).
set(RB_POCL "Portable Computing Language")

# rb_test(NAME ...cli_check.py options... -- tribench args...): tests/cli_check.py runs it.
function(rb_test name)
  add_test(NAME e2e.rb_${name} COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli_check.py ${ARGN})
  set_tests_properties(e2e.rb_${name} PROPERTIES TIMEOUT 300)
endfunction()
function(rb_usage name regex)  # exit 2, one line, and the requested --out never written
  tb_cli_test(rb_${name} 2 ONE_LINE ERR "${regex}" NO_FILE ${RB_OUT}/${name}.json
              ARGS ${ARGN} --out ${RB_OUT}/${name}.json)
endfunction()

function(rb_have program out)
  set(${out} FALSE PARENT_SCOPE)
  if(${PROJECT_SOURCE_DIR}/programs/${program} IN_LIST TB_PROGRAM_DIRS)
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()
rb_have(mandelbrot HAVE_MANDELBROT)
rb_have(spmv HAVE_SPMV)

# --- Names that match nothing, numbers that are not, options that contradict ---------------
if(HAVE_MANDELBROT)
  set(M run --program mandelbrot --backend opencl --dataset 128x128)
  rb_usage(unknown_program "tribench: error: unknown program 'nosuch' \\(known: " run --program nosuch --backend opencl)
  rb_usage(unknown_backend "tribench: error: unknown backend 'cuda-magic' \\(known: " run --program mandelbrot --backend cuda-magic)
  rb_usage(unknown_dataset "tribench: error: unknown dataset '3x3' for program mandelbrot \\(known: 128x128"
           run --program mandelbrot --backend opencl --dataset 3x3)
  rb_usage(unknown_device "tribench: error: unknown device 'no-such-gpu' \\(available: "
           run --program mandelbrot --backend opencl --device no-such-gpu)
  rb_usage(unknown_variant "tribench: error: unknown variant 'fused' \\(known: mandelbrot:default\\)" ${M} --variant fused)
  rb_usage(unknown_math "tribench: error: unknown math mode 'sloppy' \\(known: default, precise, fast\\)" ${M} --math sloppy)
  rb_usage(unknown_launch "tribench: error: unknown launch mode 'warp' \\(known: stream, graph, all\\)" ${M} --launch warp)
  rb_usage(unknown_option "tribench: error: .*--frobnicate" ${M} --frobnicate)
  rb_usage(unknown_gb_flag "error: unrecognized command-line flag: --benchmark_bogus" ${M} --benchmark_bogus=1)
  rb_usage(seed_not_a_number "tribench: error: .*--seed" ${M} --seed banana)
  rb_usage(seed_negative "tribench: error: .*--seed" ${M} --seed -5)
  rb_usage(min_time_negative "tribench: error: --min-time must be positive" ${M} --min-time -1)
  rb_usage(min_time_not_a_number "tribench: error: .*--min-time.*abc" ${M} --min-time abc)
  rb_usage(max_noise_zero "tribench: error: --max-noise must be positive" ${M} --max-noise 0)
  rb_usage(min_samples_one "tribench: error: --min-samples must be at least 2" ${M} --min-samples 1)
  rb_usage(option_twice "tribench: error: --min-time: At Most 1 required but received 2" ${M} --min-time 1 --min-time 2)
  rb_usage(small_and_all_datasets "tribench: error: --small and --all-datasets contradict each other"
           ${M} --small --all-datasets)
  # mandelbrot is not iterative and opencl has no graphs: graph launches select nothing.
  rb_usage(graph_selects_nothing "tribench: error: nothing to run: the selection matches no benchmark"
           ${M} --launch graph)
  file(WRITE ${RB_IN}/ok.mtx "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 2 2.0\n")
  rb_usage(matrix_for_mandelbrot "tribench: error: program mandelbrot does not read matrix files \\(--matrix\\)"
           ${M} --matrix ${RB_IN}/ok.mtx)
  rb_usage(matrix_missing "tribench: error: --matrix: File does not exist: .*nosuch.mtx" ${M} --matrix ${RB_IN}/nosuch.mtx)

  # --- Output paths: refused before anything runs (stdout stays empty) ---------------------
  tb_cli_test(rb_out_unwritable 2 ONE_LINE ERR "tribench: error: cannot write /nonexistent-dir/r.json"
              NO_FILE /nonexistent-dir/r.json ARGS ${M} --out /nonexistent-dir/r.json)
  rb_test(out_is_directory --rc 2 --one-line --err "tribench: error: cannot write .*a-directory" --out "\\A\\Z"
          -- $<TARGET_FILE:tribench> ${M} --min-time 0.01 --out ${RB_OUT}/a-directory)
  file(WRITE ${RB_OUT}/a-file "not a folder\n")
  rb_test(save_outputs_unwritable --rc 2 --one-line --err "tribench: error: cannot create .*a-file/npy" --out "\\A\\Z"
          --no-file ${RB_OUT}/save_outputs_unwritable.json
          -- $<TARGET_FILE:tribench> ${M} --min-time 0.01 --save-outputs ${RB_OUT}/a-file/npy --out ${RB_OUT}/save_outputs_unwritable.json)

  # --- A kernel that does not compile: the compiler's log is shown -------------------------
  # TRIBENCH_KERNEL_DIR (docs/robustness.md) swaps in tests/robustness/*/programs/*/kernels.cl.
  rb_test(kernel_compile_error --rc 1 --env TRIBENCH_KERNEL_DIR=${RB_SRC}/broken_kernel
          # PoCL names the file (#line); NVIDIA's compiler says <kernel> but keeps the line.
          --err "OpenCL build failed on .*\n(.*\n)*.*(kernels\\.cl|<kernel>):[0-9]+:.*tb_undeclared_identifier"
          --json ${RB_OUT}/kernel_compile_error.json
          --bench "mandelbrot/128x128/opencl=error:OpenCL build failed"
          -- $<TARGET_FILE:tribench> ${M} --min-time 0.01 --out ${RB_OUT}/kernel_compile_error.json)
  rb_test(kernel_dir_missing --rc 1 --env TRIBENCH_KERNEL_DIR=${RB_IN}/nosuch-dir
          --err "TRIBENCH_KERNEL_DIR=.*nosuch-dir is not a directory"
          --json ${RB_OUT}/kernel_dir_missing.json --bench "mandelbrot/128x128/opencl=error:is not a directory"
          -- $<TARGET_FILE:tribench> ${M} --min-time 0.01 --out ${RB_OUT}/kernel_dir_missing.json)
  rb_test(opencl_timing_unknown --rc 1 --env TRIBENCH_OPENCL_TIMING=sometimes
          --err "TRIBENCH_OPENCL_TIMING is 'sometimes'. expected 'bracket' or 'each'"
          --json ${RB_OUT}/opencl_timing_unknown.json --bench "mandelbrot/128x128/opencl=error:TRIBENCH_OPENCL_TIMING"
          -- $<TARGET_FILE:tribench> ${M} --min-time 0.01 --out ${RB_OUT}/opencl_timing_unknown.json)

  # --- After a failure: stop (default) or --keep-going --------------------------------------
  # wrong_small's kernel is wrong below 256 pixels wide: 128x128 fails, 512x512 validates.
  set(TWO run --program mandelbrot --backend opencl --dataset 128x128,512x512 --min-time 0.01)
  rb_test(stop_at_first_failure --rc 1 --env TRIBENCH_KERNEL_DIR=${RB_SRC}/wrong_small
          --err "tribench: 1 of 2 benchmarks failed, 1 not run\n  mandelbrot/128x128/opencl: validation failed: "
          --json ${RB_OUT}/stop.json --bench "mandelbrot/128x128/opencl=validation_failed:validation failed"
          --bench "mandelbrot/512x512/opencl=skipped:not run: stopped after a failure \\(use --keep-going\\)"
          -- $<TARGET_FILE:tribench> ${TWO} --out ${RB_OUT}/stop.json)
  rb_test(keep_going --rc 1 --env TRIBENCH_KERNEL_DIR=${RB_SRC}/wrong_small
          --err "tribench: 1 of 2 benchmarks failed\n" --out "mandelbrot/512x512/opencl +opencl:[0-9]+ +ok"
          --json ${RB_OUT}/keep_going.json --bench "mandelbrot/128x128/opencl=validation_failed"
          --bench "mandelbrot/512x512/opencl=ok"
          -- $<TARGET_FILE:tribench> ${TWO} --keep-going --out ${RB_OUT}/keep_going.json)

  # --- Ctrl-C: the current sample ends, the results so far are written, exit 130 -----------
  # stderr is a terminal (cli_check.py), so tribench prints "[i/n] NAME validated, timing"
  # as each benchmark starts sampling: the signal is timed by that, not by a guess at how
  # long startup takes. Sampling would go on for 30 s (60 s at most) per benchmark.
  set(LONG --min-time 30 --timeout 60 --max-noise 0.000001)
  # Ctrl-C 2 s into the first benchmark's sampling: it is recorded as interrupted, the
  # second as not run.
  rb_test(sigint --rc 130 --sigint-when "\\[1/2\\] mandelbrot/512x512/opencl validated, timing"
          --sigint-after 2 --stop-within 10
          --json ${RB_OUT}/sigint.json --bench "mandelbrot/512x512/opencl=skipped:^interrupted during timing$"
          --bench "mandelbrot/1024x1024/opencl=skipped:^not run: interrupted$" --err "2 not run"
          -- $<TARGET_FILE:tribench> run --program mandelbrot --backend opencl --device ${RB_POCL} --dataset 512x512,1024x1024
             ${LONG} --out ${RB_OUT}/sigint.json)
  # Ctrl-C as the second benchmark starts sampling: the first one's result (sampled until
  # --timeout 2, so flagged noisy) is kept.
  rb_test(sigint_keeps_finished --rc 130 --sigint-when "\\[2/2\\] mandelbrot/512x512/opencl validated, timing"
          --stop-within 10
          --json ${RB_OUT}/sigint_keeps.json --bench "mandelbrot/128x128/opencl=ok"
          --bench "mandelbrot/512x512/opencl=skipped:^interrupted during timing$" --err "1 not run"
          -- $<TARGET_FILE:tribench> run --program mandelbrot --backend opencl --device ${RB_POCL} --dataset 128x128,512x512
             --min-time 30 --timeout 2 --max-noise 0.000001 --out ${RB_OUT}/sigint_keeps.json)
endif()

# --- Results files given to compare ---------------------------------------------------------
set(RB_OK_RESULTS "{\"schema\": \"tribench-results\", \"version\": 1, \"benchmarks\": [{\"name\": \"p/d/opencl\", \"program\": \"p\", \"dataset\": \"d\", \"backend\": \"opencl\", \"device\": \"opencl:0\", \"status\": \"ok\", \"samples_ms\": [1.0, 1.1, 0.9]}]}\n")
file(WRITE ${RB_IN}/ok.json "${RB_OK_RESULTS}")
string(REPLACE "\"version\": 1" "\"version\": 2" _v2 "${RB_OK_RESULTS}")
file(WRITE ${RB_IN}/version2.json "${_v2}")
string(REPLACE "\"status\": \"ok\"" "\"status\": 7" _type "${RB_OK_RESULTS}")
file(WRITE ${RB_IN}/status_number.json "${_type}")
string(REPLACE "\"program\": \"p\"" "\"program\": \"p\", \"variant\": 3" _variant "${RB_OK_RESULTS}")
file(WRITE ${RB_IN}/variant_number.json "${_variant}")
string(REPLACE "[1.0, 1.1, 0.9]" "[1.0, -1.1, 0.9]" _neg "${RB_OK_RESULTS}")
file(WRITE ${RB_IN}/negative_sample.json "${_neg}")
string(REPLACE "[1.0, 1.1, 0.9]" "[1.0, 1e999, 0.9]" _big "${RB_OK_RESULTS}")
file(WRITE ${RB_IN}/number_overflow.json "${_big}")
string(SUBSTRING "${RB_OK_RESULTS}" 0 100 _trunc)
file(WRITE ${RB_IN}/truncated.json "${_trunc}")
string(REPLACE "\"status\": \"ok\"" "\"status\": \"ok\", \"validation\": {\"checked\": 1e300}" _count "${RB_OK_RESULTS}")
file(WRITE ${RB_IN}/count_out_of_range.json "${_count}")
file(WRITE ${RB_IN}/schema_number.json "{\"schema\": 5, \"version\": 1, \"benchmarks\": []}\n")
file(WRITE ${RB_IN}/empty.json "")

set(C $<TARGET_FILE:tribench> compare ${RB_IN}/ok.json)
# The control: the file every bad one is made from is accepted.
tb_cli_test(rb_compare_control 0 OUT "summary: 1 unchanged" ARGS compare ${RB_IN}/ok.json ${RB_IN}/ok.json)
function(rb_compare name file regex)
  rb_test(compare_${name} --rc 2 --one-line --err "tribench: error: .*${file}: ${regex}"
          --no-file ${RB_OUT}/compare_${name}.txt
          -- ${C} ${RB_IN}/${file} --out ${RB_OUT}/compare_${name}.txt)
endfunction()
rb_compare(truncated truncated.json "malformed JSON at byte [0-9]+")
rb_compare(empty empty.json "malformed JSON at byte [0-9]+")
rb_compare(wrong_version version2.json "results version 2 is not supported \\(this tribench reads 1\\)")
rb_compare(status_wrong_type status_number.json "benchmarks\\[0\\]: field 'status' has the wrong type")
rb_compare(variant_wrong_type variant_number.json "benchmarks\\[0\\]: ")
rb_compare(schema_wrong_type schema_number.json "not a tribench results file")
rb_compare(negative_sample negative_sample.json "benchmarks\\[0\\]: samples_ms holds a negative or non-numeric value")
rb_compare(number_overflow number_overflow.json "")
# A count given as 1e300: converting it to an integer would be undefined behaviour.
rb_compare(count_out_of_range count_out_of_range.json "benchmarks\\[0\\]: ")

# --- Matrix Market files given to `run --program spmv --matrix FILE` --------------------------
if(HAVE_SPMV)
  set(S $<TARGET_FILE:tribench> run --program spmv --backend opencl --min-time 0.01)
  set(BANNER "%%MatrixMarket matrix coordinate real general\n")
  # Header problems are found while planning: exit 2, one line naming FILE:LINE.
  function(rb_mtx_header name content regex)
    file(WRITE ${RB_IN}/${name}.mtx "${content}")
    tb_cli_test(rb_mtx_${name} 2 ONE_LINE ERR "tribench: error: .*${name}.mtx:${regex}" NO_FILE ${RB_OUT}/mtx_${name}.json
                ARGS run --program spmv --backend opencl --matrix ${RB_IN}/${name}.mtx --out ${RB_OUT}/mtx_${name}.json)
  endfunction()
  rb_mtx_header(empty "" "1: empty file")
  rb_mtx_header(no_banner "3 3 1\n1 1 1.0\n" "1: not a Matrix Market file")
  rb_mtx_header(complex "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1.0 2.0\n" "1: bad header: complex")
  rb_mtx_header(size_line "${BANNER}% a comment\n3 3\n1 1 1.0\n" "3: bad size line")
  rb_mtx_header(size_text "${BANNER}3 three 1\n1 1 1.0\n" "2: bad size line: 'three' is not a non-negative integer")
  # More entries than any matrix tribench can hold: refused at the size line, not by an
  # overflowing size computation (UBSan: signed overflow in MatrixMarketHeader::max_nnz).
  rb_mtx_header(entries_overflow "%%MatrixMarket matrix coordinate real symmetric\n5 5 9000000000000000000\n" "2: ")
  rb_mtx_header(size_beyond_int32 "${BANNER}4 4294967297 1\n2 4294967296 1.0\n"
                "2: bad size line: 4x4294967297 is larger than the 2147483647 rows or columns that 32-bit indices hold")
  # Entry problems are found when the matrix is loaded for its first benchmark: it fails
  # naming FILE:LINE, the other variant is not run, exit 1, the results file says why.
  function(rb_mtx_entry name content regex)
    file(WRITE ${RB_IN}/${name}.mtx "${content}")
    rb_test(mtx_${name} --rc 1 --err "spmv/${name}/scalar/opencl: .*${name}.mtx:${regex}"
            --json ${RB_OUT}/mtx_${name}.json --bench "spmv/${name}/scalar/opencl=error:${name}.mtx:${regex}"
            --bench "spmv/${name}/vector/opencl=skipped:not run"
            -- ${S} --matrix ${RB_IN}/${name}.mtx --out ${RB_OUT}/mtx_${name}.json)
  endfunction()
  rb_mtx_entry(row_range "${BANNER}4 4 2\n1 1 1.0\n5 2 1.0\n" "4: row index 5 out of range 1..4")
  rb_mtx_entry(col_zero "${BANNER}4 4 2\n1 1 1.0\n2 0 1.0\n" "4: column index 0 out of range 1..4")
  rb_mtx_entry(missing_entries "${BANNER}4 4 3\n1 1 1.0\n2 2 2.0\n" "[0-9]+: missing entries: the file ends after 2 of 3")
  rb_mtx_entry(extra_entries "${BANNER}4 4 1\n1 1 1.0\n2 2 2.0\n" "4: extra entry after the 1 declared entries")
  rb_mtx_entry(value_text "${BANNER}4 4 2\n1 1 1.0\n2 2 abc\n" "4: value 'abc' is not a number")
  rb_mtx_entry(value_nan "${BANNER}4 4 2\n1 1 nan\n2 2 1.0\n" "3: value 'nan' is not finite")
  rb_mtx_entry(entry_fields "${BANNER}4 4 1\n1 1\n" "3: bad entry: expected 'row column value', got 2 fields")

  # Larger than the device: refused before anything is loaded or allocated. PoCL is capped
  # at 1 GiB (POCL_MEMORY_LIMIT); the file has a header only, so had the matrix been loaded
  # the error would be "missing entries" instead.
  file(WRITE ${RB_IN}/too_big.mtx "${BANNER}10000000 10000000 200000000\n")
  rb_test(mtx_too_big_for_device --rc 1 --env POCL_MEMORY_LIMIT=1
          --err "spmv/too_big/scalar/opencl: dataset too_big needs 1641 MiB but opencl:[0-9]+ has 1024 MiB"
          --json ${RB_OUT}/too_big.json
          --bench "spmv/too_big/scalar/opencl=error:^dataset too_big needs 1641 MiB but opencl:[0-9]+ has 1024 MiB"
          -- ${S} --device ${RB_POCL} --matrix ${RB_IN}/too_big.mtx --out ${RB_OUT}/too_big.json)
endif()
