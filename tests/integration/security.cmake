# Security of every listener (docs/SECURITY.md): TLS, client
# certificates, basic and bearer auth against curl, a real Prometheus 2.42
# and the OpenTelemetry JS SDK, with the daemon running as nobody; and no
# secret in any output.
find_program(FSC_NODE node)
if(NOT FSC_NODE)
  set(FSC_NODE node)
endif()
add_test(NAME security.listeners
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/security_listeners_test.sh $<TARGET_FILE:fabricscope>
                 ${FSC_NODE} ${PROJECT_SOURCE_DIR})
set_tests_properties(security.listeners PROPERTIES LABELS "integration;security" TIMEOUT 240)

add_test(NAME security.no_secret_in_outputs
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/security_secrets_test.sh $<TARGET_FILE:fabricscope>
                 $<TARGET_FILE:gnmi_sim> $<TARGET_FILE:kafka_mock>)
set_tests_properties(security.no_secret_in_outputs PROPERTIES LABELS "integration;security"
                     TIMEOUT 240)
