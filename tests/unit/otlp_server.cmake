# OTLP receiver transports end to end over loopback: a real `otlp` source
# instance on 127.0.0.1 port 0, HTTP over raw sockets and gRPC through a
# C-core client (shared fixture: otlp_server_fixture.h).
fsc_unit_test(otlp_http LABELS otlp LIBS fsc_otlp TIMEOUT 120 CASES
  protobuf_ok_series_value json_ok_response gzip_body gunzip_bounds too_large_wire gzip_bomb
  malformed_400 unsupported_415 not_found_405 empty_body_200 partial_success
  error_log_rate_limited keepalive_requests tls_client_ca_refused https_served
  listen_errors)
fsc_unit_test(otlp_grpc LABELS otlp LIBS fsc_otlp TIMEOUT 120 CASES
  export_ok_exact partial_success_bytes invalid_argument_garbage gzip_compressed_request
  resource_exhausted_over_cap gzip_bomb_resource_exhausted unimplemented_unknown_method
  concurrent_calls stop_with_call_in_flight tls_and_mutual_tls listen_errors)
