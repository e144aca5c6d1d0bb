/* Opening named inputs and replacing named outputs (fileio.h). */
#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

const char *fileio_kind(mode_t mode) {
  if (S_ISREG(mode))
    return "a regular file";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISLNK(mode))
    return "a symbolic link";
  return "a file of unknown type";
}

/* Sets err for a failed call whose errno is e, and leaves errno = e (the
 * formatting may change it; fileio_open_read's contract needs it). */
static cuzk_status fail_errno(cuzk_err *err, int e, const char *path, const char *what) {
  cuzk_err_set(err, CUZK_IO, "%s: %s: %s", path, what, strerror(e));
  errno = e;
  return CUZK_IO;
}

cuzk_status fileio_open_read(int *fd, struct stat *st, const char *path, cuzk_err *err) {
  *fd = -1;
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (f < 0)
    return fail_errno(err, errno, path, "cannot open");
  struct stat sb;
  if (fstat(f, &sb) != 0) {
    int e = errno;
    close(f);
    return fail_errno(err, e, path, "cannot stat");
  }
  if (!S_ISREG(sb.st_mode)) {
    close(f);
    cuzk_err_set(err, CUZK_IO, "%s: is %s, expected a regular file", path, fileio_kind(sb.st_mode));
    errno = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
    return CUZK_IO;
  }
  int fl = fcntl(f, F_GETFL);
  if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    int e = errno;
    close(f);
    return fail_errno(err, e, path, "cannot clear O_NONBLOCK");
  }
  if (st)
    *st = sb;
  *fd = f;
  return CUZK_OK;
}

cuzk_status fileio_read_all(char **text, size_t *len, const char *path, size_t cap, cuzk_err *err) {
  *text = NULL;
  *len = 0;
  int fd;
  struct stat st;
  CUZK_TRY(fileio_open_read(&fd, &st, path, err));
  if ((uintmax_t)st.st_size > cap) {
    close(fd);
    return cuzk_err_set(err, CUZK_FORMAT, "%s: file is %jd bytes, over the %zu-byte limit", path,
                        (intmax_t)st.st_size, cap);
  }
  /* Room for st_size bytes, and one more to see a file that grew; the
   * buffer grows up to cap + 1 bytes (then the file is over the cap). */
  size_t alloc = (size_t)st.st_size + 1, have = 0;
  char *buf = malloc(alloc + 1);
  cuzk_status s = CUZK_OK;
  while (buf) {
    if (have == alloc) {
      if (alloc > cap)
        break;
      size_t ns = alloc > cap / 2 ? cap + 1 : 2 * alloc;
      char *nb = realloc(buf, ns + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb, alloc = ns;
    }
    ssize_t r = read(fd, buf + have, alloc - have);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      s = cuzk_err_set(err, CUZK_IO, "%s: read failed at offset %zu: %s", path, have, strerror(errno));
      break;
    }
    if (r == 0)
      break;
    have += (size_t)r;
  }
  close(fd);
  if (!buf)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: out of memory reading %jd bytes", path,
                        (intmax_t)st.st_size);
  if (s == CUZK_OK && have > cap)
    s = cuzk_err_set(err, CUZK_FORMAT, "%s: file is over the %zu-byte limit", path, cap);
  if (s != CUZK_OK) {
    free(buf);
    return s;
  }
  buf[have] = 0;
  *text = buf;
  *len = have;
  return CUZK_OK;
}

/* ------------------------------------------------------------ outputs */

/* The length of path's directory part including its last '/' (0: none). */
static size_t dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) + 1 : 0;
}

/* Whether the kernel's fs.protected_symlinks would refuse to follow the
 * link (status lnk) in the directory of path: the directory is sticky and
 * world-writable, and the link is owned by neither us nor the directory's
 * owner. */
static bool link_protected(const char *path, const struct stat *lnk) {
  char dir[PATH_MAX];
  size_t n = dir_len(path);
  snprintf(dir, sizeof dir, "%.*s", n ? (int)n : 1, n ? path : ".");
  struct stat d;
  return stat(dir, &d) == 0 && (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH) &&
         lnk->st_uid != d.st_uid && lnk->st_uid != geteuid();
}

/* What writing path writes, into out (PATH_MAX): path, or the final target
 * of the symbolic links it is.  *exists: something (not a link) is there,
 * its lstat in *st. */
