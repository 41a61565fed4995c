# The nic source's pure parts (collector/sources/nic: nic_hostcheck, nic_aggregate)
# and its event kinds: neighbour table parse, host-check verdicts on
# synthetic host views against a two-cable plan (the swapped pair and the
# wrong address of nic.cable_check included), the node aggregate's
# arithmetic, the text and counting of cable_mismatch / pcie_degraded events.
# The executable is tests/unit/test_nic_source.c; each named case is one
# ctest test "nic_source.<case>", labelled unit;nic.
add_executable(test_nic_source ${FSC_TESTS_DIR}/unit/test_nic_source.c)
target_include_directories(test_nic_source PRIVATE ${FSC_TESTS_DIR})
target_compile_options(test_nic_source PRIVATE ${FSC_WARNINGS})
target_link_libraries(test_nic_source PRIVATE fsc_nic fsc_app)
foreach(c neigh_parse_table cable_check_kinds cable_check_swapped_pair aggregate_math
          event_kinds_text_and_count)
  add_test(NAME nic_source.${c} COMMAND test_nic_source ${c})
  set_tests_properties(nic_source.${c} PROPERTIES LABELS "unit;nic" TIMEOUT 60)
endforeach()
