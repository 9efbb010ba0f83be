# Bad input, failing kernels and interrupted runs, end to end (docs/robustness.md lists every
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
  # Sampling cut short where a test needs a finished run, not a good timing (without it the
  # noise target is rarely met on a shared CPU and each run samples for --timeout, 5 s).
  set(QUICK --min-time 0.01 --timeout 0.2)
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
  rb_usage(min_time_negative "tribench: error: --min-time must be a positive number of seconds" ${M} --min-time -1)
  rb_usage(min_time_infinite "tribench: error: --min-time must be a positive number of seconds" ${M} --min-time inf)
  rb_usage(timeout_nan "tribench: error: --timeout must be a positive number of seconds" ${M} --timeout nan)
  rb_usage(min_time_not_a_number "tribench: error: .*--min-time.*abc" ${M} --min-time abc)
  rb_usage(max_noise_zero "tribench: error: --max-noise must be a positive number" ${M} --max-noise 0)
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

  # Whole numbers are checked as text: CLI11 would read 0x10 as hexadecimal, 010 as octal,
  # and turn 99999999999999999999999 into 2^64-1 without a word.
  rb_usage(seed_out_of_range "tribench: error: --seed: '99999999999999999999999' is not a whole number in 0\\.\\.18446744073709551615"
           ${M} --seed 99999999999999999999999)
  rb_usage(seed_hex "tribench: error: --seed: '0x10' is not a whole number" ${M} --seed 0x10)
  rb_usage(min_samples_out_of_range "tribench: error: --min-samples: '99999999999999999999999' is not a whole number"
           ${M} --min-samples 99999999999999999999999)
  rb_usage(max_samples_below_min "tribench: error: --max-samples must be at least --min-samples"
           ${M} --min-samples 20 --max-samples 10)
  rb_usage(repeat_zero "tribench: error: --repeat: '0' is not a whole number in 1\\.\\.1000000" ${M} --repeat 0)
  # Options of which one would be silently ignored, or that cannot work together.
  rb_usage(min_time_with_gb_min_time
           "tribench: error: --min-time and --benchmark_min_time contradict each other"
           ${M} --min-time 1 --benchmark_min_time=0.1)
  rb_usage(gb_random_interleaving "tribench: error: --benchmark_enable_random_interleaving is not supported"
           ${M} --benchmark_enable_random_interleaving=true)
  rb_usage(gb_out_unwritable "tribench: error: cannot write /nonexistent-dir/gb.json: folder /nonexistent-dir: No such file or directory"
           ${M} --benchmark_out=/nonexistent-dir/gb.json)
  rb_usage(gb_out_same_as_out "tribench: error: --out and --benchmark_out name the same file"
           ${M} --benchmark_out=${RB_OUT}/gb_out_same_as_out.json)

  # --- Output paths: refused before anything runs (stdout stays empty) ---------------------
  tb_cli_test(rb_out_unwritable 2 ONE_LINE ERR "tribench: error: cannot write /nonexistent-dir/r.json"
              NO_FILE /nonexistent-dir/r.json ARGS ${M} --out /nonexistent-dir/r.json)
  rb_test(out_is_directory --rc 2 --one-line --err "tribench: error: cannot write .*a-directory" --out "\\A\\Z"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out ${RB_OUT}/a-directory)
  file(WRITE ${RB_OUT}/a-file "not a folder\n")
  rb_test(save_outputs_unwritable --rc 2 --one-line --err "tribench: error: cannot create .*a-file/npy" --out "\\A\\Z"
          --no-file ${RB_OUT}/save_outputs_unwritable.json
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --save-outputs ${RB_OUT}/a-file/npy --out ${RB_OUT}/save_outputs_unwritable.json)

  # Special files are written through, never replaced (as root, a rename would have turned
  # /dev/null into a JSON file); a failed write is an error. `-` is standard output.
  rb_test(out_dev_null --rc 0 --out "mandelbrot/128x128/opencl .* ok" --still-special /dev/null
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out /dev/null)
  # What was measured stays in the run's own journal, which the error names (TMPDIR: in the
  # build tree, not /tmp); it is resumed by that name (';' matched by '.').
  if(EXISTS /dev/full)
    file(MAKE_DIRECTORY ${RB_OUT}/dev-full-tmp)
    rb_test(out_dev_full --rc 2 --one-line --env TMPDIR=${RB_OUT}/dev-full-tmp
            --err "^tribench: error: cannot write /dev/full: No space left on device \\(finished benchmarks are in .*/dev-full-tmp/tribench-run-[^ /]+[.]journal. carry on with --resume .*/dev-full-tmp/tribench-run-[^ /]+[.]journal\\)$"
            --still-special /dev/full -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out /dev/full)
  endif()
  # With --out -, stdout holds the results JSON only; the table goes to stderr.
  rb_test(out_dash --rc 0 --err "mandelbrot/128x128/opencl .* ok" --json - --bench "mandelbrot/128x128/opencl=ok"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out -)
  rb_test(out_dev_stdout --rc 0 --err "mandelbrot/128x128/opencl .* ok" --json - --bench "mandelbrot/128x128/opencl=ok"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out /dev/stdout)
  # A FIFO given to --out is written through (here a reader drains it).
  rb_test(out_fifo --rc 0 --fifo-reader ${RB_OUT}/results.fifo --still-special ${RB_OUT}/results.fifo
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out ${RB_OUT}/results.fifo)

  # --- tribench run --repeat: the whole selection N times in one process (scripts/soak.sh) --
  rb_test(repeat_rounds --rc 0 --err "round 1 of 3: 1 of 1 benchmarks ok. rss_kib [0-9]+ fds [0-9]+ heap_kib -?[0-9]+\n(.*\n)*.*round 3 of 3: "
          --json ${RB_OUT}/repeat.json --bench "mandelbrot/128x128/opencl=ok"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --repeat 3 --out ${RB_OUT}/repeat.json)

  # --- A kernel that does not compile: the compiler's log is shown -------------------------
  # TRIBENCH_KERNEL_DIR (docs/robustness.md) swaps in tests/robustness/*/programs/*/kernels.cl.
  rb_test(kernel_compile_error --rc 1 --env TRIBENCH_KERNEL_DIR=${RB_SRC}/broken_kernel
          # PoCL names the file (#line); NVIDIA's compiler says <kernel> but keeps the line.
          --err "OpenCL build failed on .*\n(.*\n)*.*(kernels\\.cl|<kernel>):[0-9]+:.*tb_undeclared_identifier"
          --json ${RB_OUT}/kernel_compile_error.json
          --bench "mandelbrot/128x128/opencl=error:OpenCL build failed"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out ${RB_OUT}/kernel_compile_error.json)
  # TRIBENCH_KERNEL_DIR is checked before anything runs: a usage error, not a failed benchmark.
  rb_test(kernel_dir_missing --rc 2 --one-line --env TRIBENCH_KERNEL_DIR=${RB_IN}/nosuch-dir
          --err "tribench: error: TRIBENCH_KERNEL_DIR=.*nosuch-dir is not a directory"
          --no-file ${RB_OUT}/kernel_dir_missing.json
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out ${RB_OUT}/kernel_dir_missing.json)
  file(MAKE_DIRECTORY ${RB_IN}/empty-kernel-dir)
  rb_test(kernel_dir_empty --rc 2 --one-line --env TRIBENCH_KERNEL_DIR=${RB_IN}/empty-kernel-dir
          --err "tribench: error: TRIBENCH_KERNEL_DIR=.*empty-kernel-dir holds no programs/<program>/kernels.cl, kernels.cu or their .ptx"
          --no-file ${RB_OUT}/kernel_dir_empty.json
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out ${RB_OUT}/kernel_dir_empty.json)
  rb_test(opencl_timing_unknown --rc 1 --env TRIBENCH_OPENCL_TIMING=sometimes
          --err "TRIBENCH_OPENCL_TIMING is 'sometimes'. expected 'bracket' or 'each'"
          --json ${RB_OUT}/opencl_timing_unknown.json --bench "mandelbrot/128x128/opencl=error:TRIBENCH_OPENCL_TIMING"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out ${RB_OUT}/opencl_timing_unknown.json)

  # --- After a failure: stop (default) or --keep-going --------------------------------------
  # wrong_small's kernel is wrong below 256 pixels wide: 128x128 fails, 512x512 validates.
  set(TWO run --program mandelbrot --backend opencl --dataset 128x128,512x512 ${QUICK})
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
  # --out a device: the run's own journal, and the message resumes it by its name (not by
  # /dev/null's, whose journal would be /dev/null.journal).
  file(MAKE_DIRECTORY ${RB_OUT}/sigint-tmp)
  rb_test(sigint_out_device --rc 130 --sigint-when "\\[1/2\\] mandelbrot/512x512/opencl validated, timing"
          --sigint-after 2 --stop-within 10 --env TMPDIR=${RB_OUT}/sigint-tmp
          --err "stopped by SIGINT. finished benchmarks are in .*/sigint-tmp/tribench-run-[^ /]+[.]journal. carry on with --resume .*/sigint-tmp/tribench-run-[^ /]+[.]journal\n"
          -- $<TARGET_FILE:tribench> run --program mandelbrot --backend opencl --device ${RB_POCL} --dataset 512x512,1024x1024
             ${LONG} --out /dev/null)
  # Ctrl-C as the second benchmark starts sampling: the first one's result (sampled until
  # --timeout 2, so flagged noisy) is kept.
  rb_test(sigint_keeps_finished --rc 130 --sigint-when "\\[2/2\\] mandelbrot/512x512/opencl validated, timing"
          --stop-within 10
          --json ${RB_OUT}/sigint_keeps.json --bench "mandelbrot/128x128/opencl=ok"
          --bench "mandelbrot/512x512/opencl=skipped:^interrupted during timing$" --err "1 not run"
          -- $<TARGET_FILE:tribench> run --program mandelbrot --backend opencl --device ${RB_POCL} --dataset 128x128,512x512
             --min-time 30 --timeout 2 --max-noise 0.000001 --out ${RB_OUT}/sigint_keeps.json)

  # --- A run that loses nothing: every stop signal, SIGKILL and --resume, hung kernels -----
  # tests/interrupt_check.py: SIGINT, SIGTERM and SIGHUP at seeded pseudo-random points
  # (exit 128 + signal, finished benchmarks kept, the journal resumed), and 20 SIGKILLs each
  # followed by --resume (the same benchmarks as an uninterrupted run, none measured twice).
  if(HAVE_SPMV)
    add_test(NAME e2e.rb_stop_signals COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/interrupt_check.py
             signals $<TARGET_FILE:tribench> ${RB_OUT}/signals)
    add_test(NAME e2e.rb_sigkill_resume COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/interrupt_check.py
             sigkill $<TARGET_FILE:tribench> ${RB_OUT}/sigkill --points 20)
    set_tests_properties(e2e.rb_stop_signals e2e.rb_sigkill_resume PROPERTIES TIMEOUT 300)
  endif()
  # spinning_kernel's Mandelbrot never ends on 512x512: with --kernel-timeout 2 that benchmark
  # fails naming the step, the run goes on in a fresh process, and the others validate.
  set(SPIN --env TRIBENCH_KERNEL_DIR=${RB_SRC}/spinning_kernel)
  set(THREE run --program mandelbrot --backend opencl --device ${RB_POCL} --dataset 128x128,512x512,1024x1024 ${QUICK}
            --kernel-timeout 2)
  rb_test(kernel_timeout_keep_going --rc 1 ${SPIN} --timeout 60
          --err "mandelbrot/512x512/opencl: the validation run did not finish within 2 s \\(--kernel-timeout\\)(.*\n)*.*carrying on in a fresh process(.*\n)*.*resuming .*kernel_timeout.json.journal: 2 of 3"
          --json ${RB_OUT}/kernel_timeout.json --bench "mandelbrot/128x128/opencl=ok"
          --bench "mandelbrot/512x512/opencl=error:^the validation run did not finish within 2 s \\(--kernel-timeout\\)"
          --bench "mandelbrot/1024x1024/opencl=ok" --no-file ${RB_OUT}/kernel_timeout.json.journal
          -- $<TARGET_FILE:tribench> ${THREE} --keep-going --out ${RB_OUT}/kernel_timeout.json)
  rb_test(kernel_timeout_stops --rc 1 ${SPIN} --timeout 60
          --json ${RB_OUT}/kernel_timeout_stops.json --bench "mandelbrot/128x128/opencl=ok"
          --bench "mandelbrot/512x512/opencl=error:did not finish within 2 s"
          --bench "mandelbrot/1024x1024/opencl=skipped:not run: stopped after a failure"
          -- $<TARGET_FILE:tribench> ${THREE} --out ${RB_OUT}/kernel_timeout_stops.json)
  # Without --out the fresh process takes over a journal of the run's own, then removes it.
  rb_test(kernel_timeout_no_out --rc 1 ${SPIN} --timeout 60
          --out "mandelbrot/1024x1024/opencl +opencl:0 +ok" --err "resuming .*tribench-run-.*\\.journal: 2 of 3"
          -- $<TARGET_FILE:tribench> ${THREE} --keep-going)
  # tune: a configuration that hangs ends the tune, naming it; the key tuned before it is kept.
  rb_test(tune_kernel_timeout --rc 1 ${SPIN} --timeout 120
          --err "tune: configuration group_x=[0-9]+,group_y=[0-9]+ of mandelbrot/512x512/opencl hung: tune ends here. the keys tuned before it are in .*tune_kernel_timeout.json"
          --file-match "${RB_OUT}/tune_kernel_timeout.json=dataset.: .128x128"
          --file-lacks "${RB_OUT}/tune_kernel_timeout.json=512x512"
          -- $<TARGET_FILE:tribench> tune --program mandelbrot --backend opencl --device ${RB_POCL}
             --dataset 128x128,512x512 --exhaustive 0 --max-points 2 --min-time 0.01 --timeout 0.2
             --kernel-timeout 2 --out ${RB_OUT}/tune_kernel_timeout.json)
  # tune, Ctrl-C (issue 41: "Ctrl-C keeps what was found"). A tune times every key's device
  # default first and writes it, then searches key by key (docs/tuning.md, "--budget").
  # The signal as the second of three defaults starts: the first key's entry is in the file,
  # the third was never timed (the second's may or may not have finished: the test does not
  # depend on how fast it is).
  rb_test(tune_sigint_keeps --rc 130 --sigint-when "tune: device default 2 of 3" --stop-within 10
          --err "tribench: tune stopped by SIGINT. the keys tuned before it are in .*tune_sigint_keeps.json\n"
          --file-match "${RB_OUT}/tune_sigint_keeps.json=dataset.: .128x128"
          --file-lacks "${RB_OUT}/tune_sigint_keeps.json=1024x1024"
          -- $<TARGET_FILE:tribench> tune --program mandelbrot --backend opencl --device ${RB_POCL}
             --dataset 128x128,512x512,1024x1024 --exhaustive 0 --max-points 2 --out ${RB_OUT}/tune_sigint_keeps.json)
  # The signal as the second key's search starts: the first key searched, the third at the
  # default it was timed with, its entry saying its search was not run.
  rb_test(tune_sigint_keeps_defaults --rc 130 --sigint-when "tune: key 2 of 3" --stop-within 10
          --err "tribench: tune stopped by SIGINT. the keys tuned before it are in .*tune_sigint_keeps_defaults.json\n"
          --file-match "${RB_OUT}/tune_sigint_keeps_defaults.json=1024x1024[^}]*its search not run yet"
          --file-lacks "${RB_OUT}/tune_sigint_keeps_defaults.json=128x128[^}]*its search not run yet"
          -- $<TARGET_FILE:tribench> tune --program mandelbrot --backend opencl --device ${RB_POCL}
             --dataset 128x128,512x512,1024x1024 --exhaustive 0 --max-points 2 --out ${RB_OUT}/tune_sigint_keeps_defaults.json)
  rb_usage(tune_kernel_timeout_negative "tribench: error: --kernel-timeout must be a positive number of seconds, or 0 for no limit"
           tune --program mandelbrot --kernel-timeout -1)

  # --- run --validate-only: set up, run once and validate; nothing timed --------------------
  # stdout is the validate-only lines and the summary, nothing else (no timing table). A ';'
  # would split a CMake argument: the summary's is matched with '.'.
  set(VALIDATED "validated. nothing timed \\(--validate-only\\)\n\\Z")
  rb_test(validate_only --rc 0
          --out "\\Aok +mandelbrot/128x128/opencl +.+\nok +mandelbrot/512x512/opencl +.+\ntribench: 2 of 2 benchmarks ${VALIDATED}"
          -- $<TARGET_FILE:tribench> run --validate-only -p mandelbrot -b opencl --dataset 128x128,512x512)
  rb_test(validate_only_keep_going --rc 1 --env TRIBENCH_KERNEL_DIR=${RB_SRC}/wrong_small
          --out "\\Avalidation_failed +mandelbrot/128x128/opencl +.+\nok +mandelbrot/512x512/opencl +.+\ntribench: 1 of 2 benchmarks ${VALIDATED}"
          --err "tribench: 1 of 2 benchmarks failed\n  mandelbrot/128x128/opencl: validation failed: "
          -- $<TARGET_FILE:tribench> ${TWO} --validate-only --keep-going)
  # A hung kernel: the fresh process takes the flag along and prints the same lines.
  rb_test(validate_only_kernel_timeout --rc 1 ${SPIN} --timeout 60
          --err "mandelbrot/512x512/opencl: the validation run did not finish within 2 s \\(--kernel-timeout\\)(.*\n)*.*carrying on in a fresh process(.*\n)*.*resuming .*tribench-run-.*\\.journal: 2 of 3"
          --out "\\Aok +mandelbrot/128x128/opencl +.+\nerror +mandelbrot/512x512/opencl +the validation run did not finish within 2 s \\(--kernel-timeout\\).*\nok +mandelbrot/1024x1024/opencl +.+\ntribench: 2 of 3 benchmarks ${VALIDATED}"
          -- $<TARGET_FILE:tribench> ${THREE} --validate-only --keep-going)
  # Options that need timings or a results file are refused before anything opens.
  rb_usage(validate_only_out "tribench: error: --validate-only cannot take --out: it writes no results file" ${M} --validate-only)
  function(rb_validate_only_refuses name regex)
    tb_cli_test(rb_validate_only_${name} 2 ONE_LINE ERR "^tribench: error: --validate-only cannot take ${regex}"
                ARGS run --program mandelbrot --backend opencl --validate-only ${ARGN})
  endfunction()
  rb_validate_only_refuses(gb_out "--benchmark_out: " --benchmark_out=${RB_OUT}/validate_only_gb.json)
  rb_validate_only_refuses(resume_results "--resume .*r.json: it writes no results file" --resume ${RB_OUT}/r.json)
  rb_validate_only_refuses(resume_anyway "--resume-anyway: " --resume ${RB_OUT}/r.json.journal --resume-anyway)
  rb_validate_only_refuses(parallel_devices "--parallel-devices: " --parallel-devices)
  rb_validate_only_refuses(dry_run "--dry-run: " --dry-run)
  rb_validate_only_refuses(profile "--profile: " --profile ci)
  rb_validate_only_refuses(repeat "--repeat: " --repeat 2)

  # stderr not a terminal: a heartbeat line. --min-time 3 keeps the run going for 3 s.
  rb_test(heartbeat --rc 0 --err "tribench: 0 of 1 benchmarks done, 0m0[12]s elapsed, expected end in ~"
          -- $<TARGET_FILE:tribench> ${M} --min-time 3 --timeout 3 --max-noise 0.000001 --heartbeat 1)
  # --resume refuses a different command line (exit 2, one line), and a journal is never
  # overwritten by a run that was not asked to resume.
  file(WRITE ${RB_IN}/resume-header.journal
       "{\"schema\": \"tribench-journal\", \"version\": 1, \"run\": {\"out\": \"\"}}\n")
  rb_usage(resume_anyway_alone "tribench: error: --resume-anyway is an option of --resume" ${M} --resume-anyway)
  rb_usage(kernel_timeout_negative "tribench: error: --kernel-timeout must be a positive number of seconds, or 0 for no limit"
           ${M} --kernel-timeout -1)
  rb_test(resume_foreign_journal --rc 2 --one-line --no-file ${RB_OUT}/resume_foreign_journal.json
          --err "tribench: error: cannot resume .*resume-header.journal: it was written by tribench null, this is "
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --resume ${RB_IN}/resume-header.journal)
  file(WRITE ${RB_IN}/journal-exists.json.journal
       "{\"schema\": \"tribench-journal\", \"version\": 1, \"run\": {\"out\": \"\"}}\n")
  rb_test(journal_exists --rc 2 --one-line
          --err "tribench: error: .*journal-exists.json.journal exists: a run writing .*journal-exists.json was cut short. finish it with --resume .*journal-exists.json, or delete the journal to start over"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --out ${RB_IN}/journal-exists.json)
  file(WRITE ${RB_IN}/not-a-journal.journal "{\"schema\": \"tribench-results\"}\n")
  rb_test(resume_not_a_journal --rc 2 --one-line
          --err "tribench: error: cannot resume: .*not-a-journal.journal: not a tribench journal"
          -- $<TARGET_FILE:tribench> ${M} ${QUICK} --resume ${RB_IN}/not-a-journal.journal)
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

