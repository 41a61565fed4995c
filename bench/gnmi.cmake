# gNMI decoder benchmark. The *_bench.c glob above already made the
# executable; it also needs the gNMI source and the generated protobuf-c code.
if(TARGET gnmi_decode_bench)
  target_link_libraries(gnmi_decode_bench PRIVATE fsc_gnmi)
endif()
