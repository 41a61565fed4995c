# --- deploy ---
# The deploy/ examples (tests/integration/deploy_test.sh): the Prometheus
# scrape configs pass promtool, the systemd unit passes systemd-analyze
# verify and security (skipped with a message without systemd-analyze), the
# Kubernetes manifests parse (python3-yaml) with the promised kinds, security
# contexts, scrape annotations and shard arguments, and the ConfigMap's
# configs pass `fabricscope check-config`.
add_test(NAME deploy.examples
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/deploy_test.sh $<TARGET_FILE:fabricscope>
                 ${PROJECT_SOURCE_DIR} ${PROMTOOL} ${Python3_EXECUTABLE})
set_tests_properties(deploy.examples PROPERTIES LABELS "integration;deploy" TIMEOUT 120)
