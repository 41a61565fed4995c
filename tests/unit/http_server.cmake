# The collector's HTTP server (net/http_server.h) on 127.0.0.1 port 0 with a
# raw-socket client: the route table's 404/405/413, body caps, the drain
# rule, begin() and the refusal hook. Links the net layer alone.
fsc_unit_test(http_server LABELS net http ONLY fsc_net CASES
  route_table_statuses body_limit_413 refusals_drain_and_hook start_errors)
