/* The engine harnesses' fixture (fuzz_engine.c, fuzz_rpc.c): keys made at
 * start-up by the library's INSECURE key generator into a fresh directory
 * under TMPDIR (removed at exit), and an engine per input over them, on
 * one CPU worker.
 *
 *   k      registered, the chain of 2^3 (k.zkey, and its witness)
 *   bad    registered, k's file with a byte of section 9 (H) changed: its
 *          header passes, the prover's proof fails verification, the job
 *          fails after the point scan
 *   p      found in param_dir (p.zkey, the chain of 2^4, its own witness)
 *   short  found in param_dir, k's file cut short: refused at lookup
 *   w/     the witness directory: k.wtns and p.wtns (the keys' witnesses),
 *          junk.wtns (not a witness), link.wtns (a link to ../k.zkey) and
 *          sub/k.wtns
 *
 * Every call that waits is bounded (await timeouts of a few ms), nothing
 * sleeps; engine_free shuts the engine down, cancelling (a fuzzed choice)
 * or finishing its jobs, which the harnesses keep to a few partitions.
 * The engine starts paused unless the input says otherwise (FX_UNPAUSE). */
#ifndef CUZK_TESTS_FUZZ_ENGINE_FIXTURE_H
#define CUZK_TESTS_FUZZ_ENGINE_FIXTURE_H

#include "fuzz.h"

#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "groth16/keygen.h"

static char fx_dir[200], fx_k[256], fx_bad[256], fx_wdir[256];
static uint8_t *fx_wk, *fx_wp; /* the witnesses of k and p */
static size_t fx_wk_len, fx_wp_len;

static uint8_t *fx_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  FUZZ_ASSERT(f, "%s: cannot open", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)n);
  FUZZ_ASSERT(p && fread(p, 1, (size_t)n, f) == (size_t)n, "%s: cannot read", path);
  fclose(f);
  *len = (size_t)n;
  return p;
}

static void fx_write(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  FUZZ_ASSERT(f && fwrite(p, 1, n, f) == n && fclose(f) == 0, "%s: cannot write", path);
}

static void fx_key(const char *name, unsigned lg, uint64_t seed, uint8_t **w, size_t *wl) {
  char z[256], wp[256];
  keygen_chain c;
  cuzk_err err = {0};
  snprintf(z, sizeof z, "%s/%s.zkey", fx_dir, name);
  snprintf(wp, sizeof wp, "%s/%s.wtns", fx_dir, name);
  keygen_opts o = {.threads = 1};
  FUZZ_ASSERT(keygen_chain_from_seed(&c, KEYGEN_CHAIN_STEPS(lg), seed, &err) == CUZK_OK &&
                  keygen_chain_write(&c, z, wp, &o, NULL, &err) == CUZK_OK,
              "keygen: %s", err.msg);
  *w = fx_read(wp, wl);
  unlink(wp);
}

static void fx_cleanup(void) {
  const char *names[] = {"k.zkey",      "bad.zkey",      "p.zkey",        "short.zkey",
                         "w/k.wtns",    "w/p.wtns",      "w/junk.wtns",   "w/link.wtns",
                         "w/sub/k.wtns"};
  char p[300];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(p, sizeof p, "%s/%s", fx_dir, names[i]);
    unlink(p);
  }
  snprintf(p, sizeof p, "%s/w/sub", fx_dir);
  rmdir(p);
  rmdir(fx_wdir);
  rmdir(fx_dir);
}

static void fx_init(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(fx_dir, sizeof fx_dir, "%s/cuzk-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  FUZZ_ASSERT(mkdtemp(fx_dir), "mkdtemp %s", fx_dir);
  atexit(fx_cleanup);
  fx_key("k", 3, 1, &fx_wk, &fx_wk_len);
  fx_key("p", 4, 2, &fx_wp, &fx_wp_len);
  snprintf(fx_k, sizeof fx_k, "%s/k.zkey", fx_dir);
  snprintf(fx_bad, sizeof fx_bad, "%s/bad.zkey", fx_dir);
  size_t n;
  uint8_t *z = fx_read(fx_k, &n);
  char p[300];
  snprintf(p, sizeof p, "%s/short.zkey", fx_dir);
  fx_write(p, z, n / 2);
  /* The chain key's sections are in order 1..10 and H (9) is followed by
   * section 10 of 64 + 4 bytes: the byte 100 from the end lies in H. */
  z[n - 100] ^= 0x5a;
  fx_write(fx_bad, z, n);
  free(z);
  snprintf(fx_wdir, sizeof fx_wdir, "%s/w", fx_dir);
  FUZZ_ASSERT(mkdir(fx_wdir, 0700) == 0, "mkdir %s", fx_wdir);
  snprintf(p, sizeof p, "%s/sub", fx_wdir);
  FUZZ_ASSERT(mkdir(p, 0700) == 0, "mkdir %s", p);
  static const char *const wn[] = {"k.wtns", "p.wtns", "junk.wtns", "sub/k.wtns"};
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s/%s", fx_wdir, wn[i]);
    if (i == 2)
      fx_write(p, (const uint8_t *)"wtns not a witness", 18);
    else
      fx_write(p, i == 1 ? fx_wp : fx_wk, i == 1 ? fx_wp_len : fx_wk_len);
  }
  snprintf(p, sizeof p, "%s/link.wtns", fx_wdir);
  FUZZ_ASSERT(symlink("../k.zkey", p) == 0, "symlink %s", p);
}

/* A witness file name: the directory's files, names that must be refused,
 * or (c >= 12) up to 60 bytes of the input, cut at a NUL. */
