# --- faults: connection admission and strict framing ---
# 2 000 idle connections per HTTP listener (from one address and from 100),
# 70 slow-body and slow-header clients, the framing cases, 8 and 40 gRPC
# calls that never send their message, one 100 MiB gRPC message; a
# legitimate scrape / export meanwhile (docs/RELIABILITY.md, "Admission faults").
add_test(NAME faults.admit
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_admit.sh $<TARGET_FILE:fabricscope>
                 ${Python3_EXECUTABLE} ${NODE_EXECUTABLE})
set_tests_properties(faults.admit PROPERTIES LABELS "faults;integration;security;otlp;prometheus"
                     TIMEOUT 180 SKIP_RETURN_CODE 77)
