# gNMI unit tests: fsc_unit_test() with the gNMI source (fsc_gnmi, which
# brings the generated protobuf-c code) linked in.
fsc_unit_test(gnmi_decode LABELS gnmi LIBS fsc_gnmi CASES
  openconfig_prefix_keys junos_header_timestamp pseudo_leaves_dropped queue_occupancy_labels
  sequence_gaps value_types path_bounds malformed_bytes unknown_path_passthrough cache_no_alloc
  sync_delete_and_fallback_time topology_labels_and_traits pfc_priority_label
  producers_combined producers_many sequence_late_not_lost sequence_restarts
  last_clear_reset_evidence gauge_falls_no_reset)

# Subscription planner (pure: request bytes and fields).
fsc_unit_test(gnmi_plan LABELS gnmi LIBS fsc_gnmi CASES
  sample_proto_exact_bytes on_change_updates_only_exact_bytes streams_fields_roundtrip
  path_keys_and_escapes path_errors junos_grid_rounds_up)

# gNMI client end to end against an in-test gRPC server (C core).
fsc_unit_test(gnmi_client LABELS gnmi LIBS fsc_gnmi TIMEOUT 120 CASES
  subscribe_ingest_and_credentials failed_call_retried silent_stream_resubscribed
  unreachable_target_backs_off stream_cadence_per_series late_thread_not_stalled
  busy_neighbour_not_stalled)

# Observed stream cadence and jitter: the estimator's known answers and the
# exact exposition of the stream families.
fsc_unit_test(gnmi_cadence LABELS gnmi prometheus LIBS fsc_gnmi CASES
  cadence_known_answer stream_families_exposition)

# The gNMI simulator's model and messages (collector/demo/sim): each report's
# queue peak covers the time since the port's previous report; the leaves of
# each sensor, zero suppression, the sensors each OS serves.
fsc_unit_test(gnmi_sim_model LABELS gnmi sim LIBS fsc_sim CASES
  burst_inside_interval_once no_burst_baseline edges_and_repeats every_queue_and_instant
  port_values_known_answers messages_and_zero_suppress sensors_served)

# Passthrough list-key names over the label-name bound (63 bytes):
# hashed names, never merged series, counted per update.
fsc_unit_test(gnmi_label_names LABELS gnmi LIBS fsc_gnmi CASES long_key_names_never_merge)

# Junos zero suppression: suppressed counters read as 0 (gnmi_zero.c).
fsc_unit_test(gnmi_zero LABELS gnmi LIBS fsc_gnmi CASES
  suppressed_counter_reads_zero split_instance_not_filled queues_counters_only
  cleared_port_reads_zero_again shown_zero_then_left_out off_unless_configured
  keys_interned_once devices_share_keys)

# Link-speed leaves (gnmi_speed.c): the OpenConfig identities and values
# read, the port's speed given to its counters, precedence, topology first.
fsc_unit_test(gnmi_speed LABELS gnmi LIBS fsc_gnmi CASES
  identities_known_answers typed_values decoder_learns_port_speed topology_speed_wins)