__attribute__((unused)) static const char *fx_wname(fz_in *in, char *buf, size_t cap) {
  static const char *const names[] = {"k.wtns", "p.wtns",      "junk.wtns", "link.wtns",
                                      "sub/k.wtns", "../k.zkey", "/etc/passwd", "sub",
                                      "", "nope.wtns",  "sub//k.wtns", "./k.wtns"};
  uint8_t c = fz_u8(in);
  if (c % 16 < sizeof names / sizeof *names)
    return names[c % 16];
  size_t len;
  const uint8_t *b = fz_bytes(in, fz_u8(in) % 61, &len);
  if (len >= cap)
    len = cap - 1;
  memcpy(buf, b, len);
  buf[len] = 0;
  return buf;
}

/* The circuit id of choice c: the four keys, unknown and unsafe ids, or
 * (c >= 12) up to 160 bytes of the input, cut at a NUL. */
__attribute__((unused)) static const char *fx_circuit(fz_in *in, char *buf, size_t cap) {
  static const char *const ids[] = {"k", "bad", "p", "short", "", "nope", "../k", "k.zkey",
                                    ".p", "p/", "K", "k\n"};
  uint8_t c = fz_u8(in);
  if (c % 16 < sizeof ids / sizeof *ids)
    return ids[c % 16];
  size_t len;
  const uint8_t *b = fz_bytes(in, fz_u8(in) % 161, &len);
  if (len >= cap)
    len = cap - 1;
  memcpy(buf, b, len);
  buf[len] = 0;
  return buf;
}

/* An engine over the fixture with fuzzed budgets and limits. */
static engine *fx_engine(fz_in *in, bool *cancel_on_shutdown, bool *paused) {
  static engine_circuit circ[2];
  circ[0] = (engine_circuit){.id = "k", .path = fx_k};
  circ[1] = (engine_circuit){.id = "bad", .path = fx_bad};
  uint8_t f = fz_u8(in), g = fz_u8(in);
  engine_config c;
  engine_config_defaults(&c);
  c.device = ENGINE_DEVICE_CPU;
  c.cpu_workers = 1;
  c.threads = 1;
  c.circuits = circ;
  c.ncircuits = 2;
  c.param_dir = fx_dir;
  c.witness_dir = fx_wdir;
  /* Budgets around the keys' sizes (a few tens of KB) and witnesses'
   * (hundreds of bytes), so that loads evict and submissions are refused. */
  static const uint64_t host[4] = {64 << 10, 96 << 10, 1 << 20, 64 << 20};
  static const uint64_t queue[4] = {512, 2048, 16 << 10, 32 << 10};
  c.host_budget_bytes = host[f & 3];
  c.queue_budget_bytes = queue[(f >> 2) & 3];
  c.pin_keys = f & 16;
  c.eviction_min_idle_ms = (f & 32) ? 1 : 0;
  c.max_finished = 1 + (g & 7);
  c.finished_ttl_ms = (g & 8) ? 1 : (g & 16) ? 0 : 60000;
  /* A proof and its verification cost a few ms against ~0.5 ms for the
   * rest of an input, so workers run and a shutdown finishes its jobs in
   * one input in four each: the paths stay reachable, the executions per
   * second stay high enough for a campaign of millions. */
  c.cancel_on_shutdown = *cancel_on_shutdown = (g & 0xa0) != 0xa0;
  engine *e = NULL;
  cuzk_err err = {0};
  cuzk_status st = engine_new(&e, &c, &err);
  FUZZ_ASSERT(st == CUZK_OK, "engine_new: %s: %s", cuzk_status_name(st), err.msg);
  /* Paused in three inputs of four (above); a pause op lets the workers
   * go (FX_UNPAUSE). */
  if ((*paused = (f & 64) == 0 || (g & 64) == 0))
    engine_set_paused(e, true);
  return e;
}

/* Whether a pause operation's fuzzed byte b lets the workers go: one in
 * eight (see fx_engine). */
#define FX_UNPAUSE(b) (((b) & 0x38) == 0x38)

/* What every engine result must hold. */
static void fx_check_result(cuzk_status st, const engine_result *r, const char *id) {
  if (st == CUZK_OK) {
    FUZZ_ASSERT(!strcmp(r->job_id, id), "result for %s names %s", id, r->job_id);
    FUZZ_ASSERT(r->state == ENGINE_JOB_DONE || r->state == ENGINE_JOB_FAILED ||
                    r->state == ENGINE_JOB_CANCELLED,
                "await OK in state %s", engine_job_state_name(r->state));
    if (r->state == ENGINE_JOB_DONE)
      FUZZ_ASSERT(r->nparts >= 1 && r->proof && r->proof_len == r->nparts * 192,
                  "done with %zu bytes of proof for %zu partitions", r->proof_len, r->nparts);
    if (r->state == ENGINE_JOB_DONE && r->proof_json)
      for (size_t i = 0; i < r->nparts; i++)
        FUZZ_ASSERT(r->proof_json[i] && r->public_json[i], "a NULL JSON text");
    if (r->state == ENGINE_JOB_FAILED)
      FUZZ_ASSERT(r->error[0] && r->job_status != CUZK_OK, "failed without a reason");
  } else {
    FUZZ_ASSERT(st == CUZK_TIMEOUT || st == CUZK_NOT_FOUND, "await: %s",
                cuzk_status_name(st));
  }
}

static void fx_status(engine *e) {
  engine_status s;
  cuzk_err err = {0};
  FUZZ_ASSERT(engine_status_get(e, &s, &err) == CUZK_OK, "status: %s", err.msg);
  FUZZ_ASSERT(s.queue_used <= s.queue_budget, "queue %llu over its budget %llu",
              (unsigned long long)s.queue_used, (unsigned long long)s.queue_budget);
  engine_status_free(&s);
  free(engine_metrics_text(e));
}

#endif
