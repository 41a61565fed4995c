/* gRPC log hook (net/grpc_log.h). */
#include "net/grpc_log.h"

#include <grpc/support/log.h>
#include <pthread.h>

#include "base/log.h"

static void grpc_log_to_fsc(gpr_log_func_args *args)
{
    enum fsc_log_level lvl = FSC_LOG_DEBUG;
    if (args->severity == GPR_LOG_SEVERITY_ERROR)
        lvl = FSC_LOG_ERROR;
    else if (args->severity == GPR_LOG_SEVERITY_INFO)
        lvl = FSC_LOG_INFO;
    fsc_log_lib(lvl, "grpc", args->message ? args->message : "");
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_hook_set(void)
{
    gpr_set_log_function(grpc_log_to_fsc);
}

void fsc_grpc_log_hook_install(void)
{
    pthread_once(&log_once, log_hook_set);
}
