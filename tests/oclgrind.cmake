# Kernels on Oclgrind (Debian's `oclgrind`), an OpenCL simulator that reports accesses outside
# a buffer or a kernel's local memory and work-items racing on memory, all of which PoCL lets
# pass. An ICD file of these tests' own makes Oclgrind their only OpenCL platform and no
# other run's. Any report fails the test (OCLGRIND_LOG, read afterwards).
find_file(OCLGRIND_ICD_LIBRARY liboclgrind-rt-icd.so
          PATHS /usr/lib/oclgrind /usr/lib64/oclgrind /usr/local/lib/oclgrind NO_DEFAULT_PATH)
if(NOT OCLGRIND_ICD_LIBRARY)
  message(STATUS "oclgrind not found: the oclgrind.* tests are left out (scripts/setup.sh installs it)")
  return()
endif()
set(_oclgrind_dir ${CMAKE_CURRENT_BINARY_DIR}/oclgrind)
file(WRITE ${_oclgrind_dir}/vendors/oclgrind.icd "${OCLGRIND_ICD_LIBRARY}\n")
set(_oclgrind_env "OCL_ICD_VENDORS=${_oclgrind_dir}/vendors;OCLGRIND_DATA_RACES=1")

# fft's wide passes in every phasing (test_fft.cpp says what it runs): OCLGRIND_QUICK runs
# each launch's first and last group only; 128 KiB: the wide groups' most local memory.
if(TARGET test_fft)
  add_test(NAME oclgrind.fft_wide_passes
           COMMAND test_fft --gtest_filter=FftOnOpenCL.WidePassesKeepToTheirLocalMemoryAndBarriersInEveryPhasing)
  set_tests_properties(oclgrind.fft_wide_passes PROPERTIES COST 50 TIMEOUT 600 ENVIRONMENT
    "${_oclgrind_env};OCLGRIND_QUICK=1;OCLGRIND_LOCAL_MEM_SIZE=131072;OCLGRIND_LOG=${_oclgrind_dir}/fft.log")
endif()

# spmv and stencil, whose kernels share local memory across barriers (merge's scan and
# fix-up, the stencil tiles), on their small datasets: simulated in full and validated.
# Not nbody, whose kernels Oclgrind 21.10 cannot run (it has no
# llvm.experimental.noalias.scope.decl), nor kmeans, whose kmeans_assign_d4 its build does
# not find (CL_INVALID_KERNEL_NAME; not looked into).
if(TARGET tribench AND "${PROJECT_SOURCE_DIR}/programs/spmv" IN_LIST TB_PROGRAM_DIRS AND
   "${PROJECT_SOURCE_DIR}/programs/stencil" IN_LIST TB_PROGRAM_DIRS)
  set(_cmd $<TARGET_FILE:tribench> run --small -b opencl -p spmv,stencil --launch stream --min-samples 2
           --max-samples 2 --no-batch --no-calibrate --no-cache)
  string(REPLACE ";" "|" _cmd "${_cmd}")
  add_test(NAME oclgrind.spmv_stencil_small
           COMMAND ${CMAKE_COMMAND} "-DCMD=${_cmd}" -DLOG=${_oclgrind_dir}/programs.log
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_check.cmake)
  set_tests_properties(oclgrind.spmv_stencil_small PROPERTIES COST 50 TIMEOUT 600 ENVIRONMENT
    "${_oclgrind_env};OCLGRIND_LOG=${_oclgrind_dir}/programs.log")
endif()
