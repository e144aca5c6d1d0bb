/* Read-only file mappings.
 *
 * DESIGN: input files (keys, witnesses, circuits) are mapped, never read
 * whole into the heap; readers index into the mapping with 64-bit offsets and
 * bounds-check every access against `size`.  The mapping lives until
 * mapfile_close.  An empty file is valid (data = NULL, size = 0).
 *
 * Files that change under the mapping: a file truncated while mapped would
 * raise SIGBUS on the first read past its new end.  mapfile_open registers
 * every mapping in a process-wide table and installs (once) a SIGBUS
 * handler that, for a fault inside a registered mapping, replaces the rest
 * of that mapping (from the faulting page to its end) with zero pages and
 * flags the mapping; the read then goes on and sees zeros, and the owner
 * learns of it from mapfile_check, which also compares the open file's
 * identity (inode, size, mtime, ctime: fstat of the descriptor kept open)
 * with the one at open, so a file rewritten in place is caught too (the
 * ctime of a file unlinked since - replaced by a rename, or removed - is
 * not compared: unlinking changed it, not a write).  So a
 * reader of a mapping never faults, but what it read is only trusted when
 * mapfile_check passes after the last read: every result derived from a
 * mapped file (a proof, a verification key) is checked so before it is
 * written.  A fault outside every registered mapping goes to the handler
 * that was installed before (or the default action: the process dies as it
 * would have).  A process that must own its bytes whatever happens to the
 * file (the daemon's keys) reads them into its own memory instead.
 *
 * Only regular files are mapped: the file is opened O_NONBLOCK, so that a
 * FIFO or a device is refused at once (CUZK_IO, "not a regular file")
 * instead of blocking the open. */
#ifndef CUZK_BASE_MAPFILE_H
#define CUZK_BASE_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "base/err.h"

/* What identifies the contents of an open file: a change of any field
 * means the file was replaced, resized, written or had its inode changed
 * (ctime cannot be set back by a user, unlike mtime). */
typedef struct {
  dev_t dev;
  ino_t ino;
  uint64_t size;
  struct timespec mtime, ctime;
} file_ident;

typedef struct {
  const uint8_t *data;
  uint64_t size;
  char path[256];
  int fd;         /* kept open for mapfile_check's fstat; valid when has_fd */
  bool has_fd;
  unsigned slot;  /* 1 + index in the SIGBUS table, 0 when not registered */
  file_ident id;  /* at open */
} mapfile;

cuzk_status mapfile_open(mapfile *m, const char *path, cuzk_err *err);
/* The same for a file the caller opened (fd stays the caller's: the
 * mapping keeps a duplicate); name stands for its path in messages. */
cuzk_status mapfile_open_fd(mapfile *m, int fd, const char *name, cuzk_err *err);
void mapfile_close(mapfile *m);

/* Whether a read of the mapping faulted past the file's end (the rest of
 * the mapping now reads as zeros).  False for a mapfile never opened. */
bool mapfile_faulted(const mapfile *m);
/* CUZK_OK when the file is as it was at open and no read faulted; else
 * CUZK_IO "PATH changed while being read (what changed)".  A mapfile
 * never opened (a borrowed buffer) always passes. */
cuzk_status mapfile_check(const mapfile *m, cuzk_err *err);

/* The identity of the open file fd (CUZK_IO naming path on failure). */
cuzk_status file_ident_of_fd(file_ident *id, int fd, const char *path, cuzk_err *err);
void file_ident_of_stat(file_ident *id, const struct stat *sb);
/* Whether a and b differ; when they do and buf is not NULL, a short text
 * of what changed ("size 1000 -> 800, modified") into buf. */
bool file_ident_differs(const file_ident *was, const file_ident *now, char *buf, size_t n);

#endif
