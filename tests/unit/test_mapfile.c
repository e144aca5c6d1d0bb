/* Mapped input files that change under their readers (base/mapfile.h):
 * a file truncated while mapped reads as zeros past its new end instead
 * of raising SIGBUS, and mapfile_check reports the truncation and a
 * rewrite in place; a fault outside every registered mapping still gets
 * the default action; a FIFO, a directory or a device is refused at once,
 * without blocking.  And the CLI's path through the prover (cmd_prove.c:
 * zkey_open, prove, zkey_check_unchanged before anything is written) with
 * the key truncated after it was opened: no fault, and the change is
 * reported. */
#include "harness.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "base/mapfile.h"
#include "groth16/keygen.h"
#include "groth16/prove.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

/* A temporary directory and a file of `pages` pages of a byte pattern in
 * it; both removed by tmp_free. */
typedef struct {
  char dir[64], path[128];
  size_t len;
} tmp;

static void tmp_make(tmp *t, size_t pages) {
  snprintf(t->dir, sizeof t->dir, "/tmp/cuzk-mapfile-XXXXXX");
  CHECK(mkdtemp(t->dir));
  snprintf(t->path, sizeof t->path, "%s/f", t->dir);
  t->len = pages * (size_t)sysconf(_SC_PAGESIZE);
  uint8_t *b = malloc(t->len);
  CHECK(b);
  for (size_t i = 0; i < t->len; i++) b[i] = (uint8_t)(i * 7 + 1) | 1; /* never 0 */
  FILE *f = fopen(t->path, "wb");
  CHECK(f && fwrite(b, 1, t->len, f) == t->len && fclose(f) == 0);
  free(b);
}

/* tmp_make, and m mapping the file. */
static void tmp_map(tmp *t, size_t pages, mapfile *m) {
  tmp_make(t, pages);
  cuzk_err err = {0};
  CHECK_MSG(mapfile_open(m, t->path, &err) == CUZK_OK, "%s", err.msg);
}

static void tmp_free(tmp *t) {
  unlink(t->path);
  CHECK(rmdir(t->dir) == 0);
}

/* More than a timestamp tick, so that a change after it shows in mtime. */
static void pause_tick(void) {
  struct timespec ts = {0, 20 * 1000000};
  nanosleep(&ts, NULL);
}

TEST(mapfile_unchanged_passes) {
  tmp t;
  mapfile m;
  tmp_map(&t, 3, &m);
  cuzk_err err = {0};
  CHECK_EQ_INT(m.size, t.len);
  unsigned sum = 0;
  for (size_t i = 0; i < m.size; i++) sum += m.data[i];
  CHECK(sum > 0);
  CHECK(!mapfile_faulted(&m));
  CHECK_MSG(mapfile_check(&m, &err) == CUZK_OK, "%s", err.msg);
  mapfile_close(&m);
  tmp_free(&t);
}

/* Truncated to a page and a half after the open: every byte can still be
 * read (the ones past the new end as zeros), and the check names the file
 * and the truncation.  Before the SIGBUS handler, the first read past the
 * new end killed the process. */
TEST_TIMEOUT(mapfile_truncated_under_the_map_reads_zeros, 30) {
  tmp t;
  mapfile m;
  tmp_map(&t, 6, &m);
  cuzk_err err = {0};
  size_t page = (size_t)sysconf(_SC_PAGESIZE), keep = page + page / 2;
  CHECK(m.data[0] != 0); /* the first page is in before the truncation */
  pause_tick();
  CHECK(truncate(t.path, (off_t)keep) == 0);
  size_t zeros = 0;
  for (size_t i = 0; i < m.size; i++) zeros += m.data[i] == 0;
  CHECK_MSG(zeros >= m.size - 2 * page, "%zu zero bytes of %llu", zeros,
            (unsigned long long)m.size);
  CHECK(m.data[0] != 0);
  CHECK(mapfile_faulted(&m));
  CHECK(mapfile_check(&m, &err) == CUZK_IO);
  printf("  %s\n", err.msg);
  CHECK_MSG(strstr(err.msg, t.path) && strstr(err.msg, "changed while being read") &&
                strstr(err.msg, "truncated"),
            "%s", err.msg);
  mapfile_close(&m);
  /* The table slot is free again: a new map of the file is clean. */
  CHECK(mapfile_open(&m, t.path, &err) == CUZK_OK);
  CHECK(!mapfile_faulted(&m) && mapfile_check(&m, &err) == CUZK_OK);
  mapfile_close(&m);
  tmp_free(&t);
}

/* Rewritten in place (same size, same inode): no fault, but the check
 * says the file was modified. */
TEST(mapfile_rewritten_in_place_is_reported) {
  tmp t;
  mapfile m;
  tmp_map(&t, 2, &m);
  cuzk_err err = {0};
  pause_tick();
  int fd = open(t.path, O_WRONLY | O_CLOEXEC);
  CHECK(fd >= 0 && pwrite(fd, "x", 1, 100) == 1 && close(fd) == 0);
  CHECK(!mapfile_faulted(&m));
  CHECK(mapfile_check(&m, &err) == CUZK_IO);
  CHECK_MSG(strstr(err.msg, "changed while being read (modified)"), "%s", err.msg);
  mapfile_close(&m);
  tmp_free(&t);
}

/* A file replaced by rename after the open is not a change of the file
 * mapped (the mapping holds the old inode, which is unchanged). */
