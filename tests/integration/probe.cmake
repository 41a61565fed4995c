# First contact: `fabricscope probe`, `run --listen`, the demo's
# fixed ports. Real peers on 127.0.0.1: gnmi_sim (collector/demo/sim), the
# OpenTelemetry JS SDK (tests/interop/otlp_js, installed by scripts/setup.sh
# with npm ci), the demo's own simulators.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
find_program(NODE_EXECUTABLE NAMES node nodejs REQUIRED)
# probe of a gNMI source (gnmi_sim, 3 s): exact canonical names and mapping
# lines, the simulator's model in the last values; probe of an OTLP source
# while the JS SDK posts: names, values, the unmapped names, exit 0; with no
# sender exit 1; usage and config errors exit 2; no exporter, no state.
add_test(NAME probe.gnmi_otlp
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/probe_test.sh $<TARGET_FILE:fabricscope>
                 $<TARGET_FILE:gnmi_sim> ${PROJECT_SOURCE_DIR} ${NODE_EXECUTABLE}
                 ${Python3_EXECUTABLE})
set_tests_properties(probe.gnmi_otlp PROPERTIES LABELS "probe;integration;gnmi;otlp" TIMEOUT 120)
# run --listen 127.0.0.1:PORT serves /metrics there (not at the file's
# address), across a reload; [::1]:PORT; bad values exit 2, a busy port 1.
add_test(NAME cli.run_listen
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_run_listen_test.sh $<TARGET_FILE:fabricscope>
                 ${Python3_EXECUTABLE})
set_tests_properties(cli.run_listen PROPERTIES LABELS "integration;cli;prometheus" TIMEOUT 90)
# demo --listen/--gnmi-ports/--otlp-port with free ports found first: each
# answers, the collector reaches the leaves and the spine posts through them;
# a busy port exits 1 naming it.
add_test(NAME demo.fixed_ports
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/demo_ports_test.sh $<TARGET_FILE:fabricscope>
                 ${Python3_EXECUTABLE})
set_tests_properties(demo.fixed_ports PROPERTIES LABELS "integration;demo" TIMEOUT 180)
