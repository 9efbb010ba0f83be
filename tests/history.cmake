# `tribench history`, compare's CI formats and export --github-benchmark, end to end on
# synthetic histories (tests/history_check.py writes them, seeded). Exit 77: a tool the
# case needs is missing (reported as skipped).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_FOUND)
  foreach(case step nostep improvement badinput formats)
    add_test(NAME e2e.history_${case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/history_check.py $<TARGET_FILE:tribench>
                     ${CMAKE_CURRENT_BINARY_DIR}/e2e/history ${case})
    set_tests_properties(e2e.history_${case} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  endforeach()
  # Google Benchmark's tools/compare.py (Debian's libbenchmark-tools, needs scipy) reads
  # --benchmark_out files of two runs and prints non-zero times for short kernels.
  add_test(NAME e2e.gb_compare_py COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/gb_compare_check.py
           $<TARGET_FILE:tribench> ${CMAKE_CURRENT_BINARY_DIR}/e2e/gb_compare)
  set_tests_properties(e2e.gb_compare_py PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
