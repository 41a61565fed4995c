# Self-metrics from internal counters (exporters/prometheus/prom_self.c):
# engine unknown-series drops, OTLP skipped points, listener refusals, rollup.
fsc_unit_test(self_prom LABELS prometheus CASES self_families_exact)
