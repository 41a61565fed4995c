# OTLP ingest: points -> series and samples, driven through the visitor with
# a real registry and engine (no decoder, no transport).
fsc_unit_test(otlp_ingest LABELS otlp LIBS fsc_otlp CASES
  cumulus_gauge_counter profile_labels_queue_priority unknown_name_passthrough kinds_and_values
  cumulative_reset_start_time delta_sum_accumulates histogram_cumulative histogram_delta
  attribute_order_independent series_limit skipped_and_rejected devices_from_resource
  known_request_no_alloc rates_through_engine batch_chunks label_bounds long_values_never_merge le_format
  topology_labels_and_speed abort_releases)

# Attribute keys over the label-name bound (63 bytes) or the cache
# key's 255 bytes per key: hashed names, never merged series, counted.
fsc_unit_test(otlp_label_names LABELS otlp LIBS fsc_otlp CASES
  long_keys_never_merge name_bound_edges long_cache_keys_never_merge)
