# Cumulus' link speed (otlp_speed.c): oper_aggregate_speed points give their
# port's byte counters the speed; no series; the topology's speed wins.
fsc_unit_test(otlp_speed LABELS otlp LIBS fsc_otlp CASES
  speed_reaches_byte_counters topology_speed_wins)
