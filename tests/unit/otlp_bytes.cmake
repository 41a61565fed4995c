# Cumulus port bytes by release (otlp_bytes.c through the ingest): each
# release's name set (NVIDIA CumulusNetworks/docs, Open-Telemetry-Export.md
# 5.10 .. 5.17) -> exact canonical series and values.
fsc_unit_test(otlp_bytes LABELS otlp LIBS fsc_otlp CASES
  release_511_derived release_512_pg_octets_alias release_514_both_counted_once
  release_515_direct derived_incomplete_and_new_class derived_to_direct
  no_byte_counter_warning class_of_and_bounds net_host_name_device)
