# OTLP load generator (bench/otlp_load.c): needs the generated protobuf-c
# code and the gRPC C core, so it is not one of the *_bench.c programs.
add_executable(otlp_load otlp_load.c)
target_compile_options(otlp_load PRIVATE ${FSC_WARNINGS})
target_link_libraries(otlp_load PRIVATE fsc_proto PkgConfig::GRPC)
