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
set(_oclgrind_platform "OCL_ICD_VENDORS=${_oclgrind_dir}/vendors")
set(_oclgrind_env "${_oclgrind_platform};OCLGRIND_DATA_RACES=1")

# fft's wide passes in every phasing and 2^24's two (test_fft.cpp says what they run):
# OCLGRIND_QUICK runs each launch's first and last group only; 128 KiB: the wide groups'
# most local memory. 2^24 needs 256 MiB of buffers (Oclgrind allows 128 by default) and runs
# without race detection, whose shadow of them took a minute.
if(TARGET test_fft)
  set(_fft_env OCLGRIND_QUICK=1 OCLGRIND_LOCAL_MEM_SIZE=131072)
  add_test(NAME oclgrind.fft_wide_passes
           COMMAND test_fft --gtest_filter=FftOnOpenCL.WidePassesKeepToTheirLocalMemoryAndBarriersInEveryPhasing)
  set_tests_properties(oclgrind.fft_wide_passes PROPERTIES COST 50 TIMEOUT 600 ENVIRONMENT
    "${_oclgrind_env};${_fft_env};OCLGRIND_LOG=${_oclgrind_dir}/fft.log")
  add_test(NAME oclgrind.fft_wide_16m COMMAND test_fft --gtest_filter=FftOnOpenCL.TwoWidePassesOf4096KeepToTheirLocalMemory)
  set_tests_properties(oclgrind.fft_wide_16m PROPERTIES COST 10 TIMEOUT 600 ENVIRONMENT
    "${_oclgrind_platform};${_fft_env};OCLGRIND_GLOBAL_MEM_SIZE=1073741824;OCLGRIND_LOG=${_oclgrind_dir}/fft16m.log")
endif()

# nbody and kmeans build only without optimisation here (OCLGRIND_BUILD_OPTIONS): Oclgrind
# 21.10's clang marks the restrict pointers of the functions it inlines with
# llvm.experimental.noalias.scope.decl, which its simulator does not know (it fails the
# kernel: "Undefined external function", then CL_INVALID_KERNEL_NAME). The unoptimised IR
# makes the same global and local accesses.
set(_oclgrind_unoptimised "OCLGRIND_BUILD_OPTIONS=-cl-opt-disable")

# nbody's local tiles and slice sums in every shape of a work-group (test_nbody.cpp).
if(TARGET test_nbody)
  add_test(NAME oclgrind.nbody_shapes
           COMMAND test_nbody --gtest_filter=NbodyOnOpenCL.EveryGeometryKeepsToItsLocalMemoryOnOclgrind)
  set_tests_properties(oclgrind.nbody_shapes PROPERTIES COST 30 TIMEOUT 600 ENVIRONMENT
    "${_oclgrind_env};${_oclgrind_unoptimised};OCLGRIND_LOG=${_oclgrind_dir}/nbody.log")
endif()

# Programs on their small datasets, simulated in full and validated: spmv and stencil,
# whose kernels share local memory across barriers (merge's scan and fix-up, the stencil
# tiles).
# --validate-only: each benchmark runs once, the validated run; samples would only repeat
# the same accesses at tens of seconds each.
# VARIANTS: the variants to run (default: all); further arguments: more environment entries.
function(tb_oclgrind_programs name programs)
  cmake_parse_arguments(PARSE_ARGV 2 _o "" "VARIANTS" "")
  set(_variants)
  if(_o_VARIANTS)
    set(_variants --variant ${_o_VARIANTS})
  endif()
  set(_cmd $<TARGET_FILE:tribench> run --validate-only --small -b opencl -p ${programs} ${_variants} --launch stream
           --no-cache)
  string(REPLACE ";" "|" _cmd "${_cmd}")
  add_test(NAME oclgrind.${name}
           COMMAND ${CMAKE_COMMAND} "-DCMD=${_cmd}" -DLOG=${_oclgrind_dir}/${name}.log
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_check.cmake)
  set(_env ${_oclgrind_env} OCLGRIND_LOG=${_oclgrind_dir}/${name}.log ${_o_UNPARSED_ARGUMENTS})
  set_tests_properties(oclgrind.${name} PROPERTIES COST 50 TIMEOUT 600 ENVIRONMENT "${_env}")
endfunction()
if(TARGET tribench AND "${PROJECT_SOURCE_DIR}/programs/spmv" IN_LIST TB_PROGRAM_DIRS AND
   "${PROJECT_SOURCE_DIR}/programs/stencil" IN_LIST TB_PROGRAM_DIRS)
  # Not spmv auto: it runs one of the others, after timing each of them on the matrix
  # (docs/programs/spmv.md), which would more than double the simulated work.
  tb_oclgrind_programs(spmv_stencil_small "spmv,stencil" VARIANTS "unfused,fused,scalar,vector,merge")
endif()
# kmeans's kernels on three shapes, two iterations each (test_kmeans.cpp): the small
# dataset's ten iterations through `tribench run` took 20 s, most of it repeating the same
# accesses.
if(TARGET test_kmeans)
  add_test(NAME oclgrind.kmeans COMMAND test_kmeans --gtest_filter=KmeansOnPocl.EveryKernelPathKeepsToItsMemoryOnOclgrind)
  set_tests_properties(oclgrind.kmeans PROPERTIES COST 10 TIMEOUT 600 ENVIRONMENT
    "${_oclgrind_env};${_oclgrind_unoptimised};OCLGRIND_LOG=${_oclgrind_dir}/kmeans.log")
endif()
