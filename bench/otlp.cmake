# OTLP protobuf decoder benchmark. The *_bench.c glob above already made the
# executable; it also needs the OTLP source and the generated protobuf-c code.
if(TARGET otlp_decode_bench)
  target_link_libraries(otlp_decode_bench PRIVATE fsc_otlp)
endif()
