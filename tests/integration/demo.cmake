# The status page and the report against `fabricscope demo` (collector/demo,
# docs/DEMO.md, docs/REPORT.md), one 56 s demo run: every injected fault in
# /api/events and in the page's DOM with its device and port, the B300 mesh
# view with the swapped cables highlighted and every link's utilization at
# the demo's known rates, no console message in headless Chromium (Debian
# `chromium`), a screenshot kept as <build dir>/demo_status.png; then the
# documented `fabricscope report --state-dir` on the demo's rollups: the
# schedule's numbers in report.csv / report.json and report.html rendered.
# (demo.faults_detected, the exactly-once check, is in CMakeLists.txt.)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME demo.status_page_and_report
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/demo_status_test.sh $<TARGET_FILE:fabricscope>
                 ${Python3_EXECUTABLE} ${CMAKE_BINARY_DIR})
set_tests_properties(demo.status_page_and_report PROPERTIES LABELS "integration;demo;web"
                     TIMEOUT 240)
