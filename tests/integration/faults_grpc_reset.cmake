# --- faults: HTTP/2 rapid reset on OTLP/gRPC ---
# Two rounds of 6 s of streams opened and reset at once (one connection,
# reconnecting when closed; without and with credentials) while a legitimate
# exporter sends an Export a second: RSS within 256 MiB of its baseline,
# every Export within 2 s (docs/SECURITY.md, "HTTP/2 stream abuse on
# OTLP/gRPC"; docs/RELIABILITY.md, "Admission faults").
add_test(NAME faults.grpc_reset
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_grpc_reset.sh $<TARGET_FILE:fabricscope>
                 ${NODE_EXECUTABLE})
set_tests_properties(faults.grpc_reset PROPERTIES LABELS "faults;integration;security;otlp"
                     TIMEOUT 90 SKIP_RETURN_CODE 77)
