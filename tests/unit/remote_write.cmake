# remote_write exporter (exporters/remote_write), label "remote_write": the
# exact bytes of an encoded WriteRequest, snappy round trips through
# libsnappy, the bounded queue's drop counting, Retry-After and backoff,
# label naming and sorting (the family table's names, topology in the info
# families), the engine reader on known samples (fine rates of
# a backlog each once), and the
# fabricscope_remote_write_* self-metrics as the renderer writes them.
fsc_unit_test(remote_write LABELS remote_write LIBS fsc_remote_write CASES
  encode_known_bytes snappy_round_trip queue_bound_drops retry_after_parse retry_after_capped backoff_bounds
  labels_named_and_sorted batch_info_series batch_groups_series reader_known_samples reader_all_kinds_many_ports
  reader_fine_backlog prom_families_exact)
