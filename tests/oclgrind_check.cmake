# cmake -DCMD="prog|arg|..." -DLOG=file -P oclgrind_check.cmake: runs CMD, whose OpenCL
# platform is Oclgrind writing its reports to LOG (tests/oclgrind.cmake), and fails when CMD
# fails, when Oclgrind wrote no log (it was not the platform) or when it reported anything.
string(REPLACE "|" ";" cmd "${CMD}")
file(REMOVE "${LOG}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "exit ${rc}\n${out}\n${err}")
endif()
if(NOT EXISTS "${LOG}")
  message(FATAL_ERROR "Oclgrind wrote no log to ${LOG}: it was not the OpenCL platform\n${out}")
endif()
file(READ "${LOG}" reports)
if(NOT reports STREQUAL "")
  string(SUBSTRING "${reports}" 0 4000 head)
  message(FATAL_ERROR "Oclgrind reported:\n${head}")
endif()
