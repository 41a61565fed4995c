# Kafka exporter tests (exporters/kafka), label "kafka": the spool on its own,
# the config keys, and the producer against librdkafka's in-process mock
# cluster (no broker needed). The mock-broker helper tests/tools/kafka_mock.c
# is built by the tools glob; it needs librdkafka, linked here.
fsc_unit_test(kafka_spool LABELS kafka LIBS fsc_kafka CASES
  append_read_order segments_and_acks big_active_segment_recycled bound_drops_counted
  crash_survivors corruption_truncated short_write_cut_and_counted unsaved_acks_counted
  lock_and_errors)

# tests/tools/kafka_mock.c (the mock cluster as a process) is made by the
# tools glob with fsc_app and fsc_prometheus; it needs librdkafka too.
target_link_libraries(kafka_mock PRIVATE fsc_kafka)

fsc_unit_test(kafka_exporter LABELS kafka LIBS fsc_kafka TIMEOUT 120 CASES
  event_ids delivers_exactly_once_in_order no_spool_direct outage_resend_in_order
  stop_flushes_and_restart_delivers sigkill_restart_delivers_spool bus_overrun_counted
  unreachable_bootstrap_starts)

fsc_unit_test(kafka_conf LABELS kafka config LIBS fsc_kafka CASES
  defaults_and_keys loader_errors librdkafka_refusals_have_positions librdkafka_settings)


# The events topic's JSON documents (kafka_event_json.c over base/json_write.c): the
# exact document and key of every event kind, escaping, bounds, numbers.
fsc_unit_test(kafka_event_json LABELS kafka LIBS fsc_kafka CASES
  every_kind_exact escaping bounds without_registry_or_config numbers)

# The event kinds the Kafka topic carries beyond the detectors' (engine side):
# counter_reset's per-series rate limit and storm bound, and the log lines of
# counter_reset and stream_down.
fsc_unit_test(event_kinds LABELS engine kafka CASES
  reset_rate_limited evidence_doubles_every_reset storm_bounded log_lines)

# The fabricscope_kafka_* self-metrics as the renderer writes them.
fsc_unit_test(kafka_prom LABELS kafka prometheus CASES kafka_families_exact)