# Text from the file is echoed escaped and cut short. (In these CMake arguments an unpaired
# [ or ] would swallow the arguments after it: such characters are matched with '.'.) The first input is the one that made
# the fuzz gate fail at random (issue 15): a rejection quoting "internal error" read as a bug.
function(rb_compare_input name file regex)
  rb_test(compare_${name} --rc 2 --one-line --err "tribench: error: .*${file}: ${regex}"
          -- ${C} ${RB_SRC}/inputs/${file})
endfunction()
rb_compare_input(echo_escaped status_internal_error.json
                 "benchmarks\\[0\\]: unknown status 'internal error \\\\x1b.2J\\\\xc2\\\\x85\\\\x0a'$")
string(REPEAT "x" 64 _shown)
rb_compare_input(echo_cut status_very_long.json "benchmarks\\[0\\]: unknown status '${_shown}\\.\\.\\.\\(19936 more bytes\\)'$")

# --- tribench ptx and ptxdiff: --arch and the output folder, checked before compiling -------
rb_usage(ptx_arch_sm_1 "tribench: error: bad --arch 'sm_1': expected sm_XX or compute_XX \\(optionally with an a or f suffix"
         ptx --program mandelbrot --arch sm_1)
tb_cli_test(rb_ptxdiff_arch_bad 2 ONE_LINE ERR "tribench: error: bad --arch 'volta': expected sm_XX or compute_XX"
            ARGS ptxdiff --program mandelbrot cuda-native cuda-prelude --arch volta)
