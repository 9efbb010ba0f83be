# Unity builds (TRIBENCH_UNITY, what scripts/test.sh builds with): CMake compiles a library's
# sources a batch at a time, one translation unit each, so the JSON and standard templates
# they all use are instantiated and code-generated once a batch instead of once a file. On 2
# cores, with lld, the ASan build took 195 and 217 s against 268 and 259 without, alternated
# (2026-12-07, docs/robustness.md "CI time"); the tests are one source each and gain nothing.
#
# tb_unity_exclusions(), called once all targets exist: the sources that cannot share a
# translation unit with the rest of their library, because they define a name in an
# anonymous namespace that another source of the library defines too (a function overloaded
# on the other's type, a constant, a local alias of the JSON type), compile on their own; and
# each program's sources form one unit of their own (every program has its own registration
# object and poison value). A new clash shows as a redefinition error in the gate's builds:
# rename the name or add the file here.
function(tb_unity_exclusions)
  set(_alone
    tribench_cuda backends/cuda/nvrtc_api.cpp      # check(), Loaded, load() as cuda_api.cpp
    tribench_cuda backends/cuda/cuda_device.cpp    # calls the driver's check() beside NVRTC's
    tribench_opencl backends/opencl/cl_subgroups.cpp  # kWarpSizeNv
    tribench_harness harness/cli/cmd_history.cpp   # num()
    tribench_harness harness/cli/cmd_report.cpp    # draw_plots()
    tribench_harness harness/report/formats/json.cpp   # its json is nlohmann::ordered_json
    tribench_harness harness/report/formats/junit.cpp  # fmt()
  )
  while(_alone)
    list(POP_FRONT _alone target file)
    if(TARGET ${target})
      set_source_files_properties(${PROJECT_SOURCE_DIR}/${file} TARGET_DIRECTORY ${target}
                                  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    endif()
  endwhile()
  if(TARGET tribench_programs)
    get_target_property(_sources tribench_programs SOURCES)
    set_target_properties(tribench_programs PROPERTIES UNITY_BUILD_MODE GROUP)
    foreach(s IN LISTS _sources)
      get_filename_component(_dir ${s} DIRECTORY)
      get_filename_component(_program ${_dir} NAME)
      set_source_files_properties(${s} TARGET_DIRECTORY tribench_programs PROPERTIES UNITY_GROUP ${_program})
    endforeach()
  endif()
endfunction()
