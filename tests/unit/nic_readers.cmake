# NIC readers (collector/sources/nic: nic_sysfs, nic_ethtool, nic_pcie) against
# fixture trees written by the fabricscope-nic-fixture tool (collector/demo/nicfx).
# The executable is tests/unit/test_nic_readers.c; each named case is one
# ctest test "nic_readers.<case>", labelled unit;nic.
add_executable(test_nic_readers ${FSC_TESTS_DIR}/unit/test_nic_readers.c)
target_include_directories(test_nic_readers PRIVATE ${FSC_TESTS_DIR})
target_compile_options(test_nic_readers PRIVATE ${FSC_WARNINGS})
target_compile_definitions(test_nic_readers PRIVATE
  NIC_FIXTURE="$<TARGET_FILE:fabricscope-nic-fixture>")
add_dependencies(test_nic_readers fabricscope-nic-fixture)
target_link_libraries(test_nic_readers PRIVATE fsc_nic fsc_app)
foreach(c parse_u64_table cdir_fixture_exact cdir_malformed_counted cdir_vanished_and_new
          cdir_bounds pcie_strings aer_parse pcie_fixture link_fixture fixture_step_semantics
          ethtool_errors sysfs_pread_fresh read_cost_100_files)
  add_test(NAME nic_readers.${c} COMMAND test_nic_readers ${c})
  set_tests_properties(nic_readers.${c} PROPERTIES LABELS "unit;nic" TIMEOUT 60)
endforeach()

# tests/tools/nic_read.c is built by the tools glob (linked with fsc_app and
# fsc_prom); it reads through the NIC readers too.
target_link_libraries(nic_read PRIVATE fsc_nic)

# The ethtool reader's fixture files (nic_ethtool_file.c) against the fixture
# writer's (nicfx_ethtool.c), one executable, cases "nic_ethtool_file.<case>":
# exact values and time, refused texts, and a reader beside a writer that
# never pauses accepting only whole versions.
add_executable(test_nic_ethtool_file ${FSC_TESTS_DIR}/unit/test_nic_ethtool_file.c)
target_include_directories(test_nic_ethtool_file PRIVATE ${FSC_TESTS_DIR})
target_compile_options(test_nic_ethtool_file PRIVATE ${FSC_WARNINGS})
target_link_libraries(test_nic_ethtool_file PRIVATE fsc_nic fsc_nicfx fsc_app)
foreach(c ethtool_fixture_file ethtool_fixture_file_concurrent)
  add_test(NAME nic_ethtool_file.${c} COMMAND test_nic_ethtool_file ${c})
  set_tests_properties(nic_ethtool_file.${c} PROPERTIES LABELS "unit;nic" TIMEOUT 60)
endforeach()
