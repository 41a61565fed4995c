# Sharding across collectors (collector/model/shard.c): gnutls' MD5 against
# RFC 1321's suite, hashmod known answers, --shard syntax, the shard: key.
fsc_unit_test(shard LABELS core shard CASES
  md5_rfc1321_suite hashmod_known_answers parse_index_count config_key_and_source_keys)

# The OTLP ingest's per-point shard filter (collector/sources/otlp/map/otlp_ingest.c).
fsc_unit_test(shard_otlp LABELS otlp shard LIBS fsc_otlp CASES
  otlp_points_of_other_shards_skipped skipped_reasons_reach_transport_counters)
