/* base/fileio: the input opener (regular files only, never blocking on a
 * FIFO) and the output writer (exclusive temporary + rename; devices and
 * FIFOs written in place; links followed; nothing left behind on error). */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/fileio.h"

static char dir[64];

/* A fresh scratch directory per test (each runs in its own process). */
static void scratch(void) {
  snprintf(dir, sizeof dir, "/tmp/cuzk_test_fileio_XXXXXX");
  CHECK(mkdtemp(dir) != NULL);
}

static const char *at(const char *name) {
  static char buf[4][PATH_MAX];
  static int k;
  char *b = buf[k++ & 3];
  snprintf(b, PATH_MAX, "%s/%s", dir, name);
  return b;
}

static void spit(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  CHECK(fputs(text, f) >= 0);
  CHECK(fclose(f) == 0);
}

/* path's content (small files; the buffer is reused by the next call). */
static const char *slurp(const char *path) {
  static char *last;
  free(last);
  last = test_read_file(path, NULL);
  CHECK_MSG(last != NULL, "cannot open %s", path);
  return last;
}

static void done(void) {
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
}

/* ------------------------------------------------------------ inputs */

TEST_TIMEOUT(open_read_kinds, 10) { /* a blocking open of the FIFO would hang */
  scratch();
  cuzk_err e = {0};
  int fd;
  struct stat st;
  char want[PATH_MAX + 64];

  spit(at("f"), "abc");
  CHECK_EQ_INT(fileio_open_read(&fd, &st, at("f"), &e), CUZK_OK);
  CHECK(S_ISREG(st.st_mode) && st.st_size == 3);
  CHECK_EQ_INT(fcntl(fd, F_GETFL) & O_NONBLOCK, 0); /* reads block as usual */
  CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  close(fd);

  CHECK(mkfifo(at("fifo"), 0600) == 0);
  CHECK_EQ_INT(fileio_open_read(&fd, NULL, at("fifo"), &e), CUZK_IO);
  CHECK_EQ_INT(fd, -1);
  snprintf(want, sizeof want, "%s: is a FIFO, expected a regular file", at("fifo"));
  CHECK_EQ_STR(e.msg, want);

  CHECK_EQ_INT(fileio_open_read(&fd, NULL, dir, &e), CUZK_IO);
  snprintf(want, sizeof want, "%s: is a directory, expected a regular file", dir);
  CHECK_EQ_STR(e.msg, want);
  CHECK_EQ_INT(fileio_open_read(&fd, NULL, "/dev/null", &e), CUZK_IO);
  CHECK_EQ_STR(e.msg, "/dev/null: is a character device, expected a regular file");
  CHECK(errno != ENOENT);

  CHECK_EQ_INT(fileio_open_read(&fd, NULL, at("none"), &e), CUZK_IO);
  CHECK_EQ_INT(errno, ENOENT); /* the contract toml_read_file's NOT_FOUND relies on */
  snprintf(want, sizeof want, "%s: cannot open: No such file or directory", at("none"));
  CHECK_EQ_STR(e.msg, want);
  done();
}

TEST(read_all_caps) {
  scratch();
  cuzk_err e = {0};
  char *text;
  size_t len;
  spit(at("f"), "0123456789");
  CHECK_EQ_INT(fileio_read_all(&text, &len, at("f"), 10, &e), CUZK_OK);
  CHECK_EQ_INT(len, 10);
  CHECK_EQ_STR(text, "0123456789");
  free(text);
  CHECK_EQ_INT(fileio_read_all(&text, &len, at("f"), 9, &e), CUZK_FORMAT);
  CHECK(text == NULL && len == 0);
  char want[PATH_MAX + 64];
  snprintf(want, sizeof want, "%s: file is 10 bytes, over the 9-byte limit", at("f"));
  CHECK_EQ_STR(e.msg, want);
  spit(at("empty"), "");
  CHECK_EQ_INT(fileio_read_all(&text, &len, at("empty"), 9, &e), CUZK_OK);
  CHECK(len == 0 && text && text[0] == 0);
  free(text);
  done();
}

/* ------------------------------------------------------------ outputs */

