# Runs clang-format --dry-run --Werror over every .c/.h file of the project
# (generated code lives in the build tree and is not checked).
file(GLOB_RECURSE files
     ${SOURCE_DIR}/collector/*.[ch] ${SOURCE_DIR}/exporters/*.[ch] ${SOURCE_DIR}/tests/*.[ch]
     ${SOURCE_DIR}/bench/*.[ch] ${SOURCE_DIR}/tools/*.[ch])
list(LENGTH files n)
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files} RESULT_VARIABLE rc
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clang-format: files differ from .clang-format; run "
                      "clang-format -i on them:\n${out}")
endif()
message(STATUS "clang-format: ${n} files formatted")
