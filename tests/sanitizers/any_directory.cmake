# Runs one test program, under the sanitizers of the calling environment, from working
# directories whose paths differ in length, and fails if any run fails.
# -DPROGRAM=path -DFILTER=gtest-filter -DBASE=directory
#
# Why: with clang 14's runtime, LeakSanitizer's exit check crashed ("Tracer caught signal
# 11") after PoCL had run, in most working directories but not in the gate's usual ones: the
# heap layout, and with it the crash, followed the length of the current directory's path.
# A clean gate then failed in CI's checkout alone (docs/robustness.md, "Sanitizer build").
# Five lengths 12 characters apart leave no single narrow window of lucky paths.
foreach(pad "" "pppppppppppp" "pppppppppppppppppppppppp" "pppppppppppppppppppppppppppppppppppp"
            "pppppppppppppppppppppppppppppppppppppppppppppppp")
  set(dir "${BASE}/d${pad}")
  file(MAKE_DIRECTORY "${dir}")
  execute_process(COMMAND "${PROGRAM}" "--gtest_filter=${FILTER}" WORKING_DIRECTORY "${dir}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${PROGRAM} --gtest_filter=${FILTER} in ${dir}: exit code ${rc}\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()
