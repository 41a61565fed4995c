# OTLP protobuf decoder (collector/sources/otlp/decode/otlp_proto.c): known-answer requests
# built with protobuf-c, hand-encoded malformations, random damage.
fsc_unit_test(otlp_proto LABELS otlp LIBS fsc_otlp CASES
  number_points_exact histogram_points_exact field_order_reversed unknown_fields_skipped
  packed_and_unpacked_buckets truncated_every_prefix length_overflow wrong_wire_type
  group_wire_type too_many_attributes anyvalue_depth empty_request oneof_and_merge
  error_messages mutations_no_partial_visits)
