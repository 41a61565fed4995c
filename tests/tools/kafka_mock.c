/* kafka_mock: librdkafka's mock Kafka cluster as a process, for tests that
 * need a broker (kcat, kafkajs, the daemon). No Kafka installation needed.
 *
 *   kafka_mock [--brokers N] [--bootstrap-file PATH] [--control PATH]
 *              [--duration SECONDS] [--topic NAME[:PARTITIONS]]...
 *
 *   --brokers N            brokers in the cluster (default 3; ids 1..N)
 *   --bootstrap-file PATH  write the bootstrap list ("127.0.0.1:P1,...") to
 *                          PATH once the cluster is up (write + rename, so a
 *                          reader never sees half of it); it is also printed
 *                          on stdout as "bootstrap=<list>"
 *   --control PATH         also read commands from PATH: lines appended to it
 *                          are executed (polled every 50 ms)
 *   --duration SECONDS     exit after this long (default: no bound; then the
 *                          process runs until "stop", SIGTERM or SIGINT)
 *   --topic NAME[:P]       create a topic with P partitions (default 4) up
 *                          front; otherwise topics are auto-created on first use
 *
 * Commands, one per line, on stdin (until EOF) or in the control file:
 *   down ID|all            disconnect broker(s) and refuse new connections
 *   up ID|all              accept connections again
 *   rtt ID|all MS          add MS milliseconds to every response
 *   error API ERR [COUNT]  the next COUNT (default 1) requests of API fail with
 *                          ERR; API: produce, fetch, metadata, init_producer_id
 *                          or a number; ERR: a librdkafka error name without
 *                          the RD_KAFKA_RESP_ERR_ prefix (REQUEST_TIMED_OUT,
 *                          NOT_LEADER_FOR_PARTITION, _TRANSPORT, ...) or a number
 *   clear API              drop the pending errors of API
 *   topic NAME [P [RF]]    create a topic (P partitions, RF replicas; 4, 1)
 *   stop                   exit 0
 * Each command answers one stdout line, "ok <command>" or "error <why>", so a
 * script can wait for it. Exit status: 0 on stop / signal / duration, 2 on bad
 * arguments or when the cluster cannot start. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    (void)sig;
    got_signal = 1;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_api(const char *s)
{
    static const struct {
        const char *name;
        int key;
    } apis[] = {{"produce", 0}, {"fetch", 1}, {"metadata", 3}, {"init_producer_id", 22}};
    for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++) {
        if (strcasecmp(s, apis[i].name) == 0)
            return apis[i].key;
    }
    char *end;
    long v = strtol(s, &end, 10);
    return *s && *end == '\0' && v >= 0 && v < 100 ? (int)v : -1;
}

static int parse_err(const char *s, rd_kafka_resp_err_t *out)
{
    const struct rd_kafka_err_desc *descs;
    size_t n;
    rd_kafka_get_err_descs(&descs, &n);
    for (size_t i = 0; i < n; i++) {
        if (descs[i].name != NULL && strcasecmp(descs[i].name, s) == 0) {
            *out = descs[i].code;
            return 0;
        }
    }
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0')
        return -1;
    *out = (rd_kafka_resp_err_t)v;
    return 0;
}

/* Broker id or -1 for "all"; -2 on error. */
static int parse_broker(const char *s, int n_brokers)
{
    if (s == NULL)
        return -2;
    if (strcmp(s, "all") == 0)
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    return *end == '\0' && v >= 1 && v <= n_brokers ? (int)v : -2;
}

/* The mock API's "-1 = all" is not in every librdkafka version: loop. */
static rd_kafka_resp_err_t each_broker(rd_kafka_mock_cluster_t *mc, int id, int n,
                                       rd_kafka_resp_err_t (*fn)(rd_kafka_mock_cluster_t *,
                                                                 int32_t))
{
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;
    for (int b = id == -1 ? 1 : id; b <= (id == -1 ? n : id) && !e; b++)
        e = fn(mc, b);
    return e;
}

