# remote_write exporter end to end (tests/integration/remote_write_test.sh):
# VictoriaMetrics (Debian victoria-metrics) on loopback as the receiver, with
# a restart mid-stream (vm) and a tiny queue (drops), and a scripted Python
# receiver for 400 / 429 / 503, headers and auth (http).
foreach(t vm drops http)
  add_test(NAME remote_write.${t}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/remote_write_test.sh $<TARGET_FILE:fabricscope> ${t})
  set_tests_properties(remote_write.${t} PROPERTIES LABELS "integration;remote_write" TIMEOUT 120)
endforeach()