static cuzk_status out_resolve(char *out, struct stat *st, bool *exists, const char *path,
                               cuzk_err *err) {
  if (!*path)
    return cuzk_err_set(err, CUZK_IO, "an empty output path");
  if (snprintf(out, PATH_MAX, "%s", path) >= PATH_MAX)
    return cuzk_err_set(err, CUZK_IO, "%s: path too long", path);
  for (int hops = 0;; hops++) {
    if (lstat(out, st) != 0) {
      if (errno != ENOENT)
        return fail_errno(err, errno, path, "cannot stat");
      *exists = false;
      break;
    }
    if (!S_ISLNK(st->st_mode)) {
      *exists = true;
      break;
    }
    if (hops == FILEIO_MAX_LINKS)
      return cuzk_err_set(err, CUZK_IO, "%s: more than %d symbolic links to follow", path,
                          FILEIO_MAX_LINKS);
    if (link_protected(out, st))
      return cuzk_err_set(err, CUZK_IO,
                          "%s: %s is a symbolic link in a sticky world-writable directory, owned by "
                          "another user: not followed",
                          path, out);
    char to[PATH_MAX];
    ssize_t n = readlink(out, to, sizeof to - 1);
    if (n < 0)
      return fail_errno(err, errno, path, "cannot read the symbolic link");
    to[n] = 0;
    size_t d = to[0] == '/' ? 0 : dir_len(out); /* a relative link is relative to its directory */
    if (d + (size_t)n >= PATH_MAX)
      return cuzk_err_set(err, CUZK_IO, "%s: the link's target is too long a path", path);
    memmove(out + d, to, (size_t)n + 1);
  }
  const char *base = out + dir_len(out);
  if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
    return cuzk_err_set(err, CUZK_IO, "%s: names a directory, expected a file to write", path);
  return CUZK_OK;
}

static cuzk_status refuse_kind(cuzk_err *err, const char *path, mode_t mode, unsigned flags) {
  return cuzk_err_set(err, CUZK_IO, "%s: is %s, expected %s to write", path, fileio_kind(mode),
                      flags & FILEIO_OUT_REGULAR ? "a regular file" : "a file or device");
}

/* Where writing path goes: *direct, a device or FIFO to open as path (the
 * kernel follows the links, with its own protections and /proc's magic
 * links such as /dev/stdout -> /proc/self/fd/1 -> pipe:[N]); else
 * resolved (PATH_MAX) is the regular file or the nothing to replace,
 * *exists and *st saying which.  Refusals as the DESIGN says. */
static cuzk_status out_target(char *resolved, struct stat *st, bool *exists, bool *direct,
                              const char *path, unsigned flags, cuzk_err *err) {
  *direct = false;
  if (stat(path, st) == 0 && !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
    if (S_ISSOCK(st->st_mode) || (flags & FILEIO_OUT_REGULAR))
      return refuse_kind(err, path, st->st_mode, flags);
    *direct = *exists = true;
    return CUZK_OK;
  }
  CUZK_TRY(out_resolve(resolved, st, exists, path, err));
  if (*exists && !S_ISREG(st->st_mode)) /* a directory, or changed since the stat */
    return refuse_kind(err, path, st->st_mode, flags);
  return CUZK_OK;
}

cuzk_status fileio_out_check(const char *path, unsigned flags, cuzk_err *err) {
  char resolved[PATH_MAX];
  struct stat st;
  bool exists, direct;
  return out_target(resolved, &st, &exists, &direct, path, flags, err);
}

/* 48 bits for a temporary's name: getrandom's, else (no entropy yet at
 * boot) the clock's and the process's, which O_EXCL makes safe anyway. */
static uint64_t name_bits(unsigned attempt) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 32) ^ attempt;
  }
  return v & 0xffffffffffffULL;
}

