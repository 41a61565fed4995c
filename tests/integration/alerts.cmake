# The shipped alerting rules (dashboards/alerts.yml, recording.yml) in a real
# Prometheus 2.42 against `fabricscope demo`: every injected fault
# has its alert, with the fault's device and port, within 60 s of its first
# injection, and no other alert fires or is pending during the run. About
# 110 s; the table of firing times is kept as <build dir>/alerts_demo_table.md
# (docs/ALERTS.md).
# Registered once, in the optimised build: it judges the rules, and the
# Sanitize build runs the demo's code paths in demo.faults_detected.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
add_test(NAME dashboards.alerts_demo
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/alerts_demo_test.sh $<TARGET_FILE:fabricscope>
                 ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE}
                 ${CMAKE_BINARY_DIR}/alerts_demo_table.md)
set_tests_properties(dashboards.alerts_demo PROPERTIES LABELS "integration;dashboards;demo"
                     TIMEOUT 170 SKIP_RETURN_CODE 77)
endif()
