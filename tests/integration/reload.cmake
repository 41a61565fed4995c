# Config reload on SIGHUP, clean stop on SIGTERM: a gNMI target
# that stays connected across reloads, sources added and removed, a broken
# file kept out, scrapes during 20 reloads.
add_test(NAME reload.sighup
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/reload_test.sh $<TARGET_FILE:fabricscope>
                 $<TARGET_FILE:gnmi_sim>)
set_tests_properties(reload.sighup PROPERTIES LABELS "integration;reload" TIMEOUT 180)
