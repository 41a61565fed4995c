# --- docs ---
# docs/QUICKSTART.md as a reader follows it, without the devices
# (tests/integration/quickstart_test.sh): its lab CA commands run, every
# fabricscope config it shows passes check-config, its Prometheus config
# and the rule files it loads pass promtool, and every `fabricscope` command
# it shows exists with the options it uses (the offline ones run).
add_test(NAME deploy.quickstart
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/quickstart_test.sh $<TARGET_FILE:fabricscope>
                 ${PROJECT_SOURCE_DIR} ${PROMTOOL} ${Python3_EXECUTABLE})
set_tests_properties(deploy.quickstart PROPERTIES LABELS "integration;deploy" TIMEOUT 60
                     SKIP_RETURN_CODE 77)