cuzk_status fileio_out_open(fileio_out *o, const char *path, unsigned flags, cuzk_err *err) {
  o->fd = -1;
  o->direct = false;
  o->path[0] = o->tmp[0] = 0;
  struct stat st;
  bool exists, direct;
  CUZK_TRY(out_target(o->path, &st, &exists, &direct, path, flags, err));
  if (direct) {
    /* Written in place; whatever is there now must still be no regular
     * file (one swapped in would be written without truncation). */
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
      return fail_errno(err, errno, path, "cannot open");
    struct stat now;
    if (fstat(fd, &now) != 0 || S_ISREG(now.st_mode) || S_ISDIR(now.st_mode)) {
      close(fd);
      return cuzk_err_set(err, CUZK_IO, "%s: changed while being opened; not written", path);
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    o->fd = fd;
    o->direct = true;
    return CUZK_OK;
  }
  const char *base = o->path + dir_len(o->path);
  size_t d = dir_len(o->path);
  for (unsigned attempt = 0; attempt < 100; attempt++) {
    /* ".NAME.XXXXXXXXXXXX": the name cut to leave room within NAME_MAX. */
    if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%.200s.%012llx", (int)d, o->path, base,
                 (unsigned long long)name_bits(attempt)) >= (int)sizeof o->tmp)
      return cuzk_err_set(err, CUZK_IO, "%s: path too long", path);
    int fd = open(o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exists ? 0600 : 0644);
    if (fd < 0 && errno == EEXIST)
      continue;
    if (fd < 0) {
      int e = errno;
      char dir[PATH_MAX];
      snprintf(dir, sizeof dir, "%.*s", d ? (int)d : 1, d ? o->path : ".");
      o->tmp[0] = 0;
      cuzk_err_set(err, CUZK_IO, "%s: cannot create a temporary file in %s: %s", path, dir, strerror(e));
      return CUZK_IO;
    }
    o->fd = fd;
    /* The old file's permission bits, exactly (the umask applied to a new
     * file only, through open's mode). */
    if (exists && fchmod(fd, st.st_mode & 0777) != 0) {
      int e = errno;
      fileio_out_abort(o);
      return fail_errno(err, e, path, "cannot set the mode of the new file");
    }
    return CUZK_OK;
  }
  o->tmp[0] = 0;
  return cuzk_err_set(err, CUZK_IO, "%s: cannot create a temporary file: 100 names taken", path);
}

void fileio_out_abort(fileio_out *o) {
  if (o->fd >= 0)
    close(o->fd);
  o->fd = -1;
  if (!o->direct && o->tmp[0])
    unlink(o->tmp);
  o->tmp[0] = 0;
}

cuzk_status fileio_out_commit(fileio_out *o, cuzk_err *err) {
  int fd = o->fd;
  o->fd = -1;
  if (o->direct)
    return close(fd) == 0 ? CUZK_OK : fail_errno(err, errno, o->path, "write failed at close");
  cuzk_status s = CUZK_OK;
  if (fsync(fd) != 0)
    s = fail_errno(err, errno, o->path, "write failed at fsync");
  if (close(fd) != 0 && s == CUZK_OK)
    s = fail_errno(err, errno, o->path, "write failed at close");
  if (s == CUZK_OK && rename(o->tmp, o->path) != 0) {
    int e = errno;
    cuzk_err_set(err, CUZK_IO, "%s: cannot rename %s over it: %s", o->path, o->tmp, strerror(e));
    s = CUZK_IO;
  }
  if (s != CUZK_OK) {
    fileio_out_abort(o);
    return s;
  }
  o->tmp[0] = 0;
  /* The rename itself made durable: best effort, since the content is
   * already on disk and some filesystems refuse fsync on a directory. */
  char dir[PATH_MAX];
  size_t d = dir_len(o->path);
  snprintf(dir, sizeof dir, "%.*s", d ? (int)d : 1, d ? o->path : ".");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
  return CUZK_OK;
}

cuzk_status fileio_write_fd(int fd, const void *data, size_t len, const char *name, cuzk_err *err) {
  const char *p = data;
  for (size_t done = 0; done < len;) {
    ssize_t r = write(fd, p + done, len - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return cuzk_err_set(err, CUZK_IO, "%s: write failed at offset %zu: %s", name, done,
                          r < 0 ? strerror(errno) : "no progress");
    done += (size_t)r;
  }
  return CUZK_OK;
}

cuzk_status fileio_write(const char *path, const void *data, size_t len, cuzk_err *err) {
  fileio_out o;
  CUZK_TRY(fileio_out_open(&o, path, 0, err));
  cuzk_status s = fileio_write_fd(o.fd, data, len, path, err);
  if (s != CUZK_OK) {
    fileio_out_abort(&o);
    return s;
  }
  return fileio_out_commit(&o, err);
}
