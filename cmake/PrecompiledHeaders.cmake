# Precompiled headers (TRIBENCH_PCH): the standard library headers most sources include,
# nlohmann/json and, for the tests, GoogleTest, compiled once per build and reused by every
# C++ target of the project. Worth it with clang, which the ASan build uses
# (CMakePresets.json "asan"): 36% less CPU time for four of the heaviest sources at
# -O0 + ASan, 13% for the whole build. Not with GCC at -O3: there the time goes to
# optimising (the same four sources took as long), so the release build goes without.
#
# tb_use_precompiled_headers(), called once all targets exist, gives each C++ target of the
# project's folders (tests/fuzz aside: its own flags) a shared header: targets under tests/
# one with GoogleTest, the others one without, so GoogleTest's macros never reach tribench's
# own code. A target with an optimisation level of its own in COMPILE_OPTIONS (-O1) shares
# one compiled at that level: clang refuses a header precompiled with other optimisation.

# The headers named in more than a few sources (git grep -h '#include <' | sort | uniq -c).
set(TB_PCH_HEADERS
  <algorithm> <chrono> <cmath> <cstddef> <cstdint> <cstdio> <cstdlib> <cstring> <filesystem>
  <fstream> <functional> <iostream> <limits> <map> <memory> <optional> <set> <sstream>
  <stdexcept> <string> <string_view> <utility> <vector> <nlohmann/json.hpp>)

# tb_pch_owner(OUT TESTS OPT): the name of the target that owns the shared header for test
# targets (TESTS true) or others, at optimisation option OPT ("" = the build type's); made on
# first use. It has no definitions or include directories of tribench's, so its header is
# valid in every target that reuses it (clang rejects one whose -D macros a user lacks).
function(tb_pch_owner out tests opt)
  set(name tribench_pch)
  if(tests)
    string(APPEND name _tests)
  endif()
  if(opt)
    string(REGEX REPLACE "[^A-Za-z0-9]" "" suffix ${opt})
    string(APPEND name _${suffix})
  endif()
  if(NOT TARGET ${name})
    set(anchor ${PROJECT_BINARY_DIR}/${name}.cpp)
    file(CONFIGURE OUTPUT ${anchor} CONTENT "// Anchors the precompiled header of ${name} (cmake/PrecompiledHeaders.cmake).\n")
    add_library(${name} OBJECT ${anchor})
    target_compile_options(${name} PRIVATE ${opt})
    target_link_libraries(${name} PRIVATE nlohmann_json::nlohmann_json)
    if(tests)
      target_precompile_headers(${name} PRIVATE ${TB_PCH_HEADERS} <gtest/gtest.h>)
      target_link_libraries(${name} PRIVATE GTest::gtest_main)
    else()
      target_precompile_headers(${name} PRIVATE ${TB_PCH_HEADERS})
    endif()
  endif()
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# The project's folders below DIR, DIR included (not third-party ones such as googletest).
function(tb_project_dirs dir out)
  set(dirs ${dir})
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(d IN LISTS subdirs)
    cmake_path(IS_PREFIX PROJECT_SOURCE_DIR ${d} NORMALIZE inside)
    if(inside AND NOT d MATCHES "/tests/fuzz$")
      tb_project_dirs(${d} below)
      list(APPEND dirs ${below})
    endif()
  endforeach()
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()

function(tb_use_precompiled_headers)
  if(NOT TARGET GTest::gtest_main)
    find_package(GTest QUIET)  # tests/CMakeLists.txt found it, but imported targets stay in their folder
  endif()
  tb_project_dirs(${PROJECT_SOURCE_DIR} dirs)
  set(tests_dir ${PROJECT_SOURCE_DIR}/tests)
  foreach(dir IN LISTS dirs)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    cmake_path(IS_PREFIX tests_dir ${dir} NORMALIZE in_tests)
    if(in_tests AND NOT TARGET GTest::gtest_main)
      continue()
    endif()
    foreach(t IN LISTS targets)
      get_target_property(type ${t} TYPE)
      if(NOT type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|OBJECT_LIBRARY)$")
        continue()
      endif()
      get_target_property(options ${t} COMPILE_OPTIONS)
      set(opt "")
      if(options)
        list(FILTER options INCLUDE REGEX "^-O")
        list(POP_BACK options opt)
      endif()
      tb_pch_owner(owner ${in_tests} "${opt}")
      target_precompile_headers(${t} REUSE_FROM ${owner})
    endforeach()
  endforeach()
endfunction()
