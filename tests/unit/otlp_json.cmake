# OTLP/JSON decoder (collector/sources/otlp/decode/otlp_json*.c, on jansson): known-answer
# transcripts of the visitor calls, malformed documents, bounds, fixtures.
fsc_unit_test(otlp_json LABELS otlp LIBS fsc_otlp CASES
  all_fields int64_exact fixtures truncated_prefixes key_order snake_case whitespace
  escapes_utf8 trailing_garbage depth_bomb bounds empty_documents type_errors syntax_errors
  alloc_failures)
target_compile_definitions(otlp_json_test PRIVATE
  FSC_OTLP_FIXTURES="${PROJECT_SOURCE_DIR}/tests/fixtures/otlp")