/* Runs one command line; returns 1 on "stop". */
static int command(rd_kafka_mock_cluster_t *mc, int n_brokers, char *line)
{
    char copy[512];
    snprintf(copy, sizeof(copy), "%s", line);
    char *save = NULL, *w[5] = {0};
    int nw = 0;
    for (char *t = strtok_r(line, " \t\r\n", &save); t && nw < 5;
         t = strtok_r(NULL, " \t\r\n", &save))
        w[nw++] = t;
    if (nw == 0)
        return 0;
    copy[strcspn(copy, "\r\n")] = '\0';
    const char *bad = NULL;
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR_NO_ERROR;
    if (strcmp(w[0], "stop") == 0) {
        printf("ok %s\n", copy);
        fflush(stdout);
        return 1;
    } else if (strcmp(w[0], "down") == 0 || strcmp(w[0], "up") == 0) {
        int id = parse_broker(w[1], n_brokers);
        if (id == -2)
            bad = "expected a broker id or all";
        else
            e = each_broker(mc, id, n_brokers,
                            w[0][0] == 'd' ? rd_kafka_mock_broker_set_down
                                           : rd_kafka_mock_broker_set_up);
    } else if (strcmp(w[0], "rtt") == 0) {
        int id = parse_broker(w[1], n_brokers);
        if (id == -2 || w[2] == NULL)
            bad = "usage: rtt ID|all MS";
        for (int b = id == -1 ? 1 : id; !bad && !e && b <= (id == -1 ? n_brokers : id); b++)
            e = rd_kafka_mock_broker_set_rtt(mc, b, atoi(w[2]));
    } else if (strcmp(w[0], "error") == 0) {
        int api = w[1] ? parse_api(w[1]) : -1;
        rd_kafka_resp_err_t err;
        long cnt = w[3] ? strtol(w[3], NULL, 10) : 1;
        if (api < 0 || w[2] == NULL || parse_err(w[2], &err) != 0 || cnt < 1 || cnt > 100000)
            bad = "usage: error API ERR [COUNT]";
        else
            for (long i = 0; i < cnt; i++)
                rd_kafka_mock_push_request_errors(mc, (int16_t)api, 1, err);
    } else if (strcmp(w[0], "clear") == 0) {
        int api = w[1] ? parse_api(w[1]) : -1;
        if (api < 0)
            bad = "usage: clear API";
        else
            rd_kafka_mock_clear_request_errors(mc, (int16_t)api);
    } else if (strcmp(w[0], "topic") == 0) {
        if (w[1] == NULL)
            bad = "usage: topic NAME [PARTITIONS [RF]]";
        else
            e = rd_kafka_mock_topic_create(mc, w[1], w[2] ? atoi(w[2]) : 4, w[3] ? atoi(w[3]) : 1);
    } else {
        bad = "unknown command (down, up, rtt, error, clear, topic, stop)";
    }
    if (bad)
        printf("error %s: %s\n", copy, bad);
    else if (e)
        printf("error %s: %s\n", copy, rd_kafka_err2str(e));
    else
        printf("ok %s\n", copy);
    fflush(stdout);
    return 0;
}

/* Executes the complete lines in buf[0..*blen) and keeps the rest. */
static int run_lines(rd_kafka_mock_cluster_t *mc, int n_brokers, char *buf, size_t *blen,
                     size_t cap)
{
    int stop = 0;
    char *nl;
    while (!stop && (nl = memchr(buf, '\n', *blen)) != NULL) {
        *nl = '\0';
        stop = command(mc, n_brokers, buf);
        size_t used = (size_t)(nl + 1 - buf);
        memmove(buf, nl + 1, *blen - used);
        *blen -= used;
    }
    if (*blen == cap - 1) /* an endless line: drop it */
        *blen = 0;
    return stop;
}

