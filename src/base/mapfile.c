/* Read-only file mappings, safe against the file changing under them:
 * see mapfile.h. */
#include "base/mapfile.h"

#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef unsigned long long ull;

/* ------------------------------------------------------------ identity */

void file_ident_of_stat(file_ident *id, const struct stat *sb) {
  memset(id, 0, sizeof *id);
  id->dev = sb->st_dev;
  id->ino = sb->st_ino;
  id->size = (uint64_t)sb->st_size;
  id->mtime = sb->st_mtim;
  id->ctime = sb->st_ctim;
}

cuzk_status file_ident_of_fd(file_ident *id, int fd, const char *path, cuzk_err *err) {
  struct stat sb;
  if (fstat(fd, &sb) != 0)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot stat: %s", path, strerror(errno));
  file_ident_of_stat(id, &sb);
  return CUZK_OK;
}

static bool ts_eq(struct timespec a, struct timespec b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

bool file_ident_differs(const file_ident *was, const file_ident *now, char *buf, size_t n) {
  bool other = was->dev != now->dev || was->ino != now->ino;
  bool size = was->size != now->size, mod = !ts_eq(was->mtime, now->mtime);
  bool meta = !ts_eq(was->ctime, now->ctime);
  if (!other && !size && !mod && !meta)
    return false;
  if (buf && n) {
    int k = snprintf(buf, n, "%s", other ? "replaced by another file" : "");
    if (size && k >= 0 && (size_t)k < n)
      k += snprintf(buf + k, n - (size_t)k, "%ssize %llu -> %llu", k ? ", " : "",
                    (ull)was->size, (ull)now->size);
    if (!other && mod && k >= 0 && (size_t)k < n)
      k += snprintf(buf + k, n - (size_t)k, "%smodified", k ? ", " : "");
    if (!other && !mod && meta && k >= 0 && (size_t)k < n)
      snprintf(buf + k, n - (size_t)k, "%sinode changed (ctime)", k ? ", " : "");
  }
  return true;
}

/* ------------------------------------------------------------ SIGBUS */

/* The registered mappings.  A slot is free when base is 0; a thread
 * claims one by a compare-and-swap of base from 0 to MAP_CLAIMED, sets
 * len, then publishes base (release), so the handler, which reads base
 * (acquire) and then len, never sees a half-made slot.  A slot is
 * unregistered (base 0) before its mapping is unmapped.  The table is
 * fixed (no allocation in the handler's reach): a process maps a few
 * files at once (the CLI two or three, the daemon one per header read);
 * beyond MAP_SLOTS, mapfile_open fails with CUZK_EXHAUSTED. */
#define MAP_SLOTS 1024
#define MAP_CLAIMED ((uintptr_t)1)
static struct {
  _Atomic uintptr_t base;
  size_t len; /* bytes mapped, a multiple of the page size */
  atomic_bool faulted;
} slots[MAP_SLOTS];

static struct sigaction prev_bus;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;
static bool bus_ok;

/* For a fault inside a registered mapping: zero pages from the faulting
 * page to the end of the mapping (MAP_FIXED replaces the file's pages;
 * mmap is a plain system call, safe to make here), the mapping flagged,
 * and the faulting read retried on return.  Anything else goes to the
 * handler installed before, or dies by the default action. */
static void on_sigbus(int sig, siginfo_t *si, void *uctx) {
  int saved = errno;
  uintptr_t a = (uintptr_t)si->si_addr;
  for (size_t i = 0; i < MAP_SLOTS; i++) {
    uintptr_t b = atomic_load_explicit(&slots[i].base, memory_order_acquire);
    if (b <= MAP_CLAIMED || a < b || a - b >= slots[i].len)
      continue;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = a & ~(page - 1);
    void *p = mmap((void *)from, b + slots[i].len - from, PROT_READ,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) {
      atomic_store(&slots[i].faulted, true);
      errno = saved;
      return;
    }
    break;
  }
  if (prev_bus.sa_flags & SA_SIGINFO) {
    if (prev_bus.sa_sigaction) {
      prev_bus.sa_sigaction(sig, si, uctx);
      errno = saved;
      return;
    }
  } else if (prev_bus.sa_handler != SIG_DFL && prev_bus.sa_handler != SIG_IGN) {
    prev_bus.sa_handler(sig);
    errno = saved;
    return;
  }
  /* The default action: restored, the faulting read runs again and dies. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGBUS, &dfl, NULL);
  errno = saved;
}

static void bus_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  bus_ok = sigaction(SIGBUS, &sa, &prev_bus) == 0;
}

/* A free slot for [base, base + len), 1-based; 0 when the table is full. */
static unsigned slot_register(const void *base, size_t len) {
  for (size_t i = 0; i < MAP_SLOTS; i++) {
    uintptr_t zero = 0;
    if (!atomic_compare_exchange_strong(&slots[i].base, &zero, MAP_CLAIMED))
      continue;
    slots[i].len = len;
    atomic_store(&slots[i].faulted, false);
    atomic_store_explicit(&slots[i].base, (uintptr_t)base, memory_order_release);
    return (unsigned)i + 1;
  }
  return 0;
}

/* ------------------------------------------------------------ mapfile */

static size_t page_round(uint64_t n) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (size_t)((n + page - 1) & ~(uint64_t)(page - 1));
}

/* Maps the regular file open as fd (owned by m from here) of st. */
static cuzk_status map_fd(mapfile *m, int fd, const struct stat *st, cuzk_err *err) {
  const char *path = m->path;
  file_ident_of_stat(&m->id, st);
  m->size = (uint64_t)st->st_size;
  m->fd = fd;
  m->has_fd = true;
  if (m->size > 0) {
    void *p = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      mapfile_close(m);
      return cuzk_err_set(err, CUZK_IO, "%s: cannot map %llu bytes: %s", path, (ull)m->size,
                          strerror(e));
    }
    m->data = p;
    if (!(m->slot = slot_register(p, page_round(m->size)))) {
      mapfile_close(m);
      return cuzk_err_set(err, CUZK_EXHAUSTED, "%s: more than %d files mapped at once", path,
                          MAP_SLOTS);
    }
    madvise(p, (size_t)m->size, MADV_WILLNEED);
  }
  return CUZK_OK;
}