TEST(write_new_and_replace) {
  scratch();
  cuzk_err e = {0};
  mode_t old = umask(027);
  CHECK_EQ_INT(fileio_write(at("new"), "one", 3, &e), CUZK_OK);
  struct stat st;
  CHECK(lstat(at("new"), &st) == 0);
  CHECK_EQ_INT(st.st_mode & 0777, 0640); /* 0644 less the umask */
  CHECK_EQ_STR(slurp(at("new")), "one");
  CHECK(chmod(at("new"), 0604) == 0);
  CHECK_EQ_INT(fileio_write(at("new"), "two!", 4, &e), CUZK_OK);
  CHECK(lstat(at("new"), &st) == 0);
  CHECK_EQ_INT(st.st_mode & 0777, 0604); /* the old file's bits, not the umask's */
  CHECK_EQ_STR(slurp(at("new")), "two!");
  umask(old);
  CHECK_EQ_INT(test_dir_entries(dir), 1);
  /* a relative name, in the current directory */
  CHECK(chdir(dir) == 0);
  CHECK_EQ_INT(fileio_write("rel", "r", 1, &e), CUZK_OK);
  CHECK_EQ_STR(slurp(at("rel")), "r");
  CHECK_EQ_INT(test_dir_entries(dir), 2);
  done();
}

TEST(planted_names_not_followed) {
  scratch();
  cuzk_err e = {0};
  spit(at("victim"), "victim");
  CHECK(symlink(at("victim"), at("out.tmp")) == 0);
  CHECK(symlink(at("victim"), at(".out.tmp")) == 0);
  CHECK_EQ_INT(fileio_write(at("out"), "proof", 5, &e), CUZK_OK);
  CHECK_EQ_STR(slurp(at("victim")), "victim");
  CHECK_EQ_STR(slurp(at("out")), "proof");
  struct stat st;
  CHECK(lstat(at("out"), &st) == 0 && S_ISREG(st.st_mode));
  CHECK_EQ_INT(test_dir_entries(dir), 4); /* victim, the two links, out */
  done();
}

TEST(links_followed) {
  scratch();
  cuzk_err e = {0};
  CHECK(mkdir(at("sub"), 0755) == 0);
  spit(at("sub/target"), "old");
  /* two hops: a -> sub/b (relative to a's directory), sub/b -> target
   * (relative to sub) */
  CHECK(symlink("sub/b", at("a")) == 0);
  CHECK(symlink("target", at("sub/b")) == 0);
  CHECK_EQ_INT(fileio_write(at("a"), "new", 3, &e), CUZK_OK);
  CHECK_EQ_STR(slurp(at("sub/target")), "new");
  char l[PATH_MAX];
  ssize_t n = readlink(at("a"), l, sizeof l - 1);
  CHECK(n == 5 && !memcmp(l, "sub/b", 5));
  CHECK_EQ_INT(test_dir_entries(dir), 2);
  CHECK_EQ_INT(test_dir_entries(at("sub")), 2);
  /* a dangling link names the file to create */
  CHECK(symlink(at("sub/made"), at("dangling")) == 0);
  CHECK_EQ_INT(fileio_write(at("dangling"), "made", 4, &e), CUZK_OK);
  CHECK_EQ_STR(slurp(at("sub/made")), "made");
  struct stat st;
  CHECK(lstat(at("dangling"), &st) == 0 && S_ISLNK(st.st_mode));
  /* a loop is refused, not followed for ever */
  CHECK(symlink("loop2", at("loop1")) == 0);
  CHECK(symlink("loop1", at("loop2")) == 0);
  CHECK_EQ_INT(fileio_write(at("loop1"), "x", 1, &e), CUZK_IO);
  CHECK_MSG(strstr(e.msg, "symbolic link"), "%s", e.msg);
  CHECK(lstat(at("loop1"), &st) == 0 && S_ISLNK(st.st_mode));
  done();
}

TEST(protected_symlink_rule) {
  if (geteuid() != 0)
    TEST_SKIP("needs root to give a link another owner");
  scratch();
  cuzk_err e = {0};
  CHECK(mkdir(at("sticky"), 0777) == 0 && chmod(at("sticky"), 01777) == 0);
  spit(at("victim"), "victim");
  CHECK(symlink(at("victim"), at("sticky/out.json")) == 0);
  CHECK(lchown(at("sticky/out.json"), 12345, 12345) == 0); /* planted by another user */
  CHECK_EQ_INT(fileio_write(at("sticky/out.json"), "proof", 5, &e), CUZK_IO);
  CHECK_MSG(strstr(e.msg, "sticky world-writable directory"), "%s", e.msg);
  CHECK_EQ_STR(slurp(at("victim")), "victim");
  CHECK_EQ_INT(test_dir_entries(at("sticky")), 1);
  /* the same link owned by us is followed */
  CHECK(lchown(at("sticky/out.json"), 0, 0) == 0);
  CHECK_EQ_INT(fileio_write(at("sticky/out.json"), "proof", 5, &e), CUZK_OK);
  CHECK_EQ_STR(slurp(at("victim")), "proof");
  done();
}

