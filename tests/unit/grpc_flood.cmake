# The OTLP/gRPC stream-abuse defence's parts: the per-connection budget
# (known answers), gRPC peer strings, and the guard against loopback sockets
# (a blocked address's connections closed, its handshakes dropped by the
# listener's filter; IPv4, and IPv4 + IPv6 on a dual-stack listener), and the
# channelz stream watch against a real gRPC server.
fsc_unit_test(grpc_flood LABELS otlp security LIBS fsc_otlp CASES
  budget_burst budget_rate budget_eviction peer_strings guard_ipv4 guard_dual_stack
  channelz_streams)
set_tests_properties(grpc_flood.guard_dual_stack PROPERTIES SKIP_RETURN_CODE 77)