TEST(mapfile_replaced_by_rename_keeps_the_old_file) {
  tmp t;
  mapfile m;
  tmp_map(&t, 1, &m);
  cuzk_err err = {0};
  char other[160];
  snprintf(other, sizeof other, "%s/g", t.dir);
  FILE *f = fopen(other, "wb");
  CHECK(f && fputs("new", f) >= 0 && fclose(f) == 0);
  CHECK(rename(other, t.path) == 0);
  CHECK_MSG(mapfile_check(&m, &err) == CUZK_OK, "%s", err.msg);
  mapfile_close(&m);
  tmp_free(&t);
}

/* A SIGBUS outside every registered mapping (a mapping made without
 * mapfile_open) still kills the process by SIGBUS: the handler only
 * answers for its own mappings and passes the rest on - to the default
 * action, or to the handler installed before it (a sanitizer's, which
 * reports the fault and exits). */
TEST(mapfile_foreign_sigbus_still_kills) {
  tmp t;
  tmp_make(&t, 3);
  struct sigaction before;
  CHECK(sigaction(SIGBUS, NULL, &before) == 0);
  const bool dfl = !(before.sa_flags & SA_SIGINFO) && before.sa_handler == SIG_DFL;
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    mapfile m;
    if (mapfile_open(&m, t.path, NULL) != CUZK_OK) /* installs the handler */
      _exit(3);
    int fd = open(t.path, O_RDONLY | O_CLOEXEC);
    const volatile uint8_t *p = mmap(NULL, t.len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (fd < 0 || p == MAP_FAILED || truncate(t.path, 0) != 0)
      _exit(4);
    unsigned s = p[t.len - 1]; /* past the end: SIGBUS */
    _exit(5 + (int)(s & 0));
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (dfl)
    CHECK_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS, "child status %#x", status);
  else /* the earlier handler's way out; 5: the read went on, 3-4: no setup */
    CHECK_MSG(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 5 &&
                                      WEXITSTATUS(status) != 3 && WEXITSTATUS(status) != 4),
              "child status %#x", status);
  tmp_free(&t);
}

/* A FIFO is refused at once (before, the open waited for a writer); a
 * directory and a character device are refused too, each by its kind. */
TEST_TIMEOUT(mapfile_refuses_non_regular_files_without_blocking, 10) {
  tmp t;
  tmp_make(&t, 1);
  char fifo[160];
  snprintf(fifo, sizeof fifo, "%s/fifo", t.dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  struct {
    const char *path, *kind;
  } cases[] = {{fifo, "a FIFO"}, {t.dir, "a directory"}, {"/dev/null", "a character device"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mapfile m;
    cuzk_err err = {0};
    CHECK(mapfile_open(&m, cases[i].path, &err) == CUZK_IO);
    CHECK_MSG(strstr(err.msg, cases[i].path) && strstr(err.msg, cases[i].kind) &&
                  strstr(err.msg, "expected a regular file"),
              "%s", err.msg);
    CHECK(m.data == NULL && !m.has_fd);
  }
  unlink(fifo);
  tmp_free(&t);
}

/* cmd_prove's sequence with the key truncated to half after zkey_open:
 * the prover reads zeros where the points were (no SIGBUS), the proof does
 * not pass (it is not returned, or the check below stops it), and
 * zkey_check_unchanged names the file and the truncation - the CLI prints
 * that and writes nothing.  The coefficient entries were copied at open,
 * so the rows the prover indexes by are the checked ones. */
TEST_TIMEOUT(cli_prove_path_key_truncated_after_open, 60) {
  char dir[64] = "/tmp/cuzk-mapfile-XXXXXX", zpath[128], wpath[128];
  CHECK(mkdtemp(dir));
  snprintf(zpath, sizeof zpath, "%s/k.zkey", dir);
  snprintf(wpath, sizeof wpath, "%s/k.wtns", dir);
  keygen_chain c;
  cuzk_err err = {0};
  CHECK(keygen_chain_from_seed(&c, KEYGEN_CHAIN_STEPS(8), 71, &err) == CUZK_OK);
  keygen_opts o = {.threads = 2};
  CHECK_MSG(keygen_chain_write(&c, zpath, wpath, &o, NULL, &err) == CUZK_OK, "%s", err.msg);
  zkey_file zk;
  wtns_file w;
  CHECK_MSG(zkey_open(&zk, zpath, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(wtns_open(&w, wpath, &err) == CUZK_OK, "%s", err.msg);
  CHECK(zk.coefs == zk.coefs_owned);
  backend *be = backend_cpu_new(2);
  CHECK(be);
  groth16_proof proof;
  /* Unchanged: proves, and the check passes. */
  CHECK_MSG(groth16_prove_zkey(&proof, &zk, &w, be, NULL, NULL, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(zkey_check_unchanged(&zk, &err) == CUZK_OK, "%s", err.msg);
  pause_tick();
  CHECK(truncate(zpath, (off_t)(zk.bf.map.size / 2)) == 0);
  cuzk_status st = groth16_prove_zkey(&proof, &zk, &w, be, NULL, NULL, &err);
  printf("  prove after the truncation: %s\n", cuzk_status_name(st));
  CHECK(zkey_check_unchanged(&zk, &err) == CUZK_IO);
  printf("  %s\n", err.msg);
  CHECK_MSG(strstr(err.msg, zpath) && strstr(err.msg, "changed while being read") &&
                strstr(err.msg, "truncated"),
            "%s", err.msg);
  CHECK(binfile_check(&w.bf, &err) == CUZK_OK);
  backend_free(be);
  wtns_close(&w);
  zkey_close(&zk);
  unlink(zpath);
  unlink(wpath);
  CHECK(rmdir(dir) == 0);
}
