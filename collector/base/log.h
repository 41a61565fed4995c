/* Logging: one line per event on stderr, `key=value` fields.
 *
 *   ts=2026-11-29T22:38:36.123Z level=warn event=series_dropped source=leaf1 limit=100000
 *
 * The level threshold and the output stream are process-wide (logging is a
 * process concern, like stderr itself); everything else in fabricscope keeps its
 * state in per-instance contexts. Thread-safe: each line is written with one
 * fwrite under a lock, so lines from different threads never interleave.
 * Libraries (gRPC, librdkafka, libmicrohttpd) are routed here by their modules
 * through fsc_log_lib(). */
#ifndef FSC_LOG_H
#define FSC_LOG_H

#include <stdio.h>

enum fsc_log_level {
    FSC_LOG_ERROR = 0,
    FSC_LOG_WARN = 1,
    FSC_LOG_INFO = 2,
    FSC_LOG_DEBUG = 3,
};

/* Sets the threshold: events above `level` are discarded. Default: info. */
void fsc_log_set_level(enum fsc_log_level level);
enum fsc_log_level fsc_log_get_level(void);

/* Parses "error|warn|info|debug" into *out. Returns 0, or -1 on an unknown name. */
int fsc_log_level_parse(const char *name, enum fsc_log_level *out);

/* Redirects output (tests). NULL restores stderr. The stream is borrowed. */
void fsc_log_set_stream(FILE *stream);

/* Logs one event. `event` is a short snake_case name; `fmt` formats the rest of
 * the line as `key=value` pairs separated by spaces. Values that may contain
 * spaces or quotes must go through fsc_log_quote(). */
void fsc_log(enum fsc_log_level level, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Logs a message from a library: `lib` names it ("grpc", "rdkafka", ...), `msg`
 * is its free text, quoted into a msg="..." field. */
void fsc_log_lib(enum fsc_log_level level, const char *lib, const char *msg);

/* Writes `s` into buf as a quoted value ("a b" -> "\"a b\"", quotes and
 * backslashes escaped, control bytes as \xNN); values without spaces, quotes or
 * '=' are copied bare. Always NUL-terminates (truncates if needed). Returns buf. */
const char *fsc_log_quote(const char *s, char *buf, size_t size);

#endif
