# Kafka exporter benchmark. The *_bench.c glob in bench/CMakeLists.txt already
# made kafka_bench (linked with fsc_app and fsc_prometheus); it also needs the Kafka
# exporter (and through it librdkafka). Included from bench/CMakeLists.txt and,
# until that include is there, from tests/unit/kafka.cmake: link only once.
get_property(fsc_kafka_bench_linked GLOBAL PROPERTY FSC_KAFKA_BENCH_LINKED)
if(TARGET kafka_bench AND NOT fsc_kafka_bench_linked)
  target_link_libraries(kafka_bench PRIVATE fsc_kafka)
  set_property(GLOBAL PROPERTY FSC_KAFKA_BENCH_LINKED ON)
endif()
