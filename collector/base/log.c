#include "base/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/name_hash.h"
#include "base/timefmt.h"

/* Process-wide by design (see log.h). */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static enum fsc_log_level log_threshold = FSC_LOG_INFO;
static FILE *log_stream;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void fsc_log_set_level(enum fsc_log_level level)
{
    pthread_mutex_lock(&log_lock);
    log_threshold = level;
    pthread_mutex_unlock(&log_lock);
}

enum fsc_log_level fsc_log_get_level(void)
{
    pthread_mutex_lock(&log_lock);
    enum fsc_log_level level = log_threshold;
    pthread_mutex_unlock(&log_lock);
    return level;
}

int fsc_log_level_parse(const char *name, enum fsc_log_level *out)
{
    for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++) {
        if (strcasecmp(name, level_names[i]) == 0) {
            *out = (enum fsc_log_level)i;
            return 0;
        }
    }
    if (strcasecmp(name, "warning") == 0) {
        *out = FSC_LOG_WARN;
        return 0;
    }
    return -1;
}

void fsc_log_set_stream(FILE *stream)
{
    pthread_mutex_lock(&log_lock);
    log_stream = stream;
    pthread_mutex_unlock(&log_lock);
}

static void log_emit(enum fsc_log_level level, const char *event, const char *body)
{
    char line[2048], ts[FSC_RFC3339_MAX];
    struct timespec now;

    clock_gettime(CLOCK_REALTIME, &now);
    fsc_time_rfc3339(now.tv_sec, (uint32_t)now.tv_nsec, 3, ts, sizeof(ts));
    int n = snprintf(line, sizeof(line), "ts=%s level=%s event=%s%s%s\n", ts, level_names[level],
                     event, body[0] ? " " : "", body);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    if ((size_t)n >= sizeof(line))
        line[len - 1] = '\n'; /* truncated: still one line */
    FILE *out = log_stream ? log_stream : stderr;
    fwrite(line, 1, len, out);
    fflush(out);
}

void fsc_log(enum fsc_log_level level, const char *event, const char *fmt, ...)
{
    char body[1536];
    va_list ap;

    pthread_mutex_lock(&log_lock);
    if (level > log_threshold) {
        pthread_mutex_unlock(&log_lock);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(body, sizeof(body), fmt, ap);
    va_end(ap);
    log_emit(level, event, body);
    pthread_mutex_unlock(&log_lock);
}

/* A library at a resource limit may report it in a tight loop: libmicrohttpd
 * busy-waits on EMFILE and logs every accept attempt, ~10^5 lines a second
 * (faults.fd_exhaustion). So one library text is written at most once a
 * second; its next line says how many copies were left out. Only texts
 * that are identical but for their digits are merged (a hash of lib and
 * message); a few slots suffice, since a flood repeats a handful of texts,
 * and a slot taken over by another text only means that text is not
 * limited. */
#define LIB_SLOTS    16
#define LIB_EVERY_NS 1000000000LL
static pthread_mutex_t lib_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t hash;
    int64_t last_ns;
    uint64_t suppressed;
} lib_slots[LIB_SLOTS];

/* True when this copy is to be left out; else *suppressed gets the count
 * left out since the text was last written. */
static bool lib_flood(const char *lib, const char *msg, uint64_t *suppressed)
{
    uint64_t h = FSC_FNV1A64_OFFSET;
    for (const char *p = lib; *p; p++)
        h = fsc_fnv1a64_step(h, (unsigned char)*p);
    h = fsc_fnv1a64_step(h, 0xff);
    /* Digits are left out: "limit at 19 connections" and "at 5 connections"
     * are one text (faults.fd_exhaustion saw ~1300 such variants). */
    for (const char *p = msg; *p; p++)
        if (*p < '0' || *p > '9')
            h = fsc_fnv1a64_step(h, (unsigned char)*p);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    bool drop = false;
    pthread_mutex_lock(&lib_lock);
    size_t i = (size_t)(h % LIB_SLOTS);
    if (lib_slots[i].hash == h && lib_slots[i].last_ns != 0 &&
        now - lib_slots[i].last_ns < LIB_EVERY_NS) {
        lib_slots[i].suppressed++;
        drop = true;
    } else {
        *suppressed = lib_slots[i].hash == h ? lib_slots[i].suppressed : 0;
        lib_slots[i].hash = h;
        lib_slots[i].last_ns = now;
        lib_slots[i].suppressed = 0;
    }
    pthread_mutex_unlock(&lib_lock);
    return drop;
}

void fsc_log_lib(enum fsc_log_level level, const char *lib, const char *msg)
{
    char quoted[1024];
    size_t len = strlen(msg);

    /* Libraries end their messages with newlines; one event is one line. */
    char trimmed[1024];
    if (len >= sizeof(trimmed))
        len = sizeof(trimmed) - 1;
    memcpy(trimmed, msg, len);
    while (len > 0 && (trimmed[len - 1] == '\n' || trimmed[len - 1] == '\r'))
        len--;
    trimmed[len] = '\0';
    uint64_t suppressed = 0;
    if (lib_flood(lib, trimmed, &suppressed))
        return;
    if (suppressed > 0)
        fsc_log(level, "library", "lib=%s msg=%s suppressed=%llu", lib,
                fsc_log_quote(trimmed, quoted, sizeof(quoted)), (unsigned long long)suppressed);
    else
        fsc_log(level, "library", "lib=%s msg=%s", lib,
                fsc_log_quote(trimmed, quoted, sizeof(quoted)));
}

const char *fsc_log_quote(const char *s, char *buf, size_t size)
{
    size_t o = 0;
    int needs_quotes = s[0] == '\0';

    for (const char *p = s; *p && !needs_quotes; p++)
        if (*p == ' ' || *p == '"' || *p == '=' || *p == '\\' || (unsigned char)*p < 0x20)
            needs_quotes = 1;
    if (size == 0)
        return buf;
    if (!needs_quotes) {
        snprintf(buf, size, "%s", s);
        return buf;
    }
    if (o + 1 < size)
        buf[o++] = '"';
    for (const char *p = s; *p; p++) {
        char esc[5];
        size_t n;
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            n = 2;
        } else if (c < 0x20) {
            snprintf(esc, sizeof(esc), "\\x%02x", c);
            n = 4;
        } else {
            esc[0] = (char)c;
            n = 1;
        }
        if (o + n + 2 > size)
            break;
        memcpy(buf + o, esc, n);
        o += n;
    }
    if (o + 1 < size)
        buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}
