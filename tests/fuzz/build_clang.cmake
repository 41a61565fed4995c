# ctest fixture fuzz.build: configures and builds tests/fuzz/clang with clang
# (-DCLANG, -DSRC, -DBIN, -DROOT given by tests/fuzz/CMakeLists.txt).
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_C_COMPILER=${CLANG}
                        -DCMAKE_BUILD_TYPE=Fuzz -DFSC_ROOT=${ROOT}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the clang fuzz tree failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BIN} -j2 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the fuzz harnesses failed (${rc})")
endif()
