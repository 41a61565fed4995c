# --- container ---
# The Containerfile without a container engine (tests/integration/
# container_test.sh): its builder stage's steps run on this host in a clean
# copy of the build context (scripts/setup.sh --build-only, a fresh configure
# and build of the fabricscope target: a few minutes on 2 cores), then the
# runtime stage's promises are checked against that binary: its shared
# libraries come from the packages the stage installs, it runs as a non-root
# user with a read-only root filesystem except the state directory (needs
# root for the private mount namespace, narrowed otherwise), and answers the
# HEALTHCHECK command taken from the Containerfile.
# It builds the project from scratch with the Containerfile's own flags, so
# the build type of this tree does not matter: registered once, in the
# optimised build (the Sanitize build would only repeat the same minutes).
if(NOT CMAKE_BUILD_TYPE STREQUAL "Sanitize")
  add_test(NAME container.containerfile
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/container_test.sh ${PROJECT_SOURCE_DIR}
                   ${Python3_EXECUTABLE})
  set_tests_properties(container.containerfile PROPERTIES LABELS "integration;container"
                       TIMEOUT 1800)
endif()