file(WRITE ${RB_OUT}/not-a-folder "x\n")
tb_cli_test(rb_ptx_out_unwritable 2 ONE_LINE ERR "tribench: error: cannot create .*not-a-folder/ptx: Not a directory"
            ARGS ptx --program mandelbrot --arch sm_90 --out ${RB_OUT}/not-a-folder/ptx)
# TRIBENCH_KERNEL_DIR as `run` checks it: a folder laid out otherwise used to give the
# embedded kernels' PTX without a word.
file(MAKE_DIRECTORY ${RB_IN}/empty-kernel-dir)
rb_test(ptx_kernel_dir_empty --rc 2 --one-line --env TRIBENCH_KERNEL_DIR=${RB_IN}/empty-kernel-dir
        --err "tribench: error: TRIBENCH_KERNEL_DIR=.*empty-kernel-dir holds no programs/<program>/kernels.cl, kernels.cu or their .ptx"
        -- $<TARGET_FILE:tribench> ptx --program mandelbrot --arch sm_90 --out ${RB_OUT}/ptx-kernel-dir)
rb_test(ptxdiff_kernel_dir_missing --rc 2 --one-line --env TRIBENCH_KERNEL_DIR=${RB_IN}/nosuch-dir
        --err "tribench: error: TRIBENCH_KERNEL_DIR=.*nosuch-dir is not a directory"
        -- $<TARGET_FILE:tribench> ptxdiff --program mandelbrot cuda-native cuda-prelude)

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
  # Entry problems too: every --matrix file is read in full before a device is opened, so a
  # malformed entry is a usage error naming FILE:LINE, not a failed benchmark after the others.
  rb_mtx_header(row_range "${BANNER}4 4 2\n1 1 1.0\n5 2 1.0\n" "4: row index 5 out of range 1\\.\\.4")
  rb_mtx_header(col_zero "${BANNER}4 4 2\n1 1 1.0\n2 0 1.0\n" "4: column index 0 out of range 1\\.\\.4")
  rb_mtx_header(missing_entries "${BANNER}4 4 3\n1 1 1.0\n2 2 2.0\n" "[0-9]+: missing entries: the file ends after 2 of 3")
  rb_mtx_header(extra_entries "${BANNER}4 4 1\n1 1 1.0\n2 2 2.0\n" "4: extra entry after the 1 declared entries")
  rb_mtx_header(value_text "${BANNER}4 4 2\n1 1 1.0\n2 2 abc\n" "4: value 'abc' is not a number")
  rb_mtx_header(value_nan "${BANNER}4 4 2\n1 1 nan\n2 2 1.0\n" "3: value 'nan' is not finite")
  rb_mtx_header(entry_fields "${BANNER}4 4 1\n1 1\n" "3: bad entry: expected 'row column value', got 2 fields")
  # Before any device opens: with a device that cannot open (an unknown
  # TRIBENCH_OPENCL_TIMING fails opencl's), the matrix is still what is reported.
  rb_test(mtx_before_device --rc 2 --one-line --env TRIBENCH_OPENCL_TIMING=sometimes
          --err "tribench: error: .*row_range.mtx:4: row index 5 out of range"
          -- $<TARGET_FILE:tribench> run --program spmv --backend opencl --matrix ${RB_IN}/row_range.mtx)
  rb_mtx_header(upper_triangle "%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1.0\n"
                "3: entry \\(1,2\\) lies above the diagonal of a symmetric matrix")
  rb_mtx_header(value_overflow "${BANNER}2 2 1\n1 1 1e39\n" "3: value '1e39' overflows single precision")
  # Duplicates are summed (in double, rounded once): a sum beyond float is refused.
  file(WRITE ${RB_IN}/duplicates_overflow.mtx "${BANNER}2 2 2\n2 1 3e38\n2 1 3e38\n")
  tb_cli_test(rb_mtx_duplicates_overflow 2 ONE_LINE
              ERR "tribench: error: .*duplicates_overflow.mtx: duplicate entries at \\(2,1\\) sum to [0-9.]+, beyond single precision"
              NO_FILE ${RB_OUT}/mtx_duplicates_overflow.json
              ARGS run --program spmv --backend opencl --matrix ${RB_IN}/duplicates_overflow.mtx --out ${RB_OUT}/mtx_duplicates_overflow.json)
  # A well-formed file with no entries: nothing to multiply.
  file(WRITE ${RB_IN}/no_entries.mtx "${BANNER}4 4 0\n")
  tb_cli_test(rb_mtx_no_entries 2 ONE_LINE ERR "tribench: error: .*no_entries.mtx: the matrix has no entries \\(nothing to multiply\\)"
              NO_FILE ${RB_OUT}/mtx_no_entries.json
              ARGS run --program spmv --backend opencl --matrix ${RB_IN}/no_entries.mtx --out ${RB_OUT}/mtx_no_entries.json)
  # Input bytes are escaped in the message (a terminal would act on them) and cut short.
  set(RB_INPUTS ${RB_SRC}/inputs)
  function(rb_mtx_file name file regex)
    tb_cli_test(rb_mtx_${name} 2 ONE_LINE ERR "tribench: error: ${regex}" NO_FILE ${RB_OUT}/mtx_${name}.json
                ARGS run --program spmv --backend opencl --matrix ${file} --out ${RB_OUT}/mtx_${name}.json)
  endfunction()
  rb_mtx_file(control_bytes ${RB_INPUTS}/matrix_control_bytes.mtx
              ".*matrix_control_bytes.mtx:4: value '.x1b.0.pwned.x07.xff' is not a number")
  string(REPEAT "9" 64 _shown)  # kEchoMaxBytes of the 5001-byte field
  rb_mtx_file(long_field ${RB_INPUTS}/matrix_long_field.mtx
              ".*matrix_long_field.mtx:3: value '${_shown}\\.\\.\\.\\(4937 more bytes\\)' is out of range")
  rb_mtx_file(gzip ${RB_INPUTS}/matrix.mtx.gz ".*matrix.mtx.gz:1: compressed file \\(gzip\\): decompress it first")
  # Only regular files: a FIFO without a writer used to hang the run forever; a device may
  # never end. Both are refused at once (cli_check.py's timeout would catch a hang).
  if(NOT EXISTS ${RB_IN}/matrix.fifo)
    execute_process(COMMAND mkfifo ${RB_IN}/matrix.fifo RESULT_VARIABLE _mkfifo_rc)
  endif()
  if(EXISTS ${RB_IN}/matrix.fifo)
    rb_test(mtx_fifo --rc 2 --one-line --timeout 60
            --err "tribench: error: .*matrix.fifo: a FIFO, not a regular file \\(a Matrix Market file is read twice: header, then entries\\)"
            -- $<TARGET_FILE:tribench> run --program spmv --backend opencl --matrix ${RB_IN}/matrix.fifo)
  endif()
  rb_mtx_file(device /dev/zero "/dev/zero: a character device, not a regular file")
  rb_mtx_file(directory ${RB_IN} "--matrix: File is actually a directory: ")

  # Larger than the device: refused before anything is loaded or allocated. PoCL is capped
  # at 1 GiB (POCL_MEMORY_LIMIT); the file is valid and tiny, but its 2^31-1 rows would
  # need 24 GiB on the device (and as much on the host, had the CSR form been built first).
  file(WRITE ${RB_IN}/too_big.mtx "${BANNER}2147483647 2147483647 1\n1 1 1.0\n")
  rb_test(mtx_too_big_for_device --rc 1 --env POCL_MEMORY_LIMIT=1
          --err "spmv/too_big/scalar/opencl: dataset too_big needs 24576 MiB but opencl:[0-9]+ has 1024 MiB"
          --json ${RB_OUT}/too_big.json
          --bench "spmv/too_big/scalar/opencl=error:^dataset too_big needs 24576 MiB but opencl:[0-9]+ has 1024 MiB"
          --bench "spmv/too_big/vector/opencl=skipped:not run"
          -- ${S} --device ${RB_POCL} --matrix ${RB_IN}/too_big.mtx --out ${RB_OUT}/too_big.json)
