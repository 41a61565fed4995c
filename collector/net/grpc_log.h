/* gRPC's own log lines routed through fsc_log_lib("grpc", ...). */
#ifndef FSC_GRPC_LOG_H
#define FSC_GRPC_LOG_H

/* Installs the hook with gpr_set_log_function, once per process (a
 * process-wide setting of gRPC, never removed). Call before grpc_init so
 * gRPC's start-up messages are routed too. Thread: any. */
void fsc_grpc_log_hook_install(void);

#endif