cuzk_status mapfile_open(mapfile *m, const char *path, cuzk_err *err) {
  memset(m, 0, sizeof *m);
  snprintf(m->path, sizeof m->path, "%s", path);
  pthread_once(&bus_once, bus_install);
  if (!bus_ok)
    return cuzk_err_set(err, CUZK_INTERNAL, "%s: cannot install the SIGBUS handler", path);
  int fd;
  struct stat st;
  CUZK_TRY(fileio_open_read(&fd, &st, path, err)); /* a regular file; a FIFO does not block */
  return map_fd(m, fd, &st, err);
}

cuzk_status mapfile_open_fd(mapfile *m, int fd, const char *name, cuzk_err *err) {
  memset(m, 0, sizeof *m);
  snprintf(m->path, sizeof m->path, "%s", name);
  pthread_once(&bus_once, bus_install);
  if (!bus_ok)
    return cuzk_err_set(err, CUZK_INTERNAL, "%s: cannot install the SIGBUS handler", name);
  struct stat st;
  if (fstat(fd, &st) != 0)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot stat: %s", name, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return cuzk_err_set(err, CUZK_IO, "%s: is %s, expected a regular file", name,
                        fileio_kind(st.st_mode));
  int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (own < 0)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot duplicate its descriptor: %s", name,
                        strerror(errno));
  return map_fd(m, own, &st, err);
}

void mapfile_close(mapfile *m) {
  if (m->slot)
    atomic_store(&slots[m->slot - 1].base, 0);
  if (m->data)
    munmap((void *)m->data, (size_t)m->size);
  if (m->has_fd)
    close(m->fd);
  m->data = NULL;
  m->size = 0;
  m->slot = 0;
  m->has_fd = false;
}

bool mapfile_faulted(const mapfile *m) {
  return m->slot && atomic_load(&slots[m->slot - 1].faulted);
}

cuzk_status mapfile_check(const mapfile *m, cuzk_err *err) {
  if (!m->has_fd)
    return CUZK_OK;
  struct stat sb;
  char what[160] = "";
  if (fstat(m->fd, &sb) != 0) {
    snprintf(what, sizeof what, "cannot stat it again: %s", strerror(errno));
  } else {
    file_ident now;
    file_ident_of_stat(&now, &sb);
    /* Unlinked (replaced by a rename, or removed): its link count changed
     * its ctime, but not its bytes, which the mapping still reads; size
     * and mtime still tell a write. */
    if (sb.st_nlink == 0)
      now.ctime = m->id.ctime;
    file_ident_differs(&m->id, &now, what, sizeof what);
  }
  bool faulted = mapfile_faulted(m);
  if (!faulted && !*what)
    return CUZK_OK;
  return cuzk_err_set(err, CUZK_IO, "%s changed while being read (%s%s%s)", m->path,
                      faulted ? "truncated: read past its new end" : "",
                      faulted && *what ? "; " : "", what);
}
