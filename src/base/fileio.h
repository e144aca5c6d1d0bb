/* Files a user names: inputs opened without blocking and checked to be
 * regular files, outputs written so that nothing but the named file changes.
 *
 * DESIGN
 * Inputs (keys, witnesses, JSON, the config file).  fileio_open_read opens
 * with O_RDONLY | O_NONBLOCK | O_CLOEXEC, so that a FIFO without a writer
 * (or a device whose open waits) cannot stall the caller; it fstats the
 * descriptor, not the path, so what is checked is what was opened; it
 * refuses anything but a regular file ("PATH: is a FIFO, expected a regular
 * file"), then clears O_NONBLOCK.  Every reader of a named input goes
 * through it (mapfile_open too).
 *
 * Outputs.  fileio_out_open decides by what the name is now:
 *  - a character or block device or a FIFO, as stat(2) sees it through any
 *    links (/dev/null, /dev/stdout -> /proc/self/fd/1 -> a pipe, a named
 *    pipe): opened O_WRONLY without O_CREAT or O_TRUNC and written in
 *    place; nothing is created, renamed or truncated.  A FIFO's open waits
 *    for a reader, as the shell's `>` does.  A socket is refused.
 *  - otherwise a symbolic link is followed, link by link (at most
 *    FILEIO_MAX_LINKS), and its final target is written as below; the link
 *    itself is never replaced.  Reason: `cuzk prove ... out.json` with
 *    out.json a link is expected to write the file it points to, as the
 *    shell's `>` does; a dangling link names the file to create.  The links
 *    are read here (readlink), so the kernel's fs.protected_symlinks rule is
 *    applied here too: a link in a sticky world-writable directory (/tmp)
 *    owned neither by us nor by the directory's owner is refused, not
 *    followed, so a link planted at the name in /tmp cannot send the write
 *    elsewhere.  A link planted at any other name (a guessable "OUT.tmp")
 *    is never opened: see the next point.
 *  - nothing there, or a regular file: a temporary ".NAME.XXXXXXXXXXXX"
 *    (48 random bits) is created in the target's directory with O_CREAT |
 *    O_EXCL | O_NOFOLLOW, so it is always a new file of this process and
 *    never a planted file or link; mode 0644 less the umask for a new
 *    file, the old file's permission bits otherwise.  fileio_out_commit
 *    fsyncs it and renames it over the target: a reader sees the whole old
 *    file or the whole new one.  The rename makes a new inode: other hard
 *    links keep the old content, and the owner is the writer.
 *  - a directory: refused.
 * A failing call, and fileio_out_abort, remove the temporary: nothing is
 * left behind on error.  No global state: safe from any thread. */
#ifndef CUZK_BASE_FILEIO_H
#define CUZK_BASE_FILEIO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "base/err.h"

#define FILEIO_MAX_LINKS 40 /* symbolic links followed for an output (Linux's own limit) */

/* "a FIFO", "a directory", "a character device", ... for messages. */
const char *fileio_kind(mode_t mode);

/* Opens path for reading as the DESIGN says: *fd a blocking descriptor of a
 * regular file (close it), *st its fstat when st is not NULL.  Errors:
 * CUZK_IO naming path and the cause ("cannot open: No such file or
 * directory", "is a FIFO, expected a regular file"); on failure errno is
 * ENOENT exactly when path does not exist (callers that answer
 * CUZK_NOT_FOUND for it test errno). */
cuzk_status fileio_open_read(int *fd, struct stat *st, const char *path, cuzk_err *err);

/* The whole of the regular file path, at most cap bytes, NUL-terminated and
 * malloc'd into *text (*len bytes before the NUL).  Reads until end of file
 * rather than trusting st_size, so a file that grows is capped too.
 * Errors: fileio_open_read's (errno as it says), CUZK_FORMAT "PATH: file is
 * N bytes, over the CAP-byte limit", CUZK_NO_MEMORY, CUZK_IO. */
cuzk_status fileio_read_all(char **text, size_t *len, const char *path, size_t cap, cuzk_err *err);

/* An output being written.  fd: where to write (a new temporary, opened
 * read-write, or the device itself when direct).  Owned by the caller
 * between fileio_out_open and fileio_out_commit / fileio_out_abort. */
typedef struct {
  int fd;
  bool direct;         /* the target itself (device, FIFO): nothing to rename */
  char path[PATH_MAX]; /* the target, symbolic links followed */
  char tmp[PATH_MAX];  /* the temporary, when !direct */
} fileio_out;

enum {
  FILEIO_OUT_REGULAR = 1, /* the caller seeks and reads back: refuse devices and FIFOs */
};

/* Whether path can be written as an output (the DESIGN's refusals:
 * directory, socket, a loop of links; with FILEIO_OUT_REGULAR anything but
 * a regular file or nothing), without creating anything: for a command to
 * refuse before its work rather than after.  CUZK_IO naming path. */
cuzk_status fileio_out_check(const char *path, unsigned flags, cuzk_err *err);

/* Opens the output path (flags: FILEIO_OUT_*) as the DESIGN says.  Errors:
 * CUZK_IO naming path, what it is and the cause; nothing is left open or
 * created. */
cuzk_status fileio_out_open(fileio_out *o, const char *path, unsigned flags, cuzk_err *err);
/* Finishes the output: fsync, close and rename over the target (direct:
 * close).  On failure the temporary is removed and the target untouched. */
cuzk_status fileio_out_commit(fileio_out *o, cuzk_err *err);
/* Gives the output up: closes it and removes the temporary (a direct
 * target keeps what was written).  Safe after a failed open or commit. */
void fileio_out_abort(fileio_out *o);

/* len bytes at data written to fd whole (EINTR retried); name for messages. */
cuzk_status fileio_write_fd(int fd, const void *data, size_t len, const char *name, cuzk_err *err);
/* path's content replaced by data[0, len): open, write, commit. */
cuzk_status fileio_write(const char *path, const void *data, size_t len, cuzk_err *err);

#endif
