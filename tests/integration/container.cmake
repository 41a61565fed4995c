# --- container ---
# The Containerfile built with podman and its image run as shipped
# (tests/integration/container_image_test.sh): `podman build` of the file,
# unchanged, in a network namespace with no interface up, from the base
# images scripts/setup.sh makes with mmdebstrap (scripts/container_bases.sh;
# skipped without them, failed under CI); then, from the image's mounted
# root filesystem in a mount and network namespace of the test's own, as the
# image's user: version, check-config of the shipped config, the daemon
# answering the HEALTHCHECK command and serving /metrics, the read-only root
# respected, the image's size within its budget, every shared library from
# the runtime stage's packages. Needs root. About 1 minute on 2 idle cores
# (the builder stage compiles fabricscope with -j2): the 300 s timeout is
# the "within 5 minutes" promise of docs/DEPLOY.md.
# It builds the project from scratch with the Containerfile's own flags, so
# the build type of this tree does not matter: registered once, in the
# optimised build (the Sanitize build would only repeat the same minute).
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  add_test(NAME container.image
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/container_image_test.sh ${PROJECT_SOURCE_DIR}
                   ${Python3_EXECUTABLE})
  set_tests_properties(container.image PROPERTIES LABELS "integration;container" TIMEOUT 300
                       SKIP_RETURN_CODE 77 PROCESSORS 2)
endif()