/* Executes complete lines appended to the control file since *off. */
static int poll_control(rd_kafka_mock_cluster_t *mc, int n_brokers, const char *path, off_t *off,
                        char *buf, size_t *blen, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd == -1)
        return 0;
    ssize_t n = pread(fd, buf + *blen, cap - 1 - *blen, *off);
    close(fd);
    if (n <= 0)
        return 0;
    *off += n;
    *blen += (size_t)n;
    return run_lines(mc, n_brokers, buf, blen, cap);
}

static int usage(void)
{
    fprintf(stderr, "usage: kafka_mock [--brokers N] [--bootstrap-file PATH] [--control PATH]\n"
                    "                  [--duration SECONDS] [--topic NAME[:PARTITIONS]]...\n");
    return 2;
}

int main(int argc, char **argv)
{
    int n_brokers = 3;
    double duration = 0;
    const char *bfile = NULL, *control = NULL;
    const char *topics[32];
    int n_topics = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            return usage();
        if (strcmp(a, "--brokers") == 0)
            n_brokers = atoi(v);
        else if (strcmp(a, "--bootstrap-file") == 0)
            bfile = v;
        else if (strcmp(a, "--control") == 0)
            control = v;
        else if (strcmp(a, "--duration") == 0)
            duration = atof(v);
        else if (strcmp(a, "--topic") == 0 && n_topics < 32)
            topics[n_topics++] = v;
        else
            return usage();
        i++;
    }
    if (n_brokers < 1 || n_brokers > 16 || duration < 0)
        return usage();

    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* This handle only hosts the cluster: its "no bootstrap.servers" notice
     * (level 5) is noise. */
    rd_kafka_conf_set(conf, "log_level", "4", NULL, 0);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof(err));
    if (rk == NULL) {
        fprintf(stderr, "kafka_mock: %s\n", err);
        return 2;
    }
    rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, n_brokers);
    if (mc == NULL) {
        fprintf(stderr, "kafka_mock: cannot start the mock cluster\n");
        rd_kafka_destroy(rk);
        return 2;
    }
    for (int t = 0; t < n_topics; t++) {
        char name[256];
        snprintf(name, sizeof(name), "%s", topics[t]);
        char *colon = strrchr(name, ':');
        int parts = 4;
        if (colon) {
            *colon = '\0';
            parts = atoi(colon + 1);
        }
        rd_kafka_mock_topic_create(mc, name, parts > 0 ? parts : 4, 1);
    }
    const char *bs = rd_kafka_mock_cluster_bootstraps(mc);
    if (bfile != NULL) {
        char tmp[1024];
        snprintf(tmp, sizeof(tmp), "%s.tmp", bfile);
        FILE *f = fopen(tmp, "w");
        if (f == NULL || fprintf(f, "%s\n", bs) < 0 || fclose(f) != 0 || rename(tmp, bfile) != 0) {
            fprintf(stderr, "kafka_mock: cannot write %s: %s\n", bfile, strerror(errno));
            rd_kafka_mock_cluster_destroy(mc);
            rd_kafka_destroy(rk);
            return 2;
        }
    }
    printf("bootstrap=%s\n", bs);
    fflush(stdout);

    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int64_t end = duration > 0 ? now_ms() + (int64_t)(duration * 1000) : INT64_MAX;
    bool stdin_open = true;
    static char ibuf[4096], cbuf[4096];
    size_t ilen = 0, clen = 0;
    off_t coff = 0;
    int stop = 0;
    while (!stop && !got_signal && now_ms() < end) {
        if (stdin_open) {
            struct pollfd p = {.fd = 0, .events = POLLIN};
            if (poll(&p, 1, 50) > 0) {
                ssize_t n = read(0, ibuf + ilen, sizeof(ibuf) - 1 - ilen);
                if (n <= 0) {
                    stdin_open = false; /* EOF: keep running (CI gives /dev/null) */
                } else {
                    ilen += (size_t)n;
                    stop = run_lines(mc, n_brokers, ibuf, &ilen, sizeof(ibuf));
                }
            }
        } else {
            usleep(50000);
        }
        if (!stop && control != NULL)
            stop = poll_control(mc, n_brokers, control, &coff, cbuf, &clen, sizeof(cbuf));
    }
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return 0;
}
