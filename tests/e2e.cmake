# End-to-end tests of the `tribench` command. On a machine without a GPU they run on PoCL.
set(TB $<TARGET_FILE:tribench>)
set(E2E_DIR ${CMAKE_CURRENT_BINARY_DIR}/e2e)
file(MAKE_DIRECTORY ${E2E_DIR})

# tb_cli_test(NAME RC [ERR regex] [OUT regex] [ONE_LINE] [FILE path] [NO_FILE path] ARGS ...)
function(tb_cli_test name rc)
  cmake_parse_arguments(T "ONE_LINE" "ERR;OUT;FILE;NO_FILE" "ARGS" ${ARGN})
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
tb_cli_test(unknown_option 2 ONE_LINE ERR "tribench: error: .*--frobnicate" ARGS run --frobnicate)
tb_cli_test(bad_number 2 ONE_LINE ERR "tribench: error: .*--seed" ARGS run --seed banana)

# mandelbrot validates and is timed on the opencl backend (PoCL here), results written.
tb_cli_test(run_mandelbrot_opencl 0 OUT "mandelbrot/128x128/opencl +opencl:[0-9]+ +ok"
            FILE ${E2E_DIR}/mandelbrot.json
            ARGS run --program mandelbrot --dataset 128x128 --backend opencl --min-time 0.05
                 --out ${E2E_DIR}/mandelbrot.json)
tb_cli_test(unwritable_out 2 ONE_LINE ERR "cannot write /nonexistent-dir/r.json"
            ARGS run --program mandelbrot --backend opencl --out /nonexistent-dir/r.json)
if(TRIBENCH_HAVE_CUDA)
  tb_cli_test(ptx_mandelbrot 0 OUT "mandelbrot/cuda-native.ptx.*mandelbrot/cuda-prelude.ptx"
              FILE ${E2E_DIR}/ptx/mandelbrot/cuda-prelude.ptx
              ARGS ptx --program mandelbrot --arch sm_90 --backend cuda-native,cuda-prelude --out ${E2E_DIR}/ptx)
endif()
