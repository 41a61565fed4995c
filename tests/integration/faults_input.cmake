# --- faults: hostile inputs and operator mistakes ---
# tests/integration/faults_input.sh, one part per test (docs/RELIABILITY.md,
# "Hostile inputs and operator mistakes"):
# - time: OTLP points dated 2200 / two days old refused as partial success,
#   counted by reason, the device's clock offset shown; with the bounds off
#   a 2200 point hides none of the source's other series;
# - reload: two failing reloads in a row (missing bearer_tokens_file, then a
#   port held by another process) keep the last running settings;
# - blocking: FIFOs as the config, a secret file and a token file (exit 2
#   at once; a reload to one keeps the source, SIGTERM still stops the
#   daemon), a symlinked state_dir lock refused;
# - tls_reload: reloads to an unloadable certificate (with another key
#   changed) and to a mismatched key keep the source, naming the files;
# - labels: two interfaces differing after byte 128 stay two series (hash
#   suffix), no counter reset, counted;
# - label_keys: attribute keys differing after byte 63 (label name) or 255
#   (cache key) stay apart (hashed names), no counter reset, counted;
# - big: counters above 2^53 (asInt and asDouble) exact in value and rate;
# - state: the state_dir lock (a second daemon refuses to start) and a
#   deleted or replaced state_dir noticed and made again (waits for a
#   rollup minute: up to 75 s).
foreach(part time reload blocking tls_reload labels label_keys big state)
  add_test(NAME faults.input_${part}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_input.sh $<TARGET_FILE:fabricscope>
                   ${Python3_EXECUTABLE} ${part})
  set_tests_properties(faults.input_${part} PROPERTIES LABELS "faults;integration" TIMEOUT 150)
endforeach()
# - gnmi: a gNMI target whose clock is 10 minutes ahead (gnmi_sim
#   --clock-ahead): its samples refused as future, counted, offset shown.
add_test(NAME faults.input_gnmi
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/faults_input.sh $<TARGET_FILE:fabricscope>
                 ${Python3_EXECUTABLE} gnmi $<TARGET_FILE:gnmi_sim>)
set_tests_properties(faults.input_gnmi PROPERTIES LABELS "faults;integration;gnmi" TIMEOUT 90)
