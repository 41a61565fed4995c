# The B300 cable plan (collector/model/cable_plan.h): parser and its exact
# errors, addressing rule, default layout, golden rendering of
# examples/b300/cables.txt, lookups, and the topology.cable_plan config keys.
# The executable is tests/unit/test_cable_plan.c; each named case is one ctest
# test "cable_plan.<case>", labelled unit;nic.
add_executable(test_cable_plan ${FSC_TESTS_DIR}/unit/test_cable_plan.c)
target_include_directories(test_cable_plan PRIVATE ${FSC_TESTS_DIR})
target_compile_options(test_cable_plan PRIVATE ${FSC_WARNINGS})
target_link_libraries(test_cable_plan PRIVATE fsc_nic fsc_app)
foreach(c parse_valid parse_errors address_rule default_port_order example_golden lookups
          layout_from_config config_errors)
  add_test(NAME cable_plan.${c} COMMAND test_cable_plan ${c})
  set_tests_properties(cable_plan.${c} PROPERTIES LABELS "unit;nic" TIMEOUT 60)
endforeach()
