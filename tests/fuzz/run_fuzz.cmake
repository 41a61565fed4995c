# ctest fuzz.run_<target>: fuzzes EXE for SECONDS on a fresh copy of its
# committed corpus and regressions (libFuzzer writes new inputs into its
# first corpus directory: never the committed one). Crash reproducers go to
# WORK/artifacts/. -timeout: one input slower than 10 s is a finding;
# -rss_limit_mb: a harness that grows past 2 GiB is one too.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
file(GLOB seeds ${CORPUS}/* ${REGRESS}/*)
if(seeds)
  file(COPY ${seeds} DESTINATION ${WORK}/corpus)
endif()
execute_process(COMMAND ${EXE} ${WORK}/corpus -max_total_time=${SECONDS} -timeout=10
                        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1
                        -artifact_prefix=${WORK}/artifacts/
                WORKING_DIRECTORY ${WORK}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB found ${WORK}/artifacts/*)
  message(FATAL_ERROR "fuzz target ${TARGET} failed (${rc}); reproducer(s): ${found}\n"
                      "Fix it, then add the file under tests/fuzz/regressions/${TARGET}/")
endif()
