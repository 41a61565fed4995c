/* `fabricscope probe`: first contact with one configured source (as gnmic's
 * --once or Telegraf's --test). Starts only that source, for a few seconds,
 * and prints what arrived as canonical series with the profile's mapping;
 * no exporter, no rollup, no state written (probe_cmd.c). */
#ifndef FSC_PROBE_H
#define FSC_PROBE_H

/* Usage text of `fabricscope probe` (for `help probe` and `probe --help`). */
extern const char fsc_probe_usage[];

/* Runs `fabricscope probe`: argv[0] is "probe". The report goes to stdout,
 * the source's log lines to stderr. Returns the process exit status: 0 when
 * any sample arrived, 1 when none did (or the source could not start), 2
 * for a usage or configuration error. Thread: main, once per process
 * (blocks SIGINT/SIGTERM in the calling thread before any source thread
 * starts). */
int fsc_probe_main(int argc, char **argv);

#endif
