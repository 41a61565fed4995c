# Cumulus buffer and latency histograms as queue-peak evidence: the ingest
# with a real registry, engine and event bus (no decoder, no transport).
fsc_unit_test(otlp_hist_evid LABELS otlp engine LIBS fsc_otlp CASES
  reached_known_answers egress_delta_burst_once egress_cumulative_same_answers
  latency_and_ingress latency_default_bar)
