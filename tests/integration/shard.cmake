# Sharding across collectors (docs/DEPLOY.md, "Sharding"): three daemons with
# --shard 0/3, 1/3, 2/3 over 30 devices (synthetic and gnmi_sim targets).
add_test(NAME shard.three_collectors
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/shard_test.sh $<TARGET_FILE:fabricscope>
                 $<TARGET_FILE:gnmi_sim>)
set_tests_properties(shard.three_collectors PROPERTIES LABELS "integration;shard" TIMEOUT 120)