endif()

# --- Soak test (scripts/soak.sh; docs/robustness.md): a short one on whatever device runs ----
# The verdicts themselves: a steady leak fails, a flat series and one high sample pass.
add_test(NAME e2e.soak_verdicts COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/soak.py --self-test)
# Under ASan the allocator's quarantine grows RSS by design (and LSan checks leaks itself).
if(HAVE_MANDELBROT AND NOT TRIBENCH_SANITIZE)
  add_test(NAME e2e.soak_short
           COMMAND ${CMAKE_COMMAND} -E env TRIBENCH=$<TARGET_FILE:tribench>
                   "SOAK_PROFILE_ARGS=-p mandelbrot -b opencl -d 128x128 --min-time 0.01 --timeout 0.2"
                   SOAK_ROUNDS=8 SOAK_PROCESSES=4 SOAK_PHASES=inprocess,processes
                   # Eight short rounds: RSS judged for gross leaks only (malloc arenas make it
                   # step by ~2 MiB from round to round here); the heap in use at the defaults.
                   SOAK_RSS_GROWTH_KIB=16384
                   bash ${PROJECT_SOURCE_DIR}/scripts/soak.sh ${RB_OUT}/soak)
  set_tests_properties(e2e.soak_short PROPERTIES TIMEOUT 180)
endif()
