# --- faults: network ---
# Network fault injection against the real daemon (docs/RELIABILITY.md,
# "gNMI faults", "OTLP faults", "Prometheus endpoint faults"):
# - gnmi: seven gnmi_sim targets at once, six misbehaving (garbage, 10x
#   cadence, close after sync, TLS handshake slower than connect_timeout
#   through faults_net_proxy.py, an unresolvable name, a restart with
#   counters at 0) and one slow-but-fine handshake: the healthy one never
#   notices, each fault is counted, each target recovers, no rate spikes;
# - otlp: 1000 concurrent senders (tests/tools/otlp_faults.js), senders
#   that go away mid-request over HTTP and gRPC, bodies over max_body, 1 GiB
#   gzip bombs (faults_net_bomb.py; RSS from /proc), invalid UTF-8;
# - prom: 200 concurrent scrapes, 64 slowloris clients, scrapes during 6
#   SIGHUP reloads (faults_net_slowloris.py).
add_test(NAME faults.net_gnmi
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_net_gnmi.sh $<TARGET_FILE:fabricscope>
                 $<TARGET_FILE:gnmi_sim> ${Python3_EXECUTABLE})
add_test(NAME faults.net_otlp
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_net_otlp.sh $<TARGET_FILE:fabricscope>
                 ${PROJECT_SOURCE_DIR} ${NODE_EXECUTABLE} ${Python3_EXECUTABLE})
add_test(NAME faults.net_prom
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_net_prom.sh $<TARGET_FILE:fabricscope>
                 ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE} ${PROMTOOL})
set_tests_properties(faults.net_gnmi PROPERTIES LABELS "faults;integration;gnmi" TIMEOUT 120)
set_tests_properties(faults.net_otlp PROPERTIES LABELS "faults;integration;otlp" TIMEOUT 120)
set_tests_properties(faults.net_prom PROPERTIES LABELS "faults;integration;prometheus" TIMEOUT 120)
# - slow readers: 48 connections that ask for a 13 MB /metrics and never read
#   it: peak RSS bounded by the shared bodies' budget, a normal scrape still
#   answered (faults_slow_readers.sh).
add_test(NAME faults.slow_readers
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_slow_readers.sh $<TARGET_FILE:fabricscope>
                 ${Python3_EXECUTABLE})
set_tests_properties(faults.slow_readers PROPERTIES LABELS "faults;integration;prometheus"
                     TIMEOUT 120)
