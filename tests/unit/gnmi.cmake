# gNMI unit tests: like fsc_unit_test() but linking the gNMI source
# (fsc_gnmi, which brings the generated protobuf-c code).
set(gnmi_decode_cases
    openconfig_prefix_keys junos_header_timestamp pseudo_leaves_dropped qmon_queue_label
    sequence_gaps value_types malformed_bytes unknown_path_passthrough cache_no_alloc
    sync_delete_and_fallback_time topology_labels_and_traits)
add_executable(gnmi_decode_test ${FSC_TESTS_DIR}/unit/gnmi_decode_test.c)
target_include_directories(gnmi_decode_test PRIVATE ${FSC_TESTS_DIR})
target_compile_options(gnmi_decode_test PRIVATE ${FSC_WARNINGS})
target_link_libraries(gnmi_decode_test PRIVATE fsc_gnmi fsc_core)
foreach(c ${gnmi_decode_cases})
  add_test(NAME gnmi_decode.${c} COMMAND gnmi_decode_test ${c})
  set_tests_properties(gnmi_decode.${c} PROPERTIES LABELS "unit;gnmi" TIMEOUT 60)
endforeach()

# Subscription planner (pure: request bytes and fields).
set(gnmi_plan_cases
    sample_proto_exact_bytes on_change_updates_only_exact_bytes streams_fields_roundtrip
    path_keys_and_escapes path_errors)
add_executable(gnmi_plan_test ${FSC_TESTS_DIR}/unit/gnmi_plan_test.c)
target_include_directories(gnmi_plan_test PRIVATE ${FSC_TESTS_DIR})
target_compile_options(gnmi_plan_test PRIVATE ${FSC_WARNINGS})
target_link_libraries(gnmi_plan_test PRIVATE fsc_gnmi fsc_core)
foreach(c ${gnmi_plan_cases})
  add_test(NAME gnmi_plan.${c} COMMAND gnmi_plan_test ${c})
  set_tests_properties(gnmi_plan.${c} PROPERTIES LABELS "unit;gnmi" TIMEOUT 60)
endforeach()

# gNMI client end to end against an in-test gRPC server (C core).
set(gnmi_client_cases
    subscribe_ingest_and_credentials failed_call_retried silent_stream_resubscribed
    unreachable_target_backs_off)
add_executable(gnmi_client_test ${FSC_TESTS_DIR}/unit/gnmi_client_test.c)
target_include_directories(gnmi_client_test PRIVATE ${FSC_TESTS_DIR})
target_compile_options(gnmi_client_test PRIVATE ${FSC_WARNINGS})
target_link_libraries(gnmi_client_test PRIVATE fsc_gnmi fsc_core)
foreach(c ${gnmi_client_cases})
  add_test(NAME gnmi_client.${c} COMMAND gnmi_client_test ${c})
  set_tests_properties(gnmi_client.${c} PROPERTIES LABELS "unit;gnmi" TIMEOUT 120)
endforeach()