TEST_TIMEOUT(devices_and_fifos_in_place, 10) {
  scratch();
  cuzk_err e = {0};
  struct stat before, after;
  CHECK(stat("/dev/null", &before) == 0 && S_ISCHR(before.st_mode));
  /* through a link, so that a writer that replaced its output would
   * replace the link, never the device */
  CHECK(symlink("/dev/null", at("null")) == 0);
  CHECK_EQ_INT(fileio_write(at("null"), "x", 1, &e), CUZK_OK);
  CHECK(lstat(at("null"), &after) == 0 && S_ISLNK(after.st_mode));
  CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev &&
        after.st_ino == before.st_ino);
  CHECK_EQ_INT(test_dir_entries(dir), 1);
  /* a seeking writer refuses a device */
  fileio_out o;
  CHECK_EQ_INT(fileio_out_open(&o, at("null"), FILEIO_OUT_REGULAR, &e), CUZK_IO);
  CHECK_MSG(strstr(e.msg, "is a character device, expected a regular file"), "%s", e.msg);

  /* a FIFO with a reader: written into, still a FIFO, nothing created */
  CHECK(mkfifo(at("fifo"), 0600) == 0);
  int rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
  CHECK(rd >= 0);
  CHECK_EQ_INT(fileio_write(at("fifo"), "piped", 5, &e), CUZK_OK);
  char buf[16] = {0};
  CHECK_EQ_INT(read(rd, buf, sizeof buf), 5);
  CHECK_EQ_STR(buf, "piped");
  close(rd);
  CHECK(lstat(at("fifo"), &after) == 0 && S_ISFIFO(after.st_mode));
  CHECK_EQ_INT(test_dir_entries(dir), 2);
  done();
}

TEST(refusals) {
  scratch();
  cuzk_err e = {0};
  char want[PATH_MAX + 64];
  CHECK_EQ_INT(fileio_write(dir, "x", 1, &e), CUZK_IO);
  snprintf(want, sizeof want, "%s: is a directory, expected a file or device to write", dir);
  CHECK_EQ_STR(e.msg, want);
  CHECK_EQ_INT(fileio_out_check(dir, 0, &e), CUZK_IO);
  CHECK_EQ_STR(e.msg, want);
  CHECK_EQ_INT(fileio_write(at("nodir/"), "x", 1, &e), CUZK_IO);
  CHECK_MSG(strstr(e.msg, "names a directory"), "%s", e.msg);
  CHECK_EQ_INT(fileio_write("", "x", 1, &e), CUZK_IO);
  /* a socket */
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", at("sock"));
  CHECK(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0);
  CHECK_EQ_INT(fileio_write(at("sock"), "x", 1, &e), CUZK_IO);
  CHECK_MSG(strstr(e.msg, "is a socket"), "%s", e.msg);
  close(s);
  /* a missing directory: the temporary cannot be made; nothing is left */
  CHECK_EQ_INT(fileio_write(at("no/such/file"), "x", 1, &e), CUZK_IO);
  CHECK_MSG(strstr(e.msg, "cannot create a temporary file in"), "%s", e.msg);
  CHECK_EQ_INT(test_dir_entries(dir), 1);
  CHECK_EQ_INT(fileio_out_check(at("fine"), 0, &e), CUZK_OK);
  CHECK_EQ_INT(test_dir_entries(dir), 1); /* the check creates nothing */
  done();
}

TEST(nothing_left_on_error) {
  scratch();
  cuzk_err e = {0};
  spit(at("out"), "old");
  /* given up: the temporary goes, the target is as it was */
  fileio_out o;
  CHECK_EQ_INT(fileio_out_open(&o, at("out"), 0, &e), CUZK_OK);
  CHECK_EQ_INT(fileio_write_fd(o.fd, "partial", 7, o.tmp, &e), CUZK_OK);
  CHECK_EQ_INT(test_dir_entries(dir), 2);
  fileio_out_abort(&o);
  CHECK_EQ_INT(test_dir_entries(dir), 1);
  CHECK_EQ_STR(slurp(at("out")), "old");
  fileio_out_abort(&o); /* twice is harmless */
  /* a rename that fails (the target became a non-empty directory): an
   * error naming it, the temporary removed */
  CHECK(unlink(at("out")) == 0);
  CHECK_EQ_INT(fileio_out_open(&o, at("out"), 0, &e), CUZK_OK);
  CHECK(mkdir(at("out"), 0755) == 0);
  spit(at("out/x"), "x");
  CHECK_EQ_INT(fileio_out_commit(&o, &e), CUZK_IO);
  CHECK_MSG(strstr(e.msg, "cannot rename"), "%s", e.msg);
  CHECK_EQ_INT(test_dir_entries(dir), 1);
  CHECK_EQ_INT(test_dir_entries(at("out")), 1);
  done();
}
