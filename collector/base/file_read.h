/* Files the config names (secrets, TLS PEM files, token lists, cable plans,
 * replay files, the config itself), opened so that nothing can wedge the
 * daemon: without blocking (the first open of a FIFO waits for a writer,
 * forever), only regular files, bounded in size. Any thread. */
#ifndef FSC_FILE_READ_H
#define FSC_FILE_READ_H

#include <stddef.h>
#include <sys/types.h>

/* Opens path read-only and non-blocking; refuses anything but a regular
 * file. Returns the descriptor (O_CLOEXEC; the caller closes it), or -1
 * with why in err: the open's error ("No such file or directory"), "is a
 * directory", "is a FIFO, not a regular file (reading it could block)",
 * "is not a regular file". */
int fsc_file_open_regular(const char *path, char *err, size_t errlen);

/* Reads the whole regular file at path into buf (room for max + 1 bytes;
 * NUL-terminated). Returns its length, or -1 with why in err: as
 * fsc_file_open_regular(), "is larger than MAX bytes", or the read error. */
ssize_t fsc_file_read_regular(const char *path, char *buf, size_t max, char *err, size_t errlen);

/* mkdir -p path: each missing directory made with mode (an existing one
 * is fine). Returns 0 when path ends as a directory, else a negative errno
 * (-ENAMETOOLONG past PATH_MAX, -ENOTDIR when it is something else). */
int fsc_mkdir_p(const char *path, mode_t mode);

#endif
