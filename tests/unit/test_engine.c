/* The proving engine (engine/engine.h) on the CPU backend, with small
 * chain keys made in-process by the INSECURE key generator
 * (groth16/keygen.h): proofs and their encodings, priority order, request
 * ids, cancel in each state, await timeouts, bad requests, failed jobs,
 * key tiers under a host budget, preload/evict, the queue budget, expiry,
 * shutdown, status and metrics, and a burst of concurrent clients; the
 * store of resident copies that a GPU's slots share, and the GPU executor's
 * DEVICE tier and VRAM plan on stand-in GPUs (engine_config.devices: a
 * device provider of CPU backends over the real store), so their accounting is tested without a
 * GPU: one copy per GPU whatever K, counted once, kept while a slot proves
 * with it, room for one copy beside K slots' scratch; and a GPU lost to a
 * sticky CUDA error (a stand-in that fails with DEVICE_LOST): its work
 * retried on another GPU or the CPU fallback, the GPU out of service in
 * the status, the metrics and HTTP /status, nothing sent to it again, and
 * with no worker left the job failing and submissions refused at once.
 *
 * Synchronisation is by the engine's test hook (a worker blocks in it at a
 * known state until the test lets it go) and by engine_set_paused, never
 * by sleeping; the sleeps wait for a TTL to pass, slow a store's make down
 * so that two askers meet (the checks hold whether they meet or not), and
 * poll, bounded, for an idle slot letting go of an evicted key (work_cv
 * wakes it; nothing else says when). */
#include "harness.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "base/clock.h"
#include "backend/store.h"
#include "base/clock.h"
#include "ec/encode.h"
#include "engine/engine.h"
#include "groth16/bp.h"
#include "groth16/bp_setup.h"
#include "groth16/json.h"
#include "groth16/pce.h"
#include "groth16/pce_gen.h"
#include "groth16/pce_tables.h"
#include "groth16/keygen.h"
#include "groth16/verify.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"
#include "server/http.h"
#include "server/rpc_status.h"

/* Under ASan, each test ends with a leak check: the harness's children
 * leave with _exit, which skips LeakSanitizer's own check at exit. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
static void leak_check(const char *name) {
  if (__lsan_do_recoverable_leak_check())
    TEST_FAIL("%s leaks (LeakSanitizer's report above)", name);
}
#else
static void leak_check(const char *name) { (void)name; }
#endif
#define ETEST_TIMEOUT(name, secs)   \
  static void name##_body(void);    \
  TEST_TIMEOUT(name, secs) {        \
    name##_body();                  \
    leak_check(#name);              \
  }                                 \
  static void name##_body(void)
#define ETEST(name) ETEST_TIMEOUT(name, 120)

/* ------------------------------------------------------------ fixtures */

/* A chain key of 2^lg with its witness, written under dir as NAME.zkey and
 * NAME.wtns (removed again by fixture_free). */
typedef struct {
  char zkey[256], wpath[256];
  uint8_t *wtns;
  size_t wtns_len;
  uint64_t zkey_bytes;
} fixture;

static void fixture_make(fixture *f, const char *dir, const char *name, unsigned lg,
                         uint64_t seed) {
  keygen_chain c;
  cuzk_err err = {0};
  CHECK(keygen_chain_from_seed(&c, KEYGEN_CHAIN_STEPS(lg), seed, &err) == CUZK_OK);
  snprintf(f->zkey, sizeof f->zkey, "%s/%s.zkey", dir, name);
  snprintf(f->wpath, sizeof f->wpath, "%s/%s.wtns", dir, name);
  keygen_opts o = {.threads = 2};
  CHECK_MSG(keygen_chain_write(&c, f->zkey, f->wpath, &o, NULL, &err) == CUZK_OK, "keygen: %s",
            err.msg);
  f->wtns = (uint8_t *)test_read_file(f->wpath, &f->wtns_len);
  CHECK(f->wtns);
  struct stat sb;
  CHECK(stat(f->zkey, &sb) == 0);
  f->zkey_bytes = (uint64_t)sb.st_size;
}

static void fixture_free(fixture *f) {
  free(f->wtns);
  unlink(f->zkey);
  unlink(f->wpath);
}

/* A config with one key "k" (and optionally "k2"), CPU workers. */
static void config(engine_config *c, engine_circuit *circ, size_t n, unsigned workers) {
  engine_config_defaults(c);
  c->device = ENGINE_DEVICE_CPU;
  c->cpu_workers = workers;
  c->threads = 1;
  c->circuits = circ;
  c->ncircuits = n;
  c->host_budget_bytes = (uint64_t)1 << 30;
  c->queue_budget_bytes = (uint64_t)256 << 20;
}

static engine *start(const engine_config *c) {
  engine *e = NULL;
  cuzk_err err = {0};
  cuzk_status st = engine_new(&e, c, &err);
  CHECK_MSG(st == CUZK_OK, "engine_new: %s: %s", cuzk_status_name(st), err.msg);
  return e;
}

static cuzk_status submit_full(engine *e, const char *rid, const char *circuit, int pri,
                               const uint8_t *const *w, const size_t *wl, size_t n, bool json,
                               engine_ticket *t, cuzk_err *err) {
  engine_request rq = {.request_id = rid,
                       .circuit_id = circuit,
                       .priority = (engine_priority)pri,
                       .nparts = n,
                       .witness = w,
                       .witness_len = wl,
                       .want_json = json};
  return engine_submit(e, &rq, t, err);
}

/* Submits one partition; fails the test unless it is accepted. */
static void submit_ok(engine *e, const char *rid, const char *circuit, int pri, const fixture *f,
                      engine_ticket *t) {
  const uint8_t *w[1] = {f->wtns};
  size_t wl[1] = {f->wtns_len};
  cuzk_err err = {0};
  cuzk_status st = submit_full(e, rid, circuit, pri, w, wl, 1, false, t, &err);
  CHECK_MSG(st == CUZK_OK, "submit %s: %s: %s", rid ? rid : "", cuzk_status_name(st), err.msg);
}

static engine_job_state await_state(engine *e, const char *id, engine_result *r) {
  cuzk_err err = {0};
  cuzk_status st = engine_await(e, id, 0, r, &err);
  CHECK_MSG(st == CUZK_OK, "await %s: %s: %s", id, cuzk_status_name(st), err.msg);
  return r->state;
}

/* The job is DONE and each 192-byte proof decodes and verifies against
 * the key, with the witness's public signals. */
static void check_done_and_valid(engine *e, const char *id, const fixture *f) {
  engine_result r;
  engine_job_state s = await_state(e, id, &r);
  CHECK_MSG(s == ENGINE_JOB_DONE, "job %s: %s (%s)", id, engine_job_state_name(s), r.error);
  CHECK_EQ_INT(r.proof_len, r.nparts * 192);
  zkey_file zk;
  wtns_file w;
  cuzk_err err = {0};
  CHECK_MSG(zkey_open(&zk, f->zkey, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(wtns_open_mem(&w, f->wtns, f->wtns_len, "w", &err) == CUZK_OK, "%s", err.msg);
  groth16_vk vk;
  CHECK(zkey_read_vk(&zk, &vk, &err) == CUZK_OK);
  groth16_vk_compute_alphabeta(&vk);
  limb_t pub[KEYGEN_CHAIN_PUBLIC][4];
  for (int i = 0; i < KEYGEN_CHAIN_PUBLIC; i++) limbs_from_le(pub[i], wtns_value(&w, 1 + i), 4);
  for (size_t p = 0; p < r.nparts; p++) {
    const uint8_t *b = r.proof + 192 * p;
    groth16_proof pr;
    CHECK(bls12_381_g1_decode_compressed(&pr.a, b, true, &err) == CUZK_OK);
    CHECK(bls12_381_g2_decode_compressed(&pr.b, b + 48, true, &err) == CUZK_OK);
    CHECK(bls12_381_g1_decode_compressed(&pr.c, b + 144, true, &err) == CUZK_OK);
    cuzk_status st = groth16_verify(&vk, (const limb_t(*)[4])pub, KEYGEN_CHAIN_PUBLIC, &pr, &err);
    CHECK_MSG(st == CUZK_OK, "job %s partition %zu does not verify: %s", id, p, err.msg);
  }
  groth16_vk_fini(&vk);
  wtns_close(&w);
  zkey_close(&zk);
  engine_result_free(&r);
}

static const engine_key_status *key_status(const engine_status *s, const char *id) {
  for (size_t i = 0; i < s->nkeys; i++)
    if (!strcmp(s->keys[i].id, id))
      return &s->keys[i];
  TEST_FAIL("no key %s in the status", id);
}

static engine_tier tier_of(engine *e, const char *id) {
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  engine_tier t = key_status(&s, id)->tier;
  engine_status_free(&s);
  return t;
}

/* No job holds key `id` any more. */
static void check_unreferenced(engine *e, const char *id) {
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(key_status(&s, id)->refcount, 0);
  engine_status_free(&s);
}

/* ------------------------------------------------------------ the hook */

/* Records the order in which partitions are taken, and can hold a worker
 * when a given job reaches a given state until the test releases it. */
typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char order[64][ENGINE_ID_MAX];
  size_t norder;
  unsigned taken; /* PREPARING events */
  char hold_id[ENGINE_ID_MAX]; /* "*": every job */
  engine_job_state hold_state;
  unsigned held; /* partitions held since hook_hold */
  bool holding, release;
} hook_rec;

static hook_rec H = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void hook_fn(void *ctx, const char *job_id, size_t part, engine_job_state s) {
  hook_rec *h = ctx;
  (void)part;
  pthread_mutex_lock(&h->mu);
  if (s == ENGINE_JOB_PREPARING) {
    h->taken++;
    if (h->norder < 64)
      snprintf(h->order[h->norder++], ENGINE_ID_MAX, "%s", job_id);
    pthread_cond_broadcast(&h->cv);
  }
  if (h->hold_id[0] && (!strcmp(h->hold_id, "*") || !strcmp(job_id, h->hold_id)) &&
      s == h->hold_state) {
    h->holding = true;
    h->held++;
    pthread_cond_broadcast(&h->cv);
    while (!h->release) pthread_cond_wait(&h->cv, &h->mu);
  }
  pthread_mutex_unlock(&h->mu);
}

static void hook_hold(const char *id, engine_job_state s) {
  pthread_mutex_lock(&H.mu);
  snprintf(H.hold_id, sizeof H.hold_id, "%s", id);
  H.hold_state = s;
  H.held = 0;
  H.holding = H.release = false;
  pthread_mutex_unlock(&H.mu);
}

static void hook_wait_held(void) {
  pthread_mutex_lock(&H.mu);
  while (!H.holding) pthread_cond_wait(&H.cv, &H.mu);
  pthread_mutex_unlock(&H.mu);
}

/* Waits until n partitions are held (hook_hold("*", ...)). */
static void hook_wait_held_n(unsigned n) {
  pthread_mutex_lock(&H.mu);
  while (H.held < n) pthread_cond_wait(&H.cv, &H.mu);
  pthread_mutex_unlock(&H.mu);
}

/* Waits until n partitions have been taken by workers in all. */
static void hook_wait_taken(unsigned n) {
  pthread_mutex_lock(&H.mu);
  while (H.taken < n) pthread_cond_wait(&H.cv, &H.mu);
  pthread_mutex_unlock(&H.mu);
}

static void hook_release(void) {
  pthread_mutex_lock(&H.mu);
  H.release = true;
  H.hold_id[0] = 0;
  pthread_cond_broadcast(&H.cv);
  pthread_mutex_unlock(&H.mu);
}

static void with_hook(engine_config *c) {
  c->test_hook = hook_fn;
  c->test_hook_ctx = &H;
}

/* One test's world: a temporary directory holding key "k" (2^lg) and its
 * witness, and an engine configured by config(); a test adjusts v->c
 * between env_init and env_start. */
typedef struct {
  char dir[64];
  fixture f;
  engine_circuit circ[3];
  engine_config c;
  engine *e;
} env;

static void env_init(env *v, unsigned lg, uint64_t seed, unsigned workers, bool hooked) {
  memset(v, 0, sizeof *v);
  snprintf(v->dir, sizeof v->dir, "/tmp/cuzk-engine-XXXXXX");
  CHECK(mkdtemp(v->dir));
  fixture_make(&v->f, v->dir, "k", lg, seed);
  v->circ[0] = (engine_circuit){.id = "k", .path = v->f.zkey};
  config(&v->c, v->circ, 1, workers);
  if (hooked)
    with_hook(&v->c);
}

/* Registers another key (2^lg of the first's size class) as `name`. */
static void env_add_key(env *v, fixture *f, const char *name, unsigned lg, uint64_t seed) {
  fixture_make(f, v->dir, name, lg, seed);
  v->circ[v->c.ncircuits++] = (engine_circuit){.id = name, .path = f->zkey};
}

/* A host budget with room for `halves`/2 keys of the first key's size
 * besides a 1 MiB queue budget. */
static void env_room(env *v, unsigned halves) {
  v->c.queue_budget_bytes = 1 << 20;
  v->c.host_budget_bytes = v->c.queue_budget_bytes + v->f.zkey_bytes * halves / 2;
}

static engine *env_start(env *v) { return v->e = start(&v->c); }

static void env_fini(env *v) {
  engine_free(v->e);
  fixture_free(&v->f);
  CHECK(rmdir(v->dir) == 0); /* every file made was removed */
}

/* A .zkey circuit's witness named as a file under the witness directory
 * (engine.h engine_submit): read when the partition starts, proven, the
 * JSON made from the values read; its queue charge gone when it ends. */
ETEST(engine_zkey_witness_file) {
  env v;
  env_init(&v, 10, 5, 1, false);
  v.c.witness_dir = v.dir;
  env_start(&v);
  const char *names[2] = {"k.wtns", "k.wtns"};
  engine_request rq = {.circuit_id = "k", .nparts = 2, .witness_file = names, .want_json = true};
  engine_ticket t;
  cuzk_err err = {0};
  CHECK_MSG(engine_submit(v.e, &rq, &t, &err) == CUZK_OK, "%s", err.msg);
  check_done_and_valid(v.e, t.job_id, &v.f);
  engine_result r;
  CHECK(engine_await(v.e, t.job_id, 0, &r, &err) == CUZK_OK);
  CHECK(r.public_json && r.public_json[1] && strchr(r.public_json[1], '"'));
  engine_result_free(&r);
  engine_status s;
  CHECK(engine_status_get(v.e, &s, &err) == CUZK_OK);
  CHECK_EQ_INT(s.queue_witness, 0);
  engine_status_free(&s);
  /* bytes and files in one request are refused */
  const uint8_t *w[1] = {v.f.wtns};
  size_t wl[1] = {v.f.wtns_len};
  rq.nparts = 1, rq.witness = w, rq.witness_len = wl;
  CHECK(engine_submit(v.e, &rq, &t, &err) == CUZK_INVALID_ARGUMENT);
  env_fini(&v);
}

/* Submits job `id` (NORMAL) and returns once a worker is held in the
 * test hook as the job enters state `at`. */
static void submit_held(env *v, const char *id, engine_job_state at) {
  engine_ticket t;
  hook_hold(id, at);
  submit_ok(v->e, id, "k", ENGINE_PRI_NORMAL, &v->f, &t);
  hook_wait_held();
}

/* Submits job `id` on `circuit`; it must end FAILED with status `want`
 * and an error naming `what`. */
static void submit_fails(engine *e, const char *id, const char *circuit, const fixture *f,
                         cuzk_status want, const char *what) {
  engine_ticket t;
  submit_ok(e, id, circuit, ENGINE_PRI_NORMAL, f, &t);
  engine_result r;
  CHECK(await_state(e, id, &r) == ENGINE_JOB_FAILED);
  CHECK_MSG(r.job_status == want, "job %s: %s, expected %s (%s)", id,
            cuzk_status_name(r.job_status), cuzk_status_name(want), r.error);
  CHECK_MSG(strstr(r.error, what), "job %s: no '%s' in: %s", id, what, r.error);
  CHECK(r.proof == NULL);
  engine_result_free(&r);
}

/* Each line (a NULL-terminated list) appears in the metrics text. */
static void check_metrics(engine *e, const char *const *lines) {
  char *m = engine_metrics_text(e);
  CHECK(m);
  for (; *lines; lines++) CHECK_MSG(strstr(m, *lines), "no '%s' in:\n%s", *lines, m);
  free(m);
}

/* The sum of the workers' busy seconds in the metrics text; *n the series. */
/* Waits (bounded) until no worker holds a partition: a job is DONE, and
 * its awaiters wake, before its worker lets go of it and stops counting
 * busy time. */
static void wait_workers_idle(engine *e) {
  for (int i = 0; i < 10000; i++) {
    engine_status s;
    CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
    unsigned busy = s.busy_workers;
    engine_status_free(&s);
    if (!busy)
      return;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  TEST_FAIL("workers still busy after 10 s");
}

static double busy_seconds(engine *e, int *n) {
  static const char name[] = "cuzk_worker_busy_seconds_total{";
  char *m = engine_metrics_text(e);
  CHECK(m);
  double sum = 0;
  *n = 0;
  for (const char *p = strstr(m, name); p; p = strstr(p + 1, name)) {
    const char *v = strstr(p, "} ");
    CHECK(v);
    sum += strtod(v + 2, NULL);
    ++*n;
  }
  free(m);
  return sum;
}

static void check_status(engine *e, uint64_t completed, uint64_t failed, uint64_t cancelled,
                         uint64_t queue_used) {
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.completed, completed);
  CHECK_EQ_INT(s.failed, failed);
  CHECK_EQ_INT(s.cancelled, cancelled);
  CHECK_EQ_INT(s.queue_witness, queue_used);
  CHECK(s.host_used <= s.host_budget);
  engine_status_free(&s);
}

/* ------------------------------------------------------------ tests */

ETEST(engine_proves_bytes_and_json) {
  env v;
  env_init(&v, 5, 1, 1, false);
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  /* three partitions of one job, with JSON */
  const uint8_t *w[3] = {f->wtns, f->wtns, f->wtns};
  size_t wl[3] = {f->wtns_len, f->wtns_len, f->wtns_len};
  engine_ticket t;
  cuzk_err err = {0};
  CHECK(submit_full(e, "req-1", "k", ENGINE_PRI_UNSPECIFIED, w, wl, 3, true, &t, &err) == CUZK_OK);
  CHECK_EQ_STR(t.job_id, "req-1");
  CHECK(!t.attached);
  check_done_and_valid(e, "req-1", f);
  engine_result r;
  CHECK(await_state(e, "req-1", &r) == ENGINE_JOB_DONE);
  CHECK(r.proof_json && r.public_json);
  wtns_file wt;
  CHECK(wtns_open_mem(&wt, f->wtns, f->wtns_len, "w", &err) == CUZK_OK);
  char *pub = json_public_string(wtns_value(&wt, 1), KEYGEN_CHAIN_PUBLIC);
  for (size_t p = 0; p < 3; p++) {
    /* proof.json is the same proof as the bytes */
    groth16_proof pj, pb;
    CHECK_MSG(json_parse_proof(r.proof_json[p], strlen(r.proof_json[p]), "proof", &pj, &err) ==
                  CUZK_OK,
              "%s", err.msg);
    const uint8_t *b = r.proof + 192 * p;
    CHECK(bls12_381_g1_decode_compressed(&pb.a, b, false, &err) == CUZK_OK);
    CHECK(bls12_381_g2_decode_compressed(&pb.b, b + 48, false, &err) == CUZK_OK);
    CHECK(bls12_381_g1_decode_compressed(&pb.c, b + 144, false, &err) == CUZK_OK);
    CHECK_EQ_MEM(&pj.a, &pb.a, sizeof pj.a);
    CHECK_EQ_MEM(&pj.b, &pb.b, sizeof pj.b);
    CHECK_EQ_MEM(&pj.c, &pb.c, sizeof pj.c);
    CHECK_EQ_STR(r.public_json[p], pub);
  }
  /* blinding is fresh: partitions of the same witness differ */
  CHECK(memcmp(r.proof, r.proof + 192, 192) != 0);
  CHECK(r.timings.total_ms >= r.timings.gpu_ms);
  free(pub);
  wtns_close(&wt);
  engine_result_free(&r);
  check_status(e, 1, 0, 0, 0);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_MAPPED);
  env_fini(&v);
}

ETEST(engine_priority_order) {
  env v;
  env_init(&v, 4, 2, 1, true);
  engine *e = env_start(&v);
  engine_set_paused(e, true);
  static const struct {
    const char *id;
    int pri;
    uint32_t pos;
  } sub[] = {{"n1", ENGINE_PRI_NORMAL, 0},      {"low", ENGINE_PRI_LOW, 1},
             {"n2", ENGINE_PRI_UNSPECIFIED, 1}, {"n3", ENGINE_PRI_NORMAL, 2},
             {"high", ENGINE_PRI_HIGH, 0},      {"crit", ENGINE_PRI_CRITICAL, 0}};
  engine_ticket t;
  for (size_t i = 0; i < 6; i++) {
    submit_ok(e, sub[i].id, "k", sub[i].pri, &v.f, &t);
    CHECK_MSG(t.queue_position == sub[i].pos, "%s: position %u", sub[i].id, t.queue_position);
  }
  engine_set_paused(e, false);
  const char *want[] = {"crit", "high", "n1", "n2", "n3", "low"};
  for (size_t i = 0; i < 6; i++) check_done_and_valid(e, want[i], &v.f);
  CHECK_EQ_INT(H.norder, 6);
  for (size_t i = 0; i < 6; i++) CHECK_EQ_STR(H.order[i], want[i]);
  env_fini(&v);
}

/* ENGINE_NO_WAIT answers with the job's state at once: TIMEOUT and queued
 * while the workers are paused (a wait would never end), the result once
 * the job is done. */
ETEST(engine_await_no_wait) {
  env v;
  env_init(&v, 4, 5, 1, false);
  engine *e = env_start(&v);
  engine_set_paused(e, true);
  engine_ticket t;
  submit_ok(e, "nw", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  engine_result r;
  cuzk_err err = {0};
  CHECK_EQ_INT(engine_await(e, "nw", ENGINE_NO_WAIT, &r, &err), CUZK_TIMEOUT);
  CHECK_EQ_INT(r.state, ENGINE_JOB_QUEUED);
  CHECK_MSG(strstr(err.msg, "still queued"), "%s", err.msg);
  engine_result_free(&r);
  CHECK_EQ_INT(engine_await(e, "none", ENGINE_NO_WAIT, &r, &err), CUZK_NOT_FOUND);
  engine_result_free(&r);
  engine_set_paused(e, false);
  CHECK_EQ_INT(await_state(e, "nw", &r), ENGINE_JOB_DONE);
  engine_result_free(&r);
  CHECK_EQ_INT(engine_await(e, "nw", ENGINE_NO_WAIT, &r, &err), CUZK_OK);
  CHECK_EQ_INT(r.state, ENGINE_JOB_DONE);
  CHECK_EQ_INT(r.proof_len, 192);
  engine_result_free(&r);
  env_fini(&v);
}

/* A CRITICAL job submitted while a worker proves a NORMAL one goes before
 * the NORMAL jobs queued behind it. */
ETEST(engine_critical_overtakes_queue) {
  env v;
  env_init(&v, 4, 3, 1, true);
  engine *e = env_start(&v);
  engine_ticket t;
  submit_held(&v, "a", ENGINE_JOB_PROVING);
  char id[16];
  for (int i = 0; i < 4; i++) {
    snprintf(id, sizeof id, "b%d", i);
    submit_ok(e, id, "k", ENGINE_PRI_NORMAL, &v.f, &t);
  }
  submit_ok(e, "crit", "k", ENGINE_PRI_CRITICAL, &v.f, &t);
  CHECK_EQ_INT(t.queue_position, 0);
  hook_release();
  check_done_and_valid(e, "b3", &v.f);
  CHECK_EQ_INT(H.norder, 6);
  CHECK_EQ_STR(H.order[0], "a");
  CHECK_EQ_STR(H.order[1], "crit");
  CHECK_EQ_STR(H.order[2], "b0");
  CHECK_EQ_STR(H.order[5], "b3");
  env_fini(&v);
}

ETEST(engine_request_id_proves_once) {
  env v;
  env_init(&v, 4, 4, 2, true);
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  engine_set_paused(e, true);
  engine_ticket t1, t2, t3;
  submit_ok(e, "same", "k", ENGINE_PRI_NORMAL, f, &t1);
  submit_ok(e, "same", "k", ENGINE_PRI_HIGH, f, &t2); /* queued: attaches */
  CHECK(!t1.attached && t2.attached);
  CHECK_EQ_STR(t1.job_id, t2.job_id);
  engine_set_paused(e, false);
  check_done_and_valid(e, "same", f);
  submit_ok(e, "same", "k", ENGINE_PRI_NORMAL, f, &t3); /* done: attaches */
  CHECK(t3.attached);
  check_done_and_valid(e, "same", f);
  CHECK_EQ_INT(H.taken, 1); /* proved once */
  /* the same id with other witness bytes is refused */
  uint8_t *other = malloc(f->wtns_len);
  memcpy(other, f->wtns, f->wtns_len);
  other[f->wtns_len - 1] ^= 1; /* the last value's top byte: still < r */
  const uint8_t *w[1] = {other};
  size_t wl[1] = {f->wtns_len};
  cuzk_err err = {0};
  CHECK_EQ_INT(submit_full(e, "same", "k", 2, w, wl, 1, false, &t3, &err), CUZK_INVALID_ARGUMENT);
  CHECK(strstr(err.msg, "already used"));
  /* no request id: a fresh job each time */
  submit_ok(e, NULL, "k", ENGINE_PRI_NORMAL, f, &t1);
  submit_ok(e, "", "k", ENGINE_PRI_NORMAL, f, &t2);
  CHECK(strcmp(t1.job_id, t2.job_id) != 0 && !t1.attached && !t2.attached);
  check_done_and_valid(e, t1.job_id, f);
  check_done_and_valid(e, t2.job_id, f);
  CHECK_EQ_INT(H.taken, 3);
  check_status(e, 3, 0, 0, 0);
  static const char *const m[] = {"cuzk_requests_attached_total 2\n", NULL};
  check_metrics(e, m);
  free(other);
  env_fini(&v);
}

ETEST(engine_cancel_queued) {
  env v;
  env_init(&v, 4, 5, 1, true);
  engine *e = env_start(&v);
  engine_set_paused(e, true);
  engine_ticket t;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  submit_ok(e, "b", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.nqueues, 1);
  CHECK_EQ_INT(s.queues[0].queued, 2);
  engine_status_free(&s);
  check_status(e, 0, 0, 0, 2 * v.f.wtns_len);
  bool was_running = true;
  cuzk_err err = {0};
  CHECK(engine_cancel(e, "b", &was_running, &err) == CUZK_OK);
  CHECK(!was_running);
  engine_result r;
  CHECK(await_state(e, "b", &r) == ENGINE_JOB_CANCELLED);
  CHECK(r.proof == NULL && r.proof_len == 0);
  engine_result_free(&r);
  check_status(e, 0, 0, 1, v.f.wtns_len); /* b's witness is freed */
  /* cancelling again, or a finished job, changes nothing; unknown ids are NOT_FOUND */
  CHECK(engine_cancel(e, "b", &was_running, &err) == CUZK_OK && !was_running);
  CHECK_EQ_INT(engine_cancel(e, "nope", &was_running, &err), CUZK_NOT_FOUND);
  engine_set_paused(e, false);
  check_done_and_valid(e, "a", &v.f);
  CHECK_EQ_INT(H.taken, 1);
  env_fini(&v);
}

static void cancel_running_at(engine_job_state at) {
  env v;
  env_init(&v, 5, 6, 1, true);
  engine *e = env_start(&v);
  engine_ticket t;
  submit_held(&v, "x", at);
  bool was_running = false;
  cuzk_err err = {0};
  CHECK(engine_cancel(e, "x", &was_running, &err) == CUZK_OK);
  CHECK(was_running);
  engine_result r;
  CHECK(await_state(e, "x", &r) == ENGINE_JOB_CANCELLED); /* at once, the worker still held */
  CHECK(r.proof == NULL);
  engine_result_free(&r);
  hook_release();
  /* the engine keeps serving, and what x held is freed */
  submit_ok(e, "y", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  check_done_and_valid(e, "y", &v.f);
  check_status(e, 1, 0, 1, 0);
  check_unreferenced(e, "k");
  env_fini(&v);
}

ETEST(engine_cancel_running) {
  cancel_running_at(ENGINE_JOB_PREPARING);
  cancel_running_at(ENGINE_JOB_PROVING);
  cancel_running_at(ENGINE_JOB_FINALIZING);
}

ETEST(engine_await_timeout) {
  env v;
  env_init(&v, 4, 7, 1, true);
  engine *e = env_start(&v);
  submit_held(&v, "x", ENGINE_JOB_PROVING);
  engine_result r;
  cuzk_err err = {0};
  CHECK_EQ_INT(engine_await(e, "x", 30, &r, &err), CUZK_TIMEOUT);
  CHECK_EQ_INT(r.state, ENGINE_JOB_PROVING);
  CHECK(r.proof == NULL);
  engine_result_free(&r);
  CHECK_EQ_INT(engine_await(e, "unknown", 30, &r, &err), CUZK_NOT_FOUND);
  hook_release();
  cuzk_status st = engine_await(e, "x", 60000, &r, &err); /* long enough: it finishes first */
  CHECK_MSG(st == CUZK_OK, "%s", err.msg);
  CHECK_EQ_INT(r.state, ENGINE_JOB_DONE);
  engine_result_free(&r);
  env_fini(&v);
}

ETEST(engine_bad_requests) {
  env v;
  env_init(&v, 4, 8, 1, false);
  fixture g;
  fixture_make(&g, v.dir, "other", 5, 9); /* another key: another nVars */
  v.c.param_dir = v.dir;                   /* "other" is found as <dir>/other.zkey */
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  engine_ticket t;
  cuzk_err err = {0};
  const uint8_t *w[2] = {f->wtns, f->wtns};
  size_t wl[2] = {f->wtns_len, f->wtns_len};
  /* unknown circuits, including names that would leave param_dir */
  CHECK_EQ_INT(submit_full(e, "r", "nope", 2, w, wl, 1, false, &t, &err), CUZK_NOT_FOUND);
  CHECK(strstr(err.msg, "nope"));
  CHECK_EQ_INT(submit_full(e, "r", "../k", 2, w, wl, 1, false, &t, &err), CUZK_NOT_FOUND);
  CHECK_EQ_INT(submit_full(e, "r", ".hidden", 2, w, wl, 1, false, &t, &err), CUZK_NOT_FOUND);
  /* invalid arguments */
  CHECK_EQ_INT(submit_full(e, "r", "k", 2, w, wl, 0, false, &t, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(submit_full(e, "r", "", 2, w, wl, 1, false, &t, &err), CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(submit_full(e, "r", "k", 9, w, wl, 1, false, &t, &err), CUZK_INVALID_ARGUMENT);
  char longid[200];
  memset(longid, 'a', sizeof longid - 1);
  longid[sizeof longid - 1] = 0;
  CHECK_EQ_INT(submit_full(e, longid, "k", 2, w, wl, 1, false, &t, &err), CUZK_INVALID_ARGUMENT);
  /* a malformed second witness: FORMAT, naming it */
  size_t short_len[2] = {f->wtns_len, f->wtns_len - 7};
  CHECK_EQ_INT(submit_full(e, "r", "k", 2, w, short_len, 2, false, &t, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "witness 1"), "message: %s", err.msg);
  uint8_t junk[64] = "not a witness";
  const uint8_t *wj[1] = {junk};
  size_t jl[1] = {sizeof junk};
  CHECK_EQ_INT(submit_full(e, "r", "k", 2, wj, jl, 1, false, &t, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "witness 0"), "message: %s", err.msg);
  /* a witness of another circuit: FORMAT (nVars) */
  const uint8_t *wg[1] = {g.wtns};
  size_t gl[1] = {g.wtns_len};
  CHECK_EQ_INT(submit_full(e, "r", "k", 2, wg, gl, 1, false, &t, &err), CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "nVars"), "message: %s", err.msg);
  /* nothing was queued; the param_dir key proves */
  check_status(e, 0, 0, 0, 0);
  CHECK(submit_full(e, "g", "other", 2, wg, gl, 1, false, &t, &err) == CUZK_OK);
  check_done_and_valid(e, "g", &g);
  static const char *const m[] = {"cuzk_errors_total{code=\"format\"} 3\n",
                                  "cuzk_errors_total{code=\"not_found\"} 3\n",
                                  "cuzk_errors_total{code=\"invalid_argument\"} 4\n", NULL};
  check_metrics(e, m);
  fixture_free(&g);
  env_fini(&v);
}

/* A malloc'd copy of f's witness with a private wire tampered: well
 * formed, unsatisfying. */
static uint8_t *tampered_witness(const fixture *f) {
  uint8_t *bad = malloc(f->wtns_len);
  CHECK(bad);
  memcpy(bad, f->wtns, f->wtns_len);
  wtns_file w;
  cuzk_err err = {0};
  CHECK(wtns_open_mem(&w, bad, f->wtns_len, "w", &err) == CUZK_OK);
  size_t off = (size_t)(wtns_value(&w, 6) - bad);
  wtns_close(&w);
  bad[off] ^= 2;
  return bad;
}

ETEST(engine_unsatisfied_witness_fails_job) {
  env v;
  env_init(&v, 5, 10, 1, true);
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  uint8_t *bad = tampered_witness(f); /* in the second partition */
  cuzk_err err = {0};
  const uint8_t *ws[3] = {f->wtns, bad, f->wtns};
  size_t wl[3] = {f->wtns_len, f->wtns_len, f->wtns_len};
  engine_ticket t;
  CHECK(submit_full(e, "bad", "k", 2, ws, wl, 3, false, &t, &err) == CUZK_OK);
  engine_result r;
  CHECK(await_state(e, "bad", &r) == ENGINE_JOB_FAILED);
  CHECK_EQ_INT(r.job_status, CUZK_UNSATISFIED);
  CHECK_MSG(strstr(r.error, "unsatisfied") && strstr(r.error, "partition 1") &&
                strstr(r.error, "witness 1: ") && strstr(r.error, "does not satisfy") &&
                !strstr(r.error, "corrupt"),
            "error: %s", r.error); /* the key's points are good: the witness is blamed */
  CHECK(r.proof == NULL);
  engine_result_free(&r);
  CHECK_EQ_INT(H.taken, 2); /* partition 2 was dropped, never proved */
  /* the engine keeps serving */
  submit_ok(e, "good", "k", ENGINE_PRI_NORMAL, f, &t);
  check_done_and_valid(e, "good", f);
  /* a failed request id proves again when resubmitted (here: fails again) */
  CHECK(submit_full(e, "bad", "k", 2, ws, wl, 3, false, &t, &err) == CUZK_OK);
  CHECK(!t.attached);
  CHECK(await_state(e, "bad", &r) == ENGINE_JOB_FAILED);
  engine_result_free(&r);
  check_status(e, 1, 2, 0, 0);
  free(bad);
  env_fini(&v);
}

/* Room for one key only: proving with the other evicts the idle one, and
 * the first comes back on demand. */
static void budget_evicts(bool pin) {
  env v;
  env_init(&v, 5, 11, 1, false);
  fixture f2;
  env_add_key(&v, &f2, "k2", 5, 12);
  v.c.pin_keys = pin;
  env_room(&v, 3);
  engine *e = env_start(&v);
  const engine_tier hot = pin ? ENGINE_TIER_PINNED : ENGINE_TIER_MAPPED;
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  engine_ticket t;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  check_done_and_valid(e, "a", &v.f);
  CHECK_EQ_INT(tier_of(e, "k"), hot);
  submit_ok(e, "b", "k2", ENGINE_PRI_NORMAL, &f2, &t);
  check_done_and_valid(e, "b", &f2);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  CHECK_EQ_INT(tier_of(e, "k2"), hot);
  submit_ok(e, "c", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  check_done_and_valid(e, "c", &v.f);
  CHECK_EQ_INT(tier_of(e, "k"), hot);
  CHECK_EQ_INT(tier_of(e, "k2"), ENGINE_TIER_DISK);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.host_used - s.queue_used, v.f.zkey_bytes); /* the keys' share */
  engine_status_free(&s);
  static const char *const m[] = {
      "cuzk_key_loads_total{circuit=\"k\"} 2\n", "cuzk_key_evictions_total{circuit=\"k\"} 1\n",
      "cuzk_key_loads_total{circuit=\"k2\"} 1\n", "cuzk_proofs_completed_total 3\n", NULL};
  check_metrics(e, m);
  fixture_free(&f2);
  env_fini(&v);
}

ETEST(engine_host_budget_evicts_idle_key) { budget_evicts(false); }
ETEST(engine_host_budget_evicts_idle_key_pinned) { budget_evicts(true); }

ETEST(engine_key_too_large_fails_job) {
  env v;
  env_init(&v, 5, 13, 1, false);
  env_room(&v, 1);
  engine *e = env_start(&v);
  submit_fails(e, "x", "k", &v.f, CUZK_EXHAUSTED, "more than the keys' share");
  bool already;
  uint64_t ms;
  cuzk_err err = {0};
  CHECK_EQ_INT(engine_preload(e, "k", &already, &ms, &err), CUZK_EXHAUSTED);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  env_fini(&v);
}

ETEST(engine_preload_and_evict) {
  env v;
  env_init(&v, 5, 14, 1, false);
  v.c.param_dir = v.dir;
  engine *e = env_start(&v);
  bool already = true, was = false;
  uint64_t ms = 0, freed = 0;
  cuzk_err err = {0};
  CHECK(engine_preload(e, "k", &already, &ms, &err) == CUZK_OK);
  CHECK(!already);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_MAPPED);
  CHECK(engine_preload(e, "k", &already, &ms, &err) == CUZK_OK);
  CHECK(already && ms == 0);
  CHECK(engine_evict(e, "k", &was, &freed, &err) == CUZK_OK);
  CHECK(was);
  CHECK_EQ_INT(freed, v.f.zkey_bytes);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  CHECK(engine_evict(e, "k", &was, &freed, &err) == CUZK_OK);
  CHECK(!was && freed == 0);
  CHECK_EQ_INT(engine_evict(e, "nope", &was, &freed, &err), CUZK_NOT_FOUND);
  CHECK_EQ_INT(engine_preload(e, "nope", &already, &ms, &err), CUZK_NOT_FOUND);
  /* "k" is also <dir>/k.zkey: the registered entry is the one used */
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.nkeys, 1);
  CHECK_EQ_INT(s.host_used, 0);
  engine_status_free(&s);
  env_fini(&v);
}

/* Evicting a key in use drops it when its job lets go. */
ETEST(engine_evict_in_use_is_deferred) {
  env v;
  env_init(&v, 4, 15, 1, true);
  engine *e = env_start(&v);
  submit_held(&v, "x", ENGINE_JOB_PROVING);
  bool was = false;
  uint64_t freed = 1;
  cuzk_err err = {0};
  CHECK(engine_evict(e, "k", &was, &freed, &err) == CUZK_OK);
  CHECK(was && freed == 0);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_MAPPED);
  hook_release();
  check_done_and_valid(e, "x", &v.f);
  /* the worker released the key before it marked the job done */
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  env_fini(&v);
}

/* What one queued job of the fixture's key costs the queue budget: its
 * witness and the job itself (measured on an engine of its own). */
static uint64_t one_job_cost(void) {
  env v;
  env_init(&v, 4, 16, 1, false);
  engine *e = env_start(&v);
  engine_set_paused(e, true);
  engine_ticket t;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  uint64_t cost = s.queue_used;
  CHECK(s.queue_witness == v.f.wtns_len && cost > v.f.wtns_len);
  engine_status_free(&s);
  engine_set_paused(e, false);
  env_fini(&v);
  return cost;
}

ETEST(engine_queue_budget_exhausted) {
  uint64_t cost = one_job_cost();
  env v;
  env_init(&v, 4, 16, 1, false);
  v.c.queue_budget_bytes = cost * 2 + 10; /* two jobs, not three */
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  engine_set_paused(e, true);
  engine_ticket t;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, f, &t);
  submit_ok(e, "b", "k", ENGINE_PRI_NORMAL, f, &t);
  const uint8_t *w[1] = {f->wtns};
  size_t wl[1] = {f->wtns_len};
  cuzk_err err = {0};
  CHECK_EQ_INT(submit_full(e, "c", "k", 2, w, wl, 1, false, &t, &err), CUZK_EXHAUSTED);
  /* attaching needs no room */
  CHECK(submit_full(e, "a", "k", 2, w, wl, 1, false, &t, &err) == CUZK_OK && t.attached);
  engine_set_paused(e, false);
  check_done_and_valid(e, "a", f);
  check_done_and_valid(e, "b", f);
  submit_ok(e, "c", "k", ENGINE_PRI_NORMAL, f, &t);
  check_done_and_valid(e, "c", f);
  static const char *const m[] = {"cuzk_requests_exhausted_total 1\n", NULL};
  check_metrics(e, m);
  env_fini(&v);
}

/* Finished results hold their charge until an await has had them: two
 * finished, unfetched jobs fill a budget of two, a third is refused; once
 * one result is fetched, the third reclaims its room. */
ETEST(engine_results_charged) {
  uint64_t cost = one_job_cost();
  env v;
  env_init(&v, 4, 16, 1, false);
  v.c.queue_budget_bytes = cost * 2 + 10;
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  engine_ticket t;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, f, &t);
  submit_ok(e, "b", "k", ENGINE_PRI_NORMAL, f, &t);
  engine_status s;
  for (int i = 0;; i++) { /* both finish (bounded: 60 s) */
    CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
    uint64_t done = s.completed;
    engine_status_free(&s);
    if (done == 2)
      break;
    CHECK(i < 6000);
    usleep(10000);
  }
  const uint8_t *w[1] = {f->wtns};
  size_t wl[1] = {f->wtns_len};
  cuzk_err err = {0};
  CHECK_EQ_INT(submit_full(e, "c", "k", 2, w, wl, 1, false, &t, &err), CUZK_EXHAUSTED);
  check_done_and_valid(e, "a", f); /* fetched: its room can be reclaimed */
  submit_ok(e, "c", "k", ENGINE_PRI_NORMAL, f, &t);
  check_done_and_valid(e, "c", f);
  check_done_and_valid(e, "b", f); /* b, never fetched, was kept */
  env_fini(&v);
}

ETEST(engine_finished_jobs_expire) {
  env v;
  env_init(&v, 4, 17, 1, false);
  v.c.max_finished = 2;
  engine *e = env_start(&v);
  engine_ticket t;
  const char *ids[] = {"a", "b", "c"};
  for (int i = 0; i < 3; i++) {
    submit_ok(e, ids[i], "k", ENGINE_PRI_NORMAL, &v.f, &t);
    check_done_and_valid(e, ids[i], &v.f);
  }
  engine_result r;
  cuzk_err err = {0};
  CHECK_EQ_INT(engine_await(e, "a", 0, &r, &err), CUZK_NOT_FOUND); /* count: oldest dropped */
  CHECK(await_state(e, "c", &r) == ENGINE_JOB_DONE);
  engine_result_free(&r);
  /* an expired request id proves afresh */
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  CHECK(!t.attached);
  check_done_and_valid(e, "a", &v.f);
  engine_free(e);

  /* TTL */
  config(&v.c, v.circ, 1, 1);
  v.c.finished_ttl_ms = 1;
  e = env_start(&v);
  submit_ok(e, "x", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  check_done_and_valid(e, "x", &v.f); /* awaited while kept: the await holds it */
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL); /* the TTL itself is what is tested */
  CHECK_EQ_INT(engine_await(e, "x", 0, &r, &err), CUZK_NOT_FOUND);
  static const char *const m[] = {"cuzk_jobs_expired_total 1\n", "cuzk_jobs_known 0\n", NULL};
  check_metrics(e, m);
  env_fini(&v);
}

ETEST(engine_shutdown_finishes_work) {
  env v;
  env_init(&v, 4, 18, 2, false);
  engine *e = env_start(&v);
  engine_ticket t;
  char id[16];
  for (int i = 0; i < 6; i++) {
    snprintf(id, sizeof id, "j%d", i);
    submit_ok(e, id, "k", ENGINE_PRI_NORMAL, &v.f, &t);
  }
  engine_shutdown(e);
  engine_shutdown(e); /* idempotent */
  for (int i = 0; i < 6; i++) {
    snprintf(id, sizeof id, "j%d", i);
    check_done_and_valid(e, id, &v.f);
  }
  cuzk_err err = {0};
  const uint8_t *w[1] = {v.f.wtns};
  size_t wl[1] = {v.f.wtns_len};
  CHECK_EQ_INT(submit_full(e, "late", "k", 2, w, wl, 1, false, &t, &err), CUZK_UNAVAILABLE);
  bool already;
  uint64_t ms;
  CHECK_EQ_INT(engine_preload(e, "k", &already, &ms, &err), CUZK_UNAVAILABLE);
  env_fini(&v);
}

static void *shutdown_thread(void *arg) {
  engine_shutdown(arg);
  return NULL;
}

ETEST(engine_shutdown_cancels_work) {
  env v;
  env_init(&v, 4, 19, 1, true);
  v.c.cancel_on_shutdown = true;
  engine *e = env_start(&v);
  engine_ticket t;
  submit_held(&v, "run", ENGINE_JOB_PROVING);
  submit_ok(e, "q1", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  submit_ok(e, "q2", "k", ENGINE_PRI_HIGH, &v.f, &t);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, shutdown_thread, e) == 0);
  /* every job ends CANCELLED while the running one is still held */
  engine_result r;
  const char *ids[] = {"run", "q1", "q2"};
  for (int i = 0; i < 3; i++) {
    CHECK_EQ_INT(await_state(e, ids[i], &r), ENGINE_JOB_CANCELLED);
    CHECK_MSG(strstr(r.error, "shutting down"), "%s", r.error);
    engine_result_free(&r);
  }
  hook_release();
  pthread_join(th, NULL);
  check_status(e, 0, 0, 3, 0);
  CHECK_EQ_INT(H.taken, 1);
  env_fini(&v);
}

/* Cancel that stops work: a job cancelled, or every job at a shutdown
 * with cancel_on_shutdown, in the middle of its MSMs frees its worker
 * within STOP_MS, on a key whose proof takes over a second on the one
 * thread (2^14: ~1.6 s on the 2-core development machine, 1.5 s of it in
 * the four MSMs, each 0.2-0.6 s): the backend polls the job's stop flag
 * between chunks of work, not only between the prover's stages.  The
 * cancel comes STOP_AFTER_MS after the worker enters PROVING (the quotient
 * takes ~50 ms of it), so it lands in the first MSMs. */
#define STOP_LG 14
#define STOP_AFTER_MS 250
#define STOP_MS 200

static void stop_mid_proof(bool by_shutdown) {
  env v;
  env_init(&v, STOP_LG, 31, 1, true);
  v.c.cancel_on_shutdown = by_shutdown;
  engine *e = env_start(&v);
  submit_held(&v, "long", ENGINE_JOB_PROVING);
  hook_release();
  struct timespec ts = {0, STOP_AFTER_MS * 1000000L};
  nanosleep(&ts, NULL);
  pthread_t th;
  const double t0 = cuzk_now_s();
  if (by_shutdown) {
    CHECK(pthread_create(&th, NULL, shutdown_thread, e) == 0);
  } else {
    bool was_running = false;
    cuzk_err err = {0};
    CHECK(engine_cancel(e, "long", &was_running, &err) == CUZK_OK);
    CHECK_MSG(was_running, "the proof ended before the cancel: make the key larger");
  }
  wait_workers_idle(e);
  const double ms = (cuzk_now_s() - t0) * 1e3;
  CHECK_MSG(ms <= STOP_MS, "the worker was still busy %.0f ms after the %s (at most %d)", ms,
            by_shutdown ? "shutdown" : "cancel", STOP_MS);
  engine_result r;
  CHECK_EQ_INT(await_state(e, "long", &r), ENGINE_JOB_CANCELLED);
  CHECK(r.proof == NULL);
  engine_result_free(&r);
  if (by_shutdown) {
    pthread_join(th, NULL);
    check_status(e, 0, 0, 1, 0);
  } else { /* the slot takes the next job, which proves */
    engine_ticket t;
    submit_ok(e, "next", "k", ENGINE_PRI_NORMAL, &v.f, &t);
    check_done_and_valid(e, "next", &v.f);
    check_status(e, 1, 0, 1, 0);
  }
  check_unreferenced(e, "k");
  env_fini(&v);
}

ETEST(engine_cancel_stops_running_work) { stop_mid_proof(false); }

ETEST(engine_shutdown_stops_running_work) { stop_mid_proof(true); }

ETEST(engine_status_and_metrics) {
  env v;
  env_init(&v, 4, 20, 2, true);
  engine *e = env_start(&v);
  submit_held(&v, "held", ENGINE_JOB_PROVING);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.cpu_workers, 2);
  CHECK_EQ_INT(s.busy_workers, 1);
  CHECK_EQ_INT(s.ngpus, 0);
  CHECK_EQ_INT(s.nqueues, 1);
  CHECK_EQ_STR(s.queues[0].circuit_id, "k");
  CHECK_EQ_INT(s.queues[0].proving, 1);
  CHECK_EQ_INT(key_status(&s, "k")->refcount, 1);
  CHECK_EQ_INT(s.queue_witness, v.f.wtns_len);
  CHECK(s.queue_used > v.f.wtns_len); /* the job itself is charged too */
  CHECK_EQ_INT(s.host_used, v.f.zkey_bytes + s.queue_used);
  CHECK_EQ_INT(s.host_budget, (uint64_t)1 << 30);
  engine_status_free(&s);
  static const char *const m1[] = {
      "cuzk_running_jobs 1\n", "cuzk_busy_workers 1\n",
      "cuzk_key_tier{circuit=\"k\",tier=\"mapped\"} 1\n", NULL};
  check_metrics(e, m1);
  int nseries;
  double busy_held = busy_seconds(e, &nseries); /* the partition in hand counts to now */
  CHECK_EQ_INT(nseries, 2);
  CHECK(busy_held > 0);
  hook_release();
  check_done_and_valid(e, "held", &v.f);
  wait_workers_idle(e);
  double busy_done = busy_seconds(e, &nseries);
  CHECK_MSG(busy_done >= busy_held, "busy seconds went back: %f then %f", busy_held, busy_done);
  CHECK_MSG(busy_done == busy_seconds(e, &nseries), "busy seconds grow while idle");
  static const char *const m0[] = {"# TYPE cuzk_worker_busy_seconds_total counter\n",
                                   "cuzk_worker_busy_seconds_total{worker=\"0\",device=\"cpu\"} ",
                                   "cuzk_worker_busy_seconds_total{worker=\"1\",device=\"cpu\"} ",
                                   NULL};
  check_metrics(e, m0);
  static const char *const m2[] = {"cuzk_proofs_completed_total 1\n",
                                   "cuzk_jobs_total{circuit=\"k\",outcome=\"done\"} 1\n",
                                   "cuzk_proof_duration_seconds_count{circuit=\"k\"} 1\n",
                                   "cuzk_running_jobs 0\n",
                                   "# TYPE cuzk_uptime_seconds gauge\n",
                                   NULL};
  check_metrics(e, m2);
  CHECK_EQ_STR(engine_job_state_name(ENGINE_JOB_FINALIZING), "finalizing");
  CHECK_EQ_STR(engine_tier_name(ENGINE_TIER_PINNED), "pinned");
  CHECK_EQ_STR(engine_priority_name(ENGINE_PRI_CRITICAL), "critical");
  env_fini(&v);
}

ETEST(engine_config_checked) {
  env v;
  env_init(&v, 4, 21, 1, false);
  engine *e = NULL;
  cuzk_err err = {0};
  v.circ[1] = v.circ[0];
  v.c.ncircuits = 2;
  CHECK_EQ_INT(engine_new(&e, &v.c, &err), CUZK_INVALID_ARGUMENT); /* twice */
  CHECK(e == NULL);
  engine_circuit bad[] = {{.id = "m", .path = "/nonexistent/x.zkey"},
                          {.id = "w", .path = v.f.wpath}};
  config(&v.c, bad, 1, 1);
  CHECK_EQ_INT(engine_new(&e, &v.c, &err), CUZK_IO);
  CHECK(strstr(err.msg, "circuit m"));
  config(&v.c, bad + 1, 1, 1); /* a witness is no key */
  CHECK_EQ_INT(engine_new(&e, &v.c, &err), CUZK_FORMAT);
  config(&v.c, v.circ, 1, 1);
  v.c.queue_budget_bytes = v.c.host_budget_bytes;
  CHECK_EQ_INT(engine_new(&e, &v.c, &err), CUZK_INVALID_ARGUMENT);
  config(&v.c, v.circ, 1, 1);
  v.c.device = ENGINE_DEVICE_GPU; /* no GPU in this build or on this machine */
  cuzk_status st = engine_new(&e, &v.c, &err);
  if (st == CUZK_OK)
    engine_free(e); /* a GPU machine */
  else
    CHECK_EQ_INT(st, CUZK_UNSUPPORTED);
  v.e = NULL;
  env_fini(&v);
}

/* 50 client threads submit 4 jobs each and await them; every proof verifies. */
typedef struct {
  engine *e;
  const fixture *f;
  int index;
  int done;
} client;

static void *client_main(void *arg) {
  client *cl = arg;
  char ids[4][32];
  for (int i = 0; i < 4; i++) {
    snprintf(ids[i], sizeof ids[i], "c%d-%d", cl->index, i);
    engine_ticket t;
    submit_ok(cl->e, ids[i], "k", 1 + (cl->index + i) % 4, cl->f, &t);
  }
  for (int i = 0; i < 4; i++) {
    check_done_and_valid(cl->e, ids[i], cl->f);
    cl->done++;
  }
  return NULL;
}

ETEST_TIMEOUT(engine_50_clients_x4, 600) {
  env v;
  env_init(&v, 4, 22, 2, false);
  engine *e = env_start(&v);
  client cl[50];
  pthread_t th[50];
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < 50; i++) {
    cl[i] = (client){e, &v.f, i, 0};
    CHECK(pthread_create(&th[i], NULL, client_main, &cl[i]) == 0);
  }
  int done = 0;
  for (int i = 0; i < 50; i++) {
    pthread_join(th[i], NULL);
    done += cl[i].done;
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  CHECK_EQ_INT(done, 200);
  check_status(e, 200, 0, 0, 0);
  double secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
  printf("  200 jobs (2^4 chain) through 2 CPU workers in %.2f s: %.1f jobs/s\n", secs,
         200 / secs);
  env_fini(&v);
}

/* A key whose header is good but whose body is not passes engine_new (a
 * header check) and fails the job that loads it; the engine keeps serving. */
ETEST(engine_bad_key_body_fails_job) {
  env v;
  env_init(&v, 4, 23, 1, false);
  zkey_file zk;
  cuzk_err err = {0};
  CHECK(zkey_open(&zk, v.f.zkey, &err) == CUZK_OK);
  const binfile_section *s4 = NULL;
  CHECK(binfile_section_get(&zk.bf, 4, "coefficients", true, &s4, NULL) == CUZK_OK);
  size_t len, off = (size_t)s4->offset + 4; /* the first entry's matrix */
  zkey_close(&zk);
  uint8_t *bytes = (uint8_t *)test_read_file(v.f.zkey, &len);
  CHECK(bytes);
  bytes[off] = 7;
  char bad[300];
  snprintf(bad, sizeof bad, "%s/bad.zkey", v.dir);
  FILE *fp = fopen(bad, "wb");
  CHECK(fp && fwrite(bytes, 1, len, fp) == len && fclose(fp) == 0);
  free(bytes);
  v.circ[1] = (engine_circuit){.id = "bad", .path = bad};
  v.c.ncircuits = 2;
  engine *e = env_start(&v);
  submit_fails(e, "x", "bad", &v.f, CUZK_FORMAT, "bad.zkey");
  CHECK_EQ_INT(tier_of(e, "bad"), ENGINE_TIER_DISK);
  engine_ticket t;
  submit_ok(e, "y", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  check_done_and_valid(e, "y", &v.f);
  check_status(e, 1, 1, 0, 0);
  unlink(bad);
  env_fini(&v);
}

/* ------------------------------------------------------------ bad keys, job log */

/* Every line of the engine's log (engine_config.log) as "LEVEL text\n". */
typedef struct {
  pthread_mutex_t mu;
  char text[1 << 16];
  size_t len;
} line_rec;

static line_rec LINES = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void lines_fn(void *ctx, engine_log_level level, const char *msg) {
  line_rec *l = ctx;
  static const char *const name[] = {"ERROR", "WARN", "INFO"};
  pthread_mutex_lock(&l->mu);
  int n = snprintf(l->text + l->len, sizeof l->text - l->len, "%s %s\n", name[level], msg);
  if (n > 0 && (size_t)n < sizeof l->text - l->len)
    l->len += (size_t)n;
  pthread_mutex_unlock(&l->mu);
}

/* How many lines hold `sub` (at `level`, or any level when NULL). */
static unsigned lines_count(const char *level, const char *sub) {
  pthread_mutex_lock(&LINES.mu);
  unsigned n = 0;
  for (const char *l = LINES.text; *l;) {
    const char *end = strchr(l, '\n');
    size_t len = end ? (size_t)(end - l) : strlen(l);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)len, l);
    n += (!level || !strncmp(line, level, strlen(level))) && strstr(line, sub);
    l += len + (end != NULL);
  }
  pthread_mutex_unlock(&LINES.mu);
  return n;
}

/* Where `sub` first appears in the log (its length when it does not). */
static size_t lines_at(const char *sub) {
  pthread_mutex_lock(&LINES.mu);
  const char *at = strstr(LINES.text, sub);
  size_t pos = at ? (size_t)(at - LINES.text) : LINES.len;
  pthread_mutex_unlock(&LINES.mu);
  return pos;
}

/* A line is queued with the event, under the engine's lock, and written
 * when its thread flushes the queue after letting the lock go: an awaiter
 * woken by the event may look before that, so this waits for it (5 s). */
static void lines_need(const char *level, const char *sub) {
  for (int i = 0; i < 5000; i++) {
    if (lines_count(level, sub))
      return;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  pthread_mutex_lock(&LINES.mu);
  printf("%s", LINES.text);
  pthread_mutex_unlock(&LINES.mu);
  TEST_FAIL("no %s line with \"%s\" in the log above", level, sub);
}

/* Exactly n such lines, once n have been written (waited for as above). */
static void lines_need_n(const char *level, const char *sub, unsigned n) {
  for (int i = 0; i < 5000 && lines_count(level, sub) < n; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  CHECK_EQ_INT(lines_count(level, sub), n);
}

/* The env's key with one byte of H point `i`'s x flipped (off its curve,
 * deterministic for a fixed seed); *off receives the point's offset. */
static void corrupt_h_point(env *v, uint64_t i, size_t *off) {
  zkey_file zk;
  cuzk_err err = {0};
  CHECK(zkey_open(&zk, v->f.zkey, &err) == CUZK_OK);
  *off = (size_t)(zk.h - zk.bf.map.data) + (size_t)i * ZKEY_G1_BYTES;
  zkey_close(&zk);
  size_t len;
  uint8_t *bytes = (uint8_t *)test_read_file(v->f.zkey, &len);
  CHECK(bytes && *off < len);
  bytes[*off] ^= 1;
  FILE *fp = fopen(v->f.zkey, "wb");
  CHECK(fp && fwrite(bytes, 1, len, fp) == len && fclose(fp) == 0);
  free(bytes);
}

/* A key with a point off its curve fails its jobs as the key's fault (FORMAT
 * naming the file, the section, the point and its offset), not the
 * witness's; the key's points are scanned once while it stays loaded (one
 * ERROR line for two failing jobs) and again after it was evicted and
 * reloaded. */
ETEST(engine_corrupt_key_is_named_not_the_witness) {
  env v;
  env_init(&v, 5, 60, 1, false);
  size_t off;
  corrupt_h_point(&v, 3, &off);
  v.c.log = lines_fn;
  v.c.log_ctx = &LINES;
  engine *e = env_start(&v);
  char where[128];
  snprintf(where, sizeof where, "section 9 (H): point 3 at offset %zu: not on the curve", off);
  for (int i = 0; i < 2; i++) {
    const char *id = i ? "bad2" : "bad1";
    submit_fails(e, id, "k", &v.f, CUZK_FORMAT, where);
    engine_result r;
    CHECK(await_state(e, id, &r) == ENGINE_JOB_FAILED);
    CHECK_MSG(strstr(r.error, "the proving key is corrupt") && strstr(r.error, v.f.zkey) &&
                  !strstr(r.error, "witness"),
              "job %s: %s", id, r.error);
    printf("  %s: %s\n", id, r.error);
    engine_result_free(&r);
  }
  lines_need_n("ERROR", "circuit k: the proving key is corrupt", 1);
  lines_need("ERROR", where);
  bool was;
  uint64_t freed;
  CHECK(engine_evict(e, "k", &was, &freed, NULL) == CUZK_OK && was && freed);
  submit_fails(e, "bad3", "k", &v.f, CUZK_FORMAT, where);
  lines_need_n("ERROR", "circuit k: the proving key is corrupt", 2);
  env_fini(&v);
}

/* The per-job lines at INFO: accepted (ids, circuit, partitions,
 * priority, witness bytes), attached, refused with the reason, started
 * on which worker, done with its timings, failed and cancelled with the
 * reason; no witness value appears in the log. */
ETEST(engine_job_log_lines) {
  env v;
  env_init(&v, 5, 61, 1, false);
  v.c.log = lines_fn;
  v.c.log_ctx = &LINES;
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  engine_ticket t;
  submit_ok(e, "good", "k", ENGINE_PRI_HIGH, f, &t);
  check_done_and_valid(e, "good", f);
  submit_ok(e, "good", "k", ENGINE_PRI_HIGH, f, &t); /* attaches */
  CHECK(t.attached);
  submit_ok(e, NULL, "k", ENGINE_PRI_NORMAL, f, &t); /* a fresh id */
  char fresh[ENGINE_ID_MAX];
  snprintf(fresh, sizeof fresh, "%s", t.job_id);
  check_done_and_valid(e, fresh, f);
  uint8_t *bad = tampered_witness(f);
  cuzk_err err = {0};
  const uint8_t *wb[1] = {bad};
  size_t wl[1] = {f->wtns_len};
  CHECK(submit_full(e, "unsat", "k", ENGINE_PRI_LOW, wb, wl, 1, false, &t, &err) == CUZK_OK);
  engine_result r;
  CHECK(await_state(e, "unsat", &r) == ENGINE_JOB_FAILED);
  engine_result_free(&r);
  /* refused, then cancelled while queued */
  CHECK_EQ_INT(submit_full(e, "nope", "absent", 2, wb, wl, 1, false, &t, NULL), CUZK_NOT_FOUND);
  engine_set_paused(e, true);
  submit_ok(e, "gone", "k", ENGINE_PRI_NORMAL, f, &t);
  bool running;
  CHECK(engine_cancel(e, "gone", &running, NULL) == CUZK_OK && !running);
  engine_set_paused(e, false);

  char want[256];
  snprintf(want, sizeof want,
           "job good accepted: circuit k, 1 partition, priority high, request id \"good\", %zu "
           "witness bytes, 0 jobs ahead",
           f->wtns_len);
  lines_need("INFO", want);
  lines_need("INFO", "job good partition 0 of 1 started on cpu worker 0 (");
  lines_need("INFO", "job good done: circuit k, 1 partition; queue ");
  CHECK_EQ_INT(lines_count("INFO", "job good done:"), 1);
  lines_need("INFO", "job good: request id \"good\" is known: attached to that job");
  snprintf(want, sizeof want, "job %s accepted: circuit k, 1 partition, priority normal, "
           "request id \"\"", fresh);
  lines_need("INFO", want);
  snprintf(want, sizeof want, "job %s done", fresh);
  lines_need("INFO", want);
  lines_need("INFO", "job unsat failed: circuit k, 1 partition; unsatisfied: partition 0: "
                     "witness 0: the proof computed from it fails verification");
  lines_need("INFO", "submission refused: circuit absent, request id \"nope\", 1 partition");
  lines_need("INFO", "not_found");
  lines_need("INFO", "job gone cancelled: circuit k, 1 partition; cancelled by request; queue ");
  CHECK_EQ_INT(lines_count("INFO", "job gone partition"), 0); /* never started */
  /* each job's lines in the order of its events */
  CHECK(lines_at("job good accepted") < lines_at("job good partition 0 of 1 started"));
  CHECK(lines_at("job good partition 0 of 1 started") < lines_at("job good done"));
  CHECK(lines_at("job unsat accepted") < lines_at("job unsat partition 0 of 1 started"));
  CHECK(lines_at("job unsat partition 0 of 1 started") < lines_at("job unsat failed"));
  CHECK(lines_at("job gone accepted") < lines_at("job gone cancelled"));
  const char *const timing[] = {"queue ", "key load ", "prove ", "verify ", "total ", NULL};
  for (const char *const *k = timing; *k; k++) lines_need("INFO", *k);
  CHECK_EQ_INT(lines_count("ERROR", ""), 0);
  CHECK_EQ_INT(lines_count("WARN", ""), 0);
  printf("%s", LINES.text);
  /* no witness value, as the hex of its bytes in either order */
  wtns_file w;
  CHECK(wtns_open_mem(&w, f->wtns, f->wtns_len, "w", &err) == CUZK_OK);
  for (uint64_t i = 0; i < w.n_witness; i++) {
    const uint8_t *b = wtns_value(&w, i);
    char le[65], be[65];
    for (int k = 0; k < 32; k++) {
      snprintf(le + 2 * k, 3, "%02x", b[k]);
      snprintf(be + 2 * k, 3, "%02x", b[31 - k]);
    }
    CHECK_MSG(!lines_count(NULL, le) && !lines_count(NULL, be), "witness value %llu logged",
              (unsigned long long)i);
  }
  wtns_close(&w);
  free(bad);
  env_fini(&v);
}

/* The partitions of one job spread over the free workers, and come back
 * in their order. */
ETEST(engine_partitions_run_in_parallel) {
  env v;
  env_init(&v, 5, 24, 2, true);
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  hook_hold("multi", ENGINE_JOB_PROVING);
  const uint8_t *w[4] = {f->wtns, f->wtns, f->wtns, f->wtns};
  size_t wl[4] = {f->wtns_len, f->wtns_len, f->wtns_len, f->wtns_len};
  engine_ticket t;
  cuzk_err err = {0};
  CHECK(submit_full(e, "multi", "k", 2, w, wl, 4, false, &t, &err) == CUZK_OK);
  hook_wait_taken(2); /* both workers on partitions of the one job */
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.busy_workers, 2);
  engine_status_free(&s);
  hook_release();
  check_done_and_valid(e, "multi", f);
  CHECK_EQ_INT(H.taken, 4);
  env_fini(&v);
}

/* Room for two keys: the least recently used idle one makes room for a
 * third, not the one used just before. */
ETEST(engine_eviction_is_lru) {
  env v;
  env_init(&v, 4, 25, 1, false);
  fixture f2, f3;
  env_add_key(&v, &f2, "k2", 4, 26);
  env_add_key(&v, &f3, "k3", 4, 27);
  env_room(&v, 5);
  engine *e = env_start(&v);
  engine_ticket t;
  const struct {
    const char *job, *key;
    const fixture *f;
  } seq[] = {{"a", "k", &v.f}, {"b", "k2", &f2}, {"c", "k", &v.f}, {"d", "k3", &f3}};
  for (size_t i = 0; i < 4; i++) {
    submit_ok(e, seq[i].job, seq[i].key, ENGINE_PRI_NORMAL, seq[i].f, &t);
    check_done_and_valid(e, seq[i].job, seq[i].f);
  }
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_MAPPED);
  CHECK_EQ_INT(tier_of(e, "k2"), ENGINE_TIER_DISK);
  CHECK_EQ_INT(tier_of(e, "k3"), ENGINE_TIER_MAPPED);
  fixture_free(&f2);
  fixture_free(&f3);
  env_fini(&v);
}

/* Room for one key, two workers: a load that needs the room of a key in
 * use waits for it to be released (and does not fail). */
ETEST(engine_load_waits_for_key_in_use) {
  env v;
  env_init(&v, 5, 28, 2, true);
  fixture f2;
  env_add_key(&v, &f2, "k2", 5, 29);
  env_room(&v, 3);
  engine *e = env_start(&v);
  submit_held(&v, "a", ENGINE_JOB_PROVING); /* holds key k */
  engine_ticket t;
  submit_ok(e, "b", "k2", ENGINE_PRI_NORMAL, &f2, &t);
  hook_wait_taken(2); /* the other worker took b and waits for room */
  engine_result r;
  cuzk_err err = {0};
  CHECK_EQ_INT(engine_await(e, "b", 50, &r, &err), CUZK_TIMEOUT);
  CHECK_EQ_INT(r.state, ENGINE_JOB_PREPARING);
  engine_result_free(&r);
  CHECK_EQ_INT(tier_of(e, "k2"), ENGINE_TIER_DISK);
  /* cancelled while it waits: the worker stops waiting; the id proves afresh */
  bool was_running = false;
  CHECK(engine_cancel(e, "b", &was_running, &err) == CUZK_OK && was_running);
  CHECK(await_state(e, "b", &r) == ENGINE_JOB_CANCELLED);
  engine_result_free(&r);
  submit_ok(e, "b", "k2", ENGINE_PRI_NORMAL, &f2, &t);
  CHECK(!t.attached);
  hook_wait_taken(3);
  hook_release();
  check_done_and_valid(e, "a", &v.f);
  check_done_and_valid(e, "b", &f2);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  CHECK_EQ_INT(tier_of(e, "k2"), ENGINE_TIER_MAPPED);
  fixture_free(&f2);
  env_fini(&v);
}

/* ------------------------------------------------------------ resident copies, shared */

/* The store of resident copies that a GPU's slots share
 * (backend/store.h), without a GPU: its objects here are host
 * buffers.  Two threads asking for one id at once get one make; the copy
 * lives until its last holder lets go; a failed make fails its waiters
 * and leaves nothing. */
typedef struct {
  pthread_mutex_t mu;
  unsigned makes, frees;
  int fail;            /* makes return NULL */
  unsigned delay_ms;   /* each make takes this long (so that askers meet) */
} store_rec;

static store_rec SR = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void sleep_ms(unsigned ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&ts, NULL);
}

static void *sr_make(void *ctx, size_t *bytes) {
  size_t n = *(const size_t *)ctx;
  pthread_mutex_lock(&SR.mu);
  SR.makes++;
  int fail = SR.fail;
  unsigned delay = SR.delay_ms;
  pthread_mutex_unlock(&SR.mu);
  sleep_ms(delay);
  if (fail)
    return NULL;
  *bytes = n;
  return calloc(1, n);
}

static void sr_free(void *obj) {
  pthread_mutex_lock(&SR.mu);
  SR.frees++;
  pthread_mutex_unlock(&SR.mu);
  free(obj);
}

typedef struct {
  backend_store *s;
  const char *id;
  size_t n;
  backend_res *got;
} asker;

static void *asker_main(void *arg) {
  asker *a = arg;
  a->got = backend_store_acquire(a->s, a->id, strlen(a->id), sr_make, &a->n, sr_free);
  return NULL;
}

/* Two askers of one id, started together; returns their entries. */
static void ask_twice(backend_store *s, const char *id, size_t n, backend_res **r0,
                      backend_res **r1) {
  asker a[2] = {{s, id, n, NULL}, {s, id, n, NULL}};
  pthread_t th[2];
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, asker_main, &a[i]) == 0);
  for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
  *r0 = a[0].got, *r1 = a[1].got;
}

ETEST(engine_resident_store_shares_one_copy) {
  backend_store *s = backend_store_new();
  CHECK(s);
  SR.delay_ms = 50;
  backend_res *r0, *r1;
  ask_twice(s, "bases-A", 1000, &r0, &r1);
  CHECK(r0 && r0 == r1);
  CHECK_EQ_INT(SR.makes, 1); /* the second asker waited for the first's upload */
  backend_store_stats st;
  backend_store_stats_get(s, &st);
  CHECK_EQ_INT(st.entries, 1);
  CHECK_EQ_INT(st.bytes, 1000);
  CHECK_EQ_INT(backend_store_bytes(s), 1000);
  /* another set is another entry; a third holder of the first finds it */
  SR.delay_ms = 0;
  backend_res *b = backend_store_acquire(s, "bases-B", 7, sr_make, &(size_t){24}, sr_free);
  backend_res *r2 = backend_store_acquire(s, "bases-A", 7, sr_make, &(size_t){1000}, sr_free);
  CHECK(b && b != r0 && r2 == r0);
  CHECK_EQ_INT(SR.makes, 2);
  CHECK_EQ_INT(backend_store_bytes(s), 1024);
  /* the copy goes with its last holder, not before */
  backend_store_release(s, r0);
  backend_store_release(s, r1);
  CHECK_EQ_INT(SR.frees, 0);
  CHECK_EQ_INT(backend_store_bytes(s), 1024);
  CHECK(backend_res_object(r2) != NULL);
  backend_store_release(s, r2);
  CHECK_EQ_INT(SR.frees, 1);
  CHECK_EQ_INT(backend_store_bytes(s), 24);
  backend_store_release(s, b);
  CHECK_EQ_INT(SR.frees, 2);
  backend_store_stats_get(s, &st);
  CHECK_EQ_INT(st.entries, 0);
  CHECK_EQ_INT(st.bytes, 0);
  /* a make that fails (no room) fails both askers, once, and leaves nothing */
  SR.fail = 1, SR.delay_ms = 50;
  ask_twice(s, "bases-C", 64, &r0, &r1);
  CHECK(!r0 && !r1);
  CHECK_EQ_INT(SR.makes, 3);
  backend_store_stats_get(s, &st);
  CHECK_EQ_INT(st.failures, 1);
  CHECK_EQ_INT(st.entries, 0);
  /* and a later ask tries again */
  SR.fail = 0, SR.delay_ms = 0;
  r0 = backend_store_acquire(s, "bases-C", 7, sr_make, &(size_t){64}, sr_free);
  CHECK(r0);
  CHECK_EQ_INT(SR.makes, 4);
  backend_store_release(s, r0);
  CHECK_EQ_INT(SR.frees, 3);
  backend_store_free(s);
}

/* ------------------------------------------------------------ stand-in GPUs */

/* GPU slots without a GPU (engine_config.devices): each slot's backend
 * is the CPU backend plus hold_bases over its device's store (the real
 * one, as the CUDA backend uses it), whose copies are host records of the
 * base sets; memory is modelled: each GPU has `total` bytes, a planned
 * slot takes slot_bytes (at its first reserve) and the store its copies'
 * bytes.  Counters per GPU and slot show which MSMs ran over a resident
 * copy and when a slot let go of its copies. */
#define FG_GPUS 2
#define FG_SLOTS 4
#define FG_LIVE 0x11fe11fe11fe11feull

typedef struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned ngpus; /* the provider's count */
  uint64_t total, slot_bytes;
  uint64_t planned[FG_GPUS];
  unsigned pass1_backends; /* backends made with ntt_pass1_table */
  bool no_bls;             /* the devices say they cannot run BLS12-381 */
  backend_store *store[FG_GPUS];
  unsigned resident_msms[FG_GPUS][FG_SLOTS], streamed_msms[FG_GPUS][FG_SLOTS];
  unsigned drops[FG_GPUS][FG_SLOTS]; /* hold_bases(false) with copies held */
  /* A lost GPU: its lose_at-th MSM (0: never) fails with DEVICE_LOST, as
   * a sticky CUDA error does, and so does every later operation of its
   * backends (zkey_ab, quotient, MSM), counted in after_loss. */
  unsigned lose_at[FG_GPUS], msms[FG_GPUS], after_loss[FG_GPUS], destroys[FG_GPUS];
  bool host_buffers; /* the slots' backends offer host_vectors and host_staging */
  /* The devices give page-locked host memory (malloc's here) and the
   * slots take it as their staging (host_staging_swap, counted). */
  bool pinned;
  unsigned swaps, host_allocs, host_frees;
  bool lost[FG_GPUS];
} fake_gpus;

static fake_gpus FG = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

typedef struct {
  uint64_t magic; /* FG_LIVE until freed */
  bool g2;
  size_t nparts;
  const void *bases[4];
  size_t n[4];
} fake_set;

typedef struct {
  backend *cpu;
  int ordinal;
  unsigned slot;
  backend_store *store;
  bool hold, reserved;
  backend_res *res[8];
  unsigned nres;
  bls12_381_fr *vec; /* FG.host_buffers: host_vectors' and host_staging's memory */
  size_t nvec;
  void *stage;
  size_t nstage;
} fake_impl;

static bool fake_set_match(const fake_set *f, bool g2, const msm_part *parts, size_t nparts) {
  if (f->g2 != g2 || f->nparts != nparts)
    return false;
  for (size_t i = 0; i < nparts; i++)
    if (f->bases[i] != parts[i].bases || f->n[i] != parts[i].n)
      return false;
  return true;
}

typedef struct {
  bool g2;
  const msm_part *parts;
  size_t nparts;
} fake_req;

static void *fake_set_make(void *ctx, size_t *bytes) {
  const fake_req *q = ctx;
  fake_set *f = calloc(1, sizeof *f);
  CHECK(f);
  f->magic = FG_LIVE, f->g2 = q->g2, f->nparts = q->nparts;
  *bytes = 0;
  for (size_t i = 0; i < q->nparts; i++) {
    f->bases[i] = q->parts[i].bases, f->n[i] = q->parts[i].n;
    *bytes += q->parts[i].n * (q->g2 ? 192 : 96); /* zkey affine points */
  }
  return f;
}

static void fake_set_free(void *obj) {
  fake_set *f = obj;
  f->magic = 0;
  free(f);
}

/* The resident set for parts, as the CUDA backend's resident_for: held
 * already, or from the store. */
static const fake_set *fake_resident(fake_impl *im, bool g2, const msm_part *parts,
                                     size_t nparts) {
  backend_bases_id id;
  const size_t id_len = backend_bases_id_make(&id, g2 ? 2 : 1, parts, nparts);
  if (!im->hold || !id_len || nparts > 4)
    return NULL;
  for (unsigned i = 0; i < im->nres; i++)
    if (fake_set_match(backend_res_object(im->res[i]), g2, parts, nparts))
      return backend_res_object(im->res[i]);
  CHECK(im->nres < 8);
  fake_req q = {g2, parts, nparts};
  backend_res *r = backend_store_acquire(im->store, &id, id_len, fake_set_make, &q,
                                           fake_set_free);
  if (!r)
    return NULL;
  im->res[im->nres++] = r;
  return backend_res_object(r);
}

/* Before an MSM: its resident set (alive: under ASan a freed one is a use
 * after free), counted as a resident or a streamed MSM of the slot. */
static void fake_msm_start(backend *b, bool g2, const msm_part *parts, size_t nparts) {
  fake_impl *im = b->impl;
  const fake_set *set = fake_resident(im, g2, parts, nparts);
  CHECK(!set || set->magic == FG_LIVE);
  pthread_mutex_lock(&FG.mu);
  if (set)
    FG.resident_msms[im->ordinal][im->slot]++;
  else
    FG.streamed_msms[im->ordinal][im->slot]++;
  pthread_mutex_unlock(&FG.mu);
}

/* The stand-in of a sticky CUDA error (what cuda_fail makes of one). */
static cuzk_status fake_lost(cuzk_err *err) {
  return cuzk_err_set(err, CUZK_DEVICE_LOST,
                      "src/cuda/msm_gpu.cu:321: cudaStreamSynchronize(s): an illegal memory "
                      "access was encountered (cudaErrorIllegalAddress)");
}

/* Before an operation of b: DEVICE_LOST when its GPU is lost (counted);
 * an MSM (msm) also counts towards lose_at, and the one that reaches it
 * loses the GPU. */
static cuzk_status fake_check(backend *b, bool msm, cuzk_err *err) {
  const int g = ((fake_impl *)b->impl)->ordinal;
  pthread_mutex_lock(&FG.mu);
  bool lost = FG.lost[g];
  if (lost)
    FG.after_loss[g]++;
  else if (msm && ++FG.msms[g] == FG.lose_at[g])
    FG.lost[g] = lost = true;
  pthread_mutex_unlock(&FG.mu);
  return lost ? fake_lost(err) : CUZK_OK;
}

static cuzk_status fake_msm_g1(backend *b, bls12_381_g1_jac *out, const msm_part *parts,
                               size_t nparts, cuzk_err *err) {
  backend *cpu = ((fake_impl *)b->impl)->cpu;
  fake_msm_start(b, false, parts, nparts);
  CUZK_TRY(fake_check(b, true, err));
  return cpu->ops->msm_g1(cpu, out, parts, nparts, err);
}

static cuzk_status fake_msm_g2(backend *b, bls12_381_g2_jac *out, const msm_part *parts,
                               size_t nparts, cuzk_err *err) {
  backend *cpu = ((fake_impl *)b->impl)->cpu;
  fake_msm_start(b, true, parts, nparts);
  CUZK_TRY(fake_check(b, true, err));
  return cpu->ops->msm_g2(cpu, out, parts, nparts, err);
}

static void fake_drop(fake_impl *im) {
  if (im->nres) {
    pthread_mutex_lock(&FG.mu);
    FG.drops[im->ordinal][im->slot]++;
    pthread_cond_broadcast(&FG.cv);
    pthread_mutex_unlock(&FG.mu);
  }
  for (unsigned i = 0; i < im->nres; i++) backend_store_release(im->store, im->res[i]);
  im->nres = 0;
}

static cuzk_status fake_hold_bases(backend *b, bool on, cuzk_err *err) {
  fake_impl *im = b->impl;
  (void)err;
  if (!on)
    fake_drop(im);
  im->hold = on;
  return CUZK_OK;
}

static cuzk_status fake_reserve(backend *b, size_t g1, size_t g2, unsigned lg, cuzk_err *err) {
  fake_impl *im = b->impl;
  (void)g1, (void)g2, (void)lg, (void)err;
  if (!im->reserved) { /* the slot's scratch, once */
    pthread_mutex_lock(&FG.mu);
    FG.planned[im->ordinal] += FG.slot_bytes;
    pthread_mutex_unlock(&FG.mu);
    im->reserved = true;
  }
  return CUZK_OK;
}

static bool fake_supports(const backend *b, cuzk_curve curve, backend_op op) {
  return backend_supports(((const fake_impl *)b->impl)->cpu, curve, op);
}

static cuzk_status fake_zkey_ab(backend *b, bls12_381_fr *a, bls12_381_fr *bv, size_t n,
                                const void *entries, size_t n_entries, const void *witness,
                                size_t n_witness, cuzk_err *err) {
  backend *cpu = ((fake_impl *)b->impl)->cpu;
  CUZK_TRY(fake_check(b, false, err));
  return cpu->ops->zkey_ab(cpu, a, bv, n, entries, n_entries, witness, n_witness, err);
}

static cuzk_status fake_quotient(backend *b, void *h, bls12_381_fr *a, bls12_381_fr *bv,
                                 bls12_381_fr *c, unsigned lg_n, cuzk_err *err) {
  backend *cpu = ((fake_impl *)b->impl)->cpu;
  CUZK_TRY(fake_check(b, false, err));
  return cpu->ops->quotient(cpu, h, a, bv, c, lg_n, err);
}

static void fake_destroy(backend *b) {
  fake_impl *im = b->impl;
  fake_drop(im);
  pthread_mutex_lock(&FG.mu);
  if (im->reserved)
    FG.planned[im->ordinal] -= FG.slot_bytes;
  FG.destroys[im->ordinal]++;
  pthread_cond_broadcast(&FG.cv);
  pthread_mutex_unlock(&FG.mu);
  backend_free(im->cpu);
  free(im->vec);
  free(im->stage);
  free(im);
  free(b);
}

/* A GPU backend's page-locked vectors and staging, stood in for by malloc:
 * kept and grown as the CUDA backend's are. */
static bls12_381_fr *fake_host_vectors(backend *b, size_t n, cuzk_err *err) {
  fake_impl *im = b->impl;
  if (n > im->nvec) {
    free(im->vec);
    im->nvec = (im->vec = calloc(n, sizeof *im->vec)) ? n : 0;
  }
  if (!im->vec)
    cuzk_err_set(err, CUZK_NO_MEMORY, "fake host vectors: no memory");
  return im->vec;
}

static void *fake_host_staging(backend *b, size_t bytes, cuzk_err *err) {
  fake_impl *im = b->impl;
  if (bytes > im->nstage) {
    free(im->stage);
    im->nstage = (im->stage = malloc(bytes)) ? bytes : 0;
  }
  if (!im->stage)
    cuzk_err_set(err, CUZK_NO_MEMORY, "fake host staging: no memory");
  return im->stage;
}

/* As the CUDA backend's: the staging for p when it is at least as large. */
static void *fake_host_staging_swap(backend *b, void *p, size_t bytes, size_t *old_bytes) {
  fake_impl *im = b->impl;
  if (!im->stage || im->nstage < bytes)
    return NULL;
  void *old = im->stage;
  *old_bytes = im->nstage;
  im->stage = p, im->nstage = bytes;
  pthread_mutex_lock(&FG.mu);
  FG.swaps++;
  pthread_mutex_unlock(&FG.mu);
  return old;
}

static const backend_ops fake_ops = {
    .name = "fake-gpu",
    .supports = fake_supports,
    .reserve = fake_reserve,
    .hold_bases = fake_hold_bases,
    .zkey_ab = fake_zkey_ab,
    .quotient = fake_quotient,
    .msm_g1 = fake_msm_g1,
    .msm_g2 = fake_msm_g2,
    .destroy = fake_destroy,
};

/* fake_ops with host_vectors and host_staging (FG.host_buffers), made
 * from it on first use (under FG.mu). */
static backend_ops fake_ops_host;

static backend *fake_backend_new(const backend_devices *d, int ordinal,
                                 const backend_device_opts *o, cuzk_err *err) {
  (void)d, (void)err;
  const unsigned slot = o->slot;
  backend_store *store = o->store;
  CHECK(ordinal >= 0 && ordinal < FG_GPUS && slot < FG_SLOTS && store);
  pthread_mutex_lock(&FG.mu);
  CHECK(!FG.store[ordinal] || FG.store[ordinal] == store); /* one store per GPU */
  FG.store[ordinal] = store;
  FG.pass1_backends += o->ntt_pass1_table;
  pthread_mutex_unlock(&FG.mu);
  backend *b = calloc(1, sizeof *b);
  fake_impl *im = calloc(1, sizeof *im);
  CHECK(b && im && (im->cpu = backend_cpu_new(1)));
  im->ordinal = ordinal, im->slot = slot, im->store = store;
  pthread_mutex_lock(&FG.mu);
  if (!fake_ops_host.name) {
    fake_ops_host = fake_ops;
    fake_ops_host.host_vectors = fake_host_vectors;
    fake_ops_host.host_staging = fake_host_staging;
    fake_ops_host.host_staging_swap = fake_host_staging_swap;
  }
  pthread_mutex_unlock(&FG.mu);
  b->ops = FG.host_buffers ? &fake_ops_host : &fake_ops, b->threads = 1, b->impl = im;
  return b;
}

static cuzk_status fake_mem_info(const backend_devices *d, int ordinal, uint64_t *free_bytes,
                                 uint64_t *total_bytes, cuzk_err *err) {
  (void)d, (void)err;
  pthread_mutex_lock(&FG.mu);
  uint64_t used = FG.planned[ordinal] + backend_store_bytes(FG.store[ordinal]);
  *total_bytes = FG.total;
  *free_bytes = FG.total > used ? FG.total - used : 0;
  pthread_mutex_unlock(&FG.mu);
  return CUZK_OK;
}

static int fake_count(const backend_devices *d, char *why, size_t n) {
  (void)d;
  snprintf(why, n, "no stand-in GPU");
  return (int)FG.ngpus;
}

static void fake_name(const backend_devices *d, int ordinal, char *buf, size_t n) {
  (void)d;
  snprintf(buf, n, "test GPU %d", ordinal);
}

static bool fake_dev_supports(const backend_devices *d, int ordinal, cuzk_curve curve,
                              backend_op op) {
  (void)d, (void)ordinal, (void)op;
  return curve == CUZK_CURVE_BLS12_381 && !FG.no_bls;
}

static bool fake_has(const backend_devices *d, int ordinal, backend_cap cap) {
  (void)d, (void)ordinal;
  /* without FG.pinned no page-locked memory: PINNED keys are mlock'ed */
  return cap == BACKEND_CAP_RESIDENT || (cap == BACKEND_CAP_HOST_PINNED && FG.pinned);
}

static cuzk_status fake_host_alloc(const backend_devices *d, int ordinal, void **p, size_t bytes,
                                   cuzk_err *err) {
  (void)d;
  CHECK(ordinal >= 0 && ordinal < (int)FG.ngpus); /* one of the engine's GPUs */
  if (!(*p = malloc(bytes ? bytes : 1)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "fake host memory: %zu bytes", bytes);
  pthread_mutex_lock(&FG.mu);
  FG.host_allocs++;
  pthread_mutex_unlock(&FG.mu);
  return CUZK_OK;
}

static void fake_host_free(const backend_devices *d, void *p) {
  (void)d;
  pthread_mutex_lock(&FG.mu);
  FG.host_frees += p != NULL;
  pthread_mutex_unlock(&FG.mu);
  free(p);
}

static const backend_devices_ops fake_devices_ops = {
    .kind = "stand-in",
    .count = fake_count,
    .name = fake_name,
    .mem_info = fake_mem_info,
    .supports = fake_dev_supports,
    .has = fake_has,
    .backend_new = fake_backend_new,
    .host_alloc = fake_host_alloc,
    .host_free = fake_host_free,
};

/* The env's engine on `ngpus` stand-in GPUs of K slots, keys on the device
 * with a budget of `budget` bytes per GPU (0: auto). */
static backend_devices fake_on(env *v, unsigned ngpus, unsigned K, uint64_t budget) {
  backend_devices t = {.ops = &fake_devices_ops};
  FG.ngpus = ngpus;
  FG.total = (uint64_t)64 << 30, FG.slot_bytes = (uint64_t)1 << 30;
  v->c.device = ENGINE_DEVICE_GPU;
  v->c.gpu_workers_per_device = K;
  v->c.keys_on_device = true;
  v->c.device_budget_bytes = budget;
  return t;
}

/* A fresh env (key "k" of 2^lg from seed) on one stand-in GPU of K slots,
 * the stores of an earlier engine forgotten. */
static void fake_env(env *v, backend_devices *t, unsigned lg, uint64_t seed, unsigned K) {
  memset(FG.store, 0, sizeof FG.store);
  env_init(v, lg, seed, 1, false);
  *t = fake_on(v, 1, K, 0);
  v->c.devices = t;
}

/* Submits one job of n partitions of the env's key. */
static void submit_parts(env *v, const char *id, size_t n) {
  const uint8_t *w[8];
  size_t wl[8];
  CHECK(n <= 8);
  for (size_t i = 0; i < n; i++) w[i] = v->f.wtns, wl[i] = v->f.wtns_len;
  engine_ticket t;
  cuzk_err err = {0};
  cuzk_status st = submit_full(v->e, id, "k", ENGINE_PRI_NORMAL, w, wl, n, false, &t, &err);
  CHECK_MSG(st == CUZK_OK, "submit %s: %s", id, err.msg);
}

/* One copy's bytes: the key's MSM base sets (A, B1, B2, C and H), as the
 * stand-in counts them, from the key's shape. */
static uint64_t one_copy_bytes(const fixture *f) {
  zkey_file zk;
  cuzk_err err = {0};
  CHECK(zkey_open(&zk, f->zkey, &err) == CUZK_OK);
  uint64_t nv = zk.n_vars, n = zk.domain_size, priv = zk.n_vars - zk.n_public - 1;
  zkey_close(&zk);
  return nv * 96 /* A */ + nv * 96 /* B1 */ + nv * 192 /* B2 */ + (priv + n) * 96 /* C, H */;
}

/* What a resident key costs a GPU's budget (keys.c: the file, plus the
 * coefficients' row index and a/b scratch of a GPU's copy). */
static uint64_t device_bytes(const fixture *f) {
  zkey_file zk;
  cuzk_err err = {0};
  CHECK(zkey_open(&zk, f->zkey, &err) == CUZK_OK);
  uint64_t nv = zk.n_vars, n = zk.domain_size;
  zkey_close(&zk);
  return f->zkey_bytes + 4 * (n + 1) + 32 * (nv + 2 * n);
}

static void check_gpu(const engine_status *s, size_t i, uint64_t used, uint64_t resident) {
  CHECK(i < s->ngpus);
  CHECK_MSG(s->gpus[i].used == used, "GPU %d: used %llu, want %llu (one copy per GPU)",
            s->gpus[i].ordinal, (unsigned long long)s->gpus[i].used, (unsigned long long)used);
  CHECK_MSG(s->gpus[i].resident == resident, "GPU %d: resident %llu, want %llu",
            s->gpus[i].ordinal, (unsigned long long)s->gpus[i].resident,
            (unsigned long long)resident);
}

/* K = 2 slots on each of 2 GPUs, all four proving the one key at once, with
 * a device budget of 1.5 keys: each GPU holds one copy that both of its
 * slots use (a copy per slot would not fit), counted once against its
 * budget; GetStatus and the metrics say so; every proof verifies. */
/* What one slot's page-locked vectors (3 x the domain) and witness
 * staging cost the host budget, from the key's shape. */
static uint64_t slot_host_bytes(const fixture *f) {
  zkey_file zk;
  cuzk_err err = {0};
  CHECK(zkey_open(&zk, f->zkey, &err) == CUZK_OK);
  uint64_t nv = zk.n_vars, n = zk.domain_size;
  zkey_close(&zk);
  return 3 * n * 32 + 32 * nv;
}

/* The GPU slots' page-locked vectors and staging are charged to the keys'
 * share of the host budget when the slots start, and a slot whose
 * buffers do not fit is not started (its GPU gets fewer slots, saying
 * why). */
ETEST(engine_slot_host_buffers_charged) {
  env v;
  env_init(&v, 4, 61, 1, false);
  backend_devices t = fake_on(&v, 1, 2, 0);
  FG.host_buffers = true;
  v.c.devices = &t;
  const uint64_t sb = slot_host_bytes(&v.f);
  engine *e = env_start(&v);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].slots, 2);
  CHECK_EQ_INT(s.host_used - s.queue_used, 2 * sb); /* both slots', no key yet */
  engine_status_free(&s);
  engine_ticket tk;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &tk); /* the buffers serve a proof */
  check_done_and_valid(e, "a", &v.f);
  env_fini(&v);

  /* room for one slot's buffers beside the queue, not two */
  memset(FG.store, 0, sizeof FG.store); /* a new engine, new stores */
  env_init(&v, 4, 61, 1, false);
  t = fake_on(&v, 1, 2, 0);
  FG.host_buffers = true;
  v.c.devices = &t;
  v.c.queue_budget_bytes = (uint64_t)16 << 20;
  v.c.host_budget_bytes = v.c.queue_budget_bytes + sb + sb / 2;
  e = env_start(&v);
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].slots, 1);
  CHECK_MSG(strstr(s.gpus[0].note, "page-locked"), "note: %s", s.gpus[0].note);
  CHECK_EQ_INT(s.host_used - s.queue_used, sb);
  engine_status_free(&s);
  env_fini(&v);
}

/* The engine's read-ahead figures (status). */
static void readahead_of(engine *e, unsigned *buffers, unsigned *filled, uint64_t *used) {
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  *buffers = s.readahead_buffers, *filled = s.readahead_filled, *used = s.readahead_used;
  engine_status_free(&s);
}

/* Waits (bounded) until at least n read-ahead buffers are filled (held
 * or being read), or with at_most until at most n are (a buffer whose
 * partition was dropped while it was read is freed when the read ends). */
static void wait_filled_(engine *e, unsigned n, bool at_most) {
  for (int i = 0; i < 10000; i++) {
    unsigned b, f;
    uint64_t u;
    readahead_of(e, &b, &f, &u);
    if (at_most ? f <= n : f >= n)
      return;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  TEST_FAIL("read-ahead buffers filled: not %s %u after 10 s", at_most ? "at most" : "at least",
            n);
}
static void wait_filled(engine *e, unsigned n) { wait_filled_(e, n, false); }

/* Submits a job of n partitions naming witness file `name` (under the
 * witness directory); its id in t. */
static void submit_files(engine *e, const char *name, size_t n, int pri, engine_ticket *t) {
  const char *names[8];
  CHECK(n <= 8);
  for (size_t i = 0; i < n; i++) names[i] = name;
  engine_request rq = {.circuit_id = "k", .nparts = n, .witness_file = names, .priority = pri};
  cuzk_err err = {0};
  CHECK_MSG(engine_submit(e, &rq, t, &err) == CUZK_OK, "submit %s: %s", name, err.msg);
}

/* An engine on one stand-in GPU of K slots with page-locked memory and
 * host buffers, `buffers` read-ahead buffers and the env's directory as
 * its witness directory (key "k" of 2^4 rows from seed). */
static engine *readahead_start_env(env *v, backend_devices *t, uint64_t seed, unsigned K,
                                   unsigned buffers, bool hooked) {
  fake_env(v, t, 4, seed, K);
  if (hooked)
    with_hook(&v->c);
  FG.host_buffers = true, FG.pinned = true;
  FG.swaps = FG.host_allocs = FG.host_frees = 0;
  v->c.witness_dir = v->dir;
  v->c.witness_readahead = buffers;
  return env_start(v);
}

/* Witness files read ahead (engine_config.witness_readahead) on a
 * stand-in GPU with page-locked memory, K = 1: while the slot holds
 * partition 0 before its read, the reader fills a buffer for each of the
 * next three; each begins from its buffer, taken as the slot's staging
 * without a copy, every proof verifies and the buffers are back in the
 * pool.  A cancelled job's buffers go back at once; a file cut short
 * after its submit, while every buffer is taken, fails its own job (the
 * reader's failed read leaves the worker to read it and say why) and
 * nothing else; a CRITICAL job submitted after a NORMAL one whose witness
 * was read ahead is still proven first.  No buffers are made without a
 * witness directory. */
ETEST(engine_witness_readahead) {
  env v;
  backend_devices t;
  engine *e = readahead_start_env(&v, &t, 61, 1, 4, true);
  unsigned nb, nf;
  uint64_t used;
  readahead_of(e, &nb, &nf, &used);
  CHECK_EQ_INT(nb, 4);
  CHECK_EQ_INT(FG.host_allocs, 4);

  hook_hold("*", ENGINE_JOB_PREPARING);
  engine_ticket t1;
  submit_files(e, "k.wtns", 4, ENGINE_PRI_NORMAL, &t1);
  hook_wait_held(); /* partition 0 taken, not yet read */
  wait_filled(e, 3); /* partitions 1..3 (and maybe 0, read before it was taken) */
  hook_release();
  check_done_and_valid(e, t1.job_id, &v.f);
  wait_workers_idle(e);
  readahead_of(e, &nb, &nf, &used);
  CHECK_MSG(used >= 3 && used <= 4, "%llu partitions begun from a read-ahead buffer",
            (unsigned long long)used);
  CHECK_EQ_INT(nf, 0);
  CHECK_EQ_INT(FG.swaps, used); /* the slot's staging is as large as the buffers */
  char line[80];
  snprintf(line, sizeof line, "cuzk_witness_readahead_total %llu\n", (unsigned long long)used);
  const char *m[] = {line, NULL};
  check_metrics(e, m);

  /* a cancelled job gives its buffers back */
  engine_set_paused(e, true);
  engine_ticket t2;
  submit_files(e, "k.wtns", 2, ENGINE_PRI_NORMAL, &t2);
  wait_filled(e, 2);
  cuzk_err err = {0};
  CHECK(engine_cancel(e, t2.job_id, NULL, &err) == CUZK_OK);
  wait_filled_(e, 0, true);

  /* every buffer filled, then a file cut short after its submit */
  engine_ticket t3, t4, t5, t6;
  submit_files(e, "k.wtns", 4, ENGINE_PRI_NORMAL, &t3);
  wait_filled(e, 4);
  char cut[320];
  snprintf(cut, sizeof cut, "%s/cut.wtns", v.dir);
  FILE *fp = fopen(cut, "wb");
  CHECK(fp && fwrite(v.f.wtns, 1, v.f.wtns_len, fp) == v.f.wtns_len && fclose(fp) == 0);
  submit_files(e, "cut.wtns", 1, ENGINE_PRI_NORMAL, &t4);
  CHECK(truncate(cut, (off_t)(v.f.wtns_len - 32)) == 0);
  /* and a NORMAL job read ahead before a CRITICAL one submitted after it */
  submit_files(e, "k.wtns", 1, ENGINE_PRI_NORMAL, &t5);
  submit_files(e, "k.wtns", 1, ENGINE_PRI_CRITICAL, &t6);
  pthread_mutex_lock(&H.mu);
  const size_t first = H.norder; /* the next partition taken */
  pthread_mutex_unlock(&H.mu);
  CHECK(first < 60);
  engine_set_paused(e, false);
  check_done_and_valid(e, t3.job_id, &v.f);
  engine_result r;
  CHECK(await_state(e, t4.job_id, &r) == ENGINE_JOB_FAILED);
  CHECK_MSG(r.job_status == CUZK_FORMAT && strstr(r.error, "cut.wtns"), "%s: %s",
            cuzk_status_name(r.job_status), r.error);
  engine_result_free(&r);
  check_done_and_valid(e, t5.job_id, &v.f);
  check_done_and_valid(e, t6.job_id, &v.f);
  pthread_mutex_lock(&H.mu);
  CHECK_MSG(!strcmp(H.order[first], t6.job_id), "first taken: %s, not the CRITICAL %s",
            H.order[first], t6.job_id);
  pthread_mutex_unlock(&H.mu);
  wait_workers_idle(e);
  readahead_of(e, &nb, &nf, &used);
  CHECK_EQ_INT(nb, 4);
  CHECK_EQ_INT(nf, 0);
  CHECK(unlink(cut) == 0);
  env_fini(&v);
  CHECK_EQ_INT(FG.host_frees, FG.host_allocs); /* the pool's, whichever buffers it held at the end */

  /* no witness directory: no buffers */
  fake_env(&v, &t, 4, 61, 1);
  v.c.witness_readahead = 4;
  e = env_start(&v);
  readahead_of(e, &nb, &nf, &used);
  CHECK_EQ_INT(nb, 0);
  env_fini(&v);
  FG.host_buffers = FG.pinned = false;
  memset(FG.store, 0, sizeof FG.store);
}

/* The read-ahead under churn, K = 2 on a stand-in GPU with two buffers:
 * jobs of one to four partitions, witness files and carried bytes mixed,
 * of every priority, a third of them cancelled at random moments while
 * others are read ahead, taken and proven: every job ends, DONE with
 * verified proofs unless cancelled, and every buffer comes back (none
 * filled at the end; every page-locked buffer freed at engine_free). */
ETEST_TIMEOUT(engine_witness_readahead_churn, 300) {
  env v;
  backend_devices t;
  engine *e = readahead_start_env(&v, &t, 62, 2, 2, false);
  enum { NJ = 24 };
  engine_ticket tk[NJ];
  bool cancelled[NJ] = {false};
  uint64_t s = 0x5eed;
  for (int i = 0; i < NJ; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const unsigned r = (unsigned)(s >> 33);
    const int pri = ENGINE_PRI_LOW + (int)(r % 4);
    const size_t n = 1 + (r >> 4) % 4;
    if ((r >> 8) % 5 == 0) { /* carried bytes */
      const uint8_t *w[4];
      size_t wl[4];
      for (size_t k = 0; k < n; k++) w[k] = v.f.wtns, wl[k] = v.f.wtns_len;
      cuzk_err err = {0};
      CHECK(submit_full(e, NULL, "k", pri, w, wl, n, false, &tk[i], &err) == CUZK_OK);
    } else {
      submit_files(e, "k.wtns", n, pri, &tk[i]);
    }
    if ((r >> 12) % 3 == 0 && i > 0) { /* cancel an earlier one, now or a little later */
      const int c = (int)((r >> 16) % (unsigned)i);
      struct timespec ts = {0, (long)((r >> 20) % 3) * 1000000L};
      nanosleep(&ts, NULL);
      cuzk_err err = {0};
      if (engine_cancel(e, tk[c].job_id, NULL, &err) == CUZK_OK)
        cancelled[c] = true;
    }
  }
  for (int i = 0; i < NJ; i++) {
    engine_result r;
    const engine_job_state st = await_state(e, tk[i].job_id, &r);
    CHECK_MSG(st == ENGINE_JOB_DONE || (cancelled[i] && st == ENGINE_JOB_CANCELLED),
              "job %d: %s (%s)", i, engine_job_state_name(st), r.error);
    engine_result_free(&r);
    if (st == ENGINE_JOB_DONE)
      check_done_and_valid(e, tk[i].job_id, &v.f);
  }
  wait_workers_idle(e);
  unsigned nb, nf;
  uint64_t used;
  readahead_of(e, &nb, &nf, &used);
  CHECK_EQ_INT(nb, 2);
  wait_filled_(e, 0, true);
  CHECK_MSG(used > 0, "no partition began from a read-ahead buffer");
  int nc = 0;
  for (int i = 0; i < NJ; i++) nc += cancelled[i];
  printf("  %d jobs, %d cancelled, %llu partitions begun from a read-ahead buffer\n", NJ, nc,
         (unsigned long long)used);
  env_fini(&v);
  CHECK_EQ_INT(FG.host_frees, FG.host_allocs);
  FG.host_buffers = FG.pinned = false;
  memset(FG.store, 0, sizeof FG.store);
}

ETEST(engine_device_copy_shared_by_slots) {
  env v;
  env_init(&v, 5, 40, 1, false);
  backend_devices t = fake_on(&v, 2, 2, 0);
  const uint64_t dev = device_bytes(&v.f);
  v.c.device_budget_bytes = dev * 3 / 2;
  v.c.devices = &t;
  with_hook(&v.c);
  hook_hold("*", ENGINE_JOB_FINALIZING); /* after the MSMs */
  engine *e = env_start(&v);
  submit_parts(&v, "four", 4);
  hook_wait_held_n(4); /* each slot holds a partition past its MSMs */
  const uint64_t copy = one_copy_bytes(&v.f);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.ngpus, 2);
  for (size_t i = 0; i < 2; i++) {
    CHECK_EQ_INT(s.gpus[i].slots, 2);
    CHECK_EQ_INT(s.gpus[i].busy_slots, 2);
    CHECK_EQ_INT(s.gpus[i].budget, dev * 3 / 2);
    check_gpu(&s, i, dev, copy);
    /* free memory: 2 slots' scratch and one copy */
    CHECK_EQ_INT(s.gpus[i].vram_free, FG.total - 2 * FG.slot_bytes - copy);
  }
  CHECK_EQ_INT(key_status(&s, "k")->tier, ENGINE_TIER_DEVICE);
  CHECK_EQ_INT(key_status(&s, "k")->refcount, 4);
  engine_status_free(&s);
  for (int g = 0; g < 2; g++) {
    backend_store_stats st;
    backend_store_stats_get(FG.store[g], &st);
    CHECK_EQ_INT(st.entries, 4); /* A, B1, B2, C+H: once, for both slots */
    CHECK_EQ_INT(st.makes, 4);
    for (int sl = 0; sl < 2; sl++) {
      CHECK_MSG(FG.resident_msms[g][sl] == 4 && FG.streamed_msms[g][sl] == 0,
                "GPU %d slot %d: %u resident MSMs, %u streamed (want 4 and 0)", g, sl,
                FG.resident_msms[g][sl], FG.streamed_msms[g][sl]);
    }
  }
  char l0[96], l1[96];
  snprintf(l0, sizeof l0, "cuzk_gpu_resident_bytes{device=\"gpu1\"} %llu\n",
           (unsigned long long)copy);
  snprintf(l1, sizeof l1, "cuzk_gpu_used_bytes{device=\"gpu0\"} %llu\n",
           (unsigned long long)dev);
  char l2[96];
  snprintf(l2, sizeof l2, "cuzk_device_used_bytes %llu\n",
           (unsigned long long)(2 * dev));
  const char *m[] = {l0, l1, l2, NULL};
  check_metrics(e, m);
  hook_release();
  check_done_and_valid(e, "four", &v.f);
  /* the slots keep holding the key after the job: still one copy each */
  wait_workers_idle(e);
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  for (size_t i = 0; i < 2; i++) check_gpu(&s, i, dev, copy);
  engine_status_free(&s);
  env_fini(&v);
}

/* One slot, two keys that fit the device budget together: jobs of k,
 * then k2 (a CRITICAL job of another circuit), then k again keep both
 * copies resident (ENGINE_SLOT_HOLDS): each key's copy is made once, the
 * slot never lets go, and the budget counts both.  With room for one key
 * only, switching keys lets go of the first (and it is made again). */
/* A fresh env of keys k and k2 (2^5, from seed and seed + 1) on ngpus
 * stand-in GPUs of one slot each (t: the caller's, it must outlive the
 * engine), each with a device budget of `copies` copies and a half, the
 * stores of an earlier engine forgotten; returns one copy's bytes. */
static uint64_t two_keys_env(env *v, fixture *f2, backend_devices *t, uint64_t seed,
                             unsigned ngpus, unsigned copies, bool hooked) {
  memset(FG.store, 0, sizeof FG.store);
  env_init(v, 5, seed, 1, hooked);
  env_add_key(v, f2, "k2", 5, seed + 1);
  *t = fake_on(v, ngpus, 1, 0);
  const uint64_t dev = device_bytes(&v->f);
  v->c.device_budget_bytes = copies * dev + dev / 2;
  v->c.devices = t;
  return dev;
}

ETEST(engine_device_slot_holds_two_keys) {
  for (int room = 2; room >= 1; room--) {
    env v;
    fixture f2;
    backend_devices t;
    const uint64_t dev = two_keys_env(&v, &f2, &t, 42, 1, (unsigned)room, false);
    engine *e = env_start(&v);
    engine_ticket tk;
    submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
    check_done_and_valid(e, "a", &v.f);
    submit_ok(e, "b", "k2", ENGINE_PRI_CRITICAL, &f2, &tk);
    check_done_and_valid(e, "b", &f2);
    submit_ok(e, "c", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
    check_done_and_valid(e, "c", &v.f);
    wait_workers_idle(e);
    backend_store_stats st;
    backend_store_stats_get(FG.store[0], &st);
    engine_status s;
    CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
    if (room == 2) {
      CHECK_MSG(st.makes == 8 && FG.drops[0][0] == 0,
                "two keys with room: %llu copies made (want 8: 4 sets each, once), %u drops",
                (unsigned long long)st.makes, FG.drops[0][0]);
      CHECK_EQ_INT(s.gpus[0].used, 2 * dev);
    } else {
      CHECK_MSG(st.makes == 12 && FG.drops[0][0] == 2,
                "room for one: %llu copies made (want 12: k twice), %u drops (want 2)",
                (unsigned long long)st.makes, FG.drops[0][0]);
      CHECK_EQ_INT(s.gpus[0].used, dev);
    }
    engine_status_free(&s);
    fixture_free(&f2);
    env_fini(&v);
    FG.drops[0][0] = 0; /* the shutdown's included */
  }
}

/* Two stand-in GPUs of one slot each, room for one key's copy per GPU,
 * keys k and k2, one copy each after a warm-up (a job of k held on one
 * GPU while the other takes one of k2).  Then four jobs of k and four of
 * k2 queued in that order: with placement each GPU takes its own key's
 * jobs (the GPU of k2 leaves the older k jobs to the other), so no copy is
 * dropped or made again; without it both would take k jobs first.  With a
 * placement wait of 1 ms, jobs of k queued while k's GPU is held come to
 * the other GPU, which lets its copy of k2 go for them. */
static void placement_warm_up(env *v, engine **e, fixture *f2) {
  hook_hold("a", ENGINE_JOB_PROVING);
  *e = env_start(v);
  engine_ticket tk;
  submit_ok(*e, "a", "k", ENGINE_PRI_NORMAL, &v->f, &tk);
  hook_wait_held();
  submit_ok(*e, "b", "k2", ENGINE_PRI_NORMAL, f2, &tk);
  check_done_and_valid(*e, "b", f2);
  hook_release();
  check_done_and_valid(*e, "a", &v->f);
  wait_workers_idle(*e);
}

ETEST(engine_devices_keep_their_keys) {
  for (int wait = 0; wait < 2; wait++) {
    memset(FG.drops, 0, sizeof FG.drops);
    env v;
    fixture f2;
    backend_devices t;
    two_keys_env(&v, &f2, &t, 46, 2, 1, true);
    v.c.placement_wait_ms = wait ? 1 : 600000;
    engine *e;
    placement_warm_up(&v, &e, &f2);
    backend_store_stats st[2];
    for (int g = 0; g < 2; g++) {
      backend_store_stats_get(FG.store[g], &st[g]);
      CHECK_MSG(st[g].makes == 4, "GPU %d after the warm-up: %llu copies made (want 4)", g,
                (unsigned long long)st[g].makes);
    }
    engine_ticket tk;
    char id[16];
    if (!wait) {
      for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "j%d", i);
        submit_ok(e, id, i < 4 ? "k" : "k2", ENGINE_PRI_NORMAL, i < 4 ? &v.f : &f2, &tk);
      }
      for (int i = 0; i < 8; i++) {
        snprintf(id, sizeof id, "j%d", i);
        check_done_and_valid(e, id, i < 4 ? &v.f : &f2);
      }
      wait_workers_idle(e);
      for (int g = 0; g < 2; g++) {
        backend_store_stats_get(FG.store[g], &st[g]);
        CHECK_MSG(st[g].makes == 4 && FG.drops[g][0] == 0,
                  "GPU %d: %llu copies made (want 4: its key's, once), %u drops (want 0)", g,
                  (unsigned long long)st[g].makes, FG.drops[g][0]);
      }
    } else {
      /* k's GPU held inside j0; j1..j3 (k) go to the other GPU once due */
      hook_hold("j0", ENGINE_JOB_PROVING);
      submit_ok(e, "j0", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
      hook_wait_held();
      for (int i = 1; i < 4; i++) {
        snprintf(id, sizeof id, "j%d", i);
        submit_ok(e, id, "k", ENGINE_PRI_NORMAL, &v.f, &tk);
      }
      for (int i = 1; i < 4; i++) {
        snprintf(id, sizeof id, "j%d", i);
        check_done_and_valid(e, id, &v.f);
      }
      hook_release();
      check_done_and_valid(e, "j0", &v.f);
      wait_workers_idle(e);
      backend_store_stats_get(FG.store[0], &st[0]);
      backend_store_stats_get(FG.store[1], &st[1]);
      CHECK_MSG(st[0].makes + st[1].makes == 12 && FG.drops[0][0] + FG.drops[1][0] == 1,
                "after the wait: %llu + %llu copies made (want 12: k made on the other GPU), "
                "%u + %u drops (want 1: its k2)",
                (unsigned long long)st[0].makes, (unsigned long long)st[1].makes,
                FG.drops[0][0], FG.drops[1][0]);
    }
    fixture_free(&f2);
    env_fini(&v);
    memset(FG.drops, 0, sizeof FG.drops); /* the shutdown's included */
  }
}

/* An express slot (express_max_lg) beside K = 1: while the slot proves a
 * NORMAL job of the large key, a CRITICAL job of the small key is proven
 * (by the express slot); a CRITICAL job of the large key and a NORMAL job
 * of the small one are left to the busy slot; every proof verifies. */
ETEST(engine_device_express_slot) {
  env v;
  env_init(&v, 6, 44, 1, true);
  fixture f2;
  env_add_key(&v, &f2, "k2", 4, 45);
  backend_devices t = fake_on(&v, 1, 1, 0);
  v.c.devices = &t;
  v.c.express_max_lg = 4;
  engine *e = env_start(&v);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK(s.ngpus == 1 && s.gpus[0].slots == 1 && s.gpus[0].express);
  engine_status_free(&s);
  hook_hold("big", ENGINE_JOB_PROVING);
  engine_ticket tk;
  submit_ok(e, "big", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  hook_wait_held();
  submit_ok(e, "crit", "k2", ENGINE_PRI_CRITICAL, &f2, &tk);
  check_done_and_valid(e, "crit", &f2); /* while the slot is held in "big" */
  submit_ok(e, "crit-big", "k", ENGINE_PRI_CRITICAL, &v.f, &tk);
  submit_ok(e, "normal-small", "k2", ENGINE_PRI_NORMAL, &f2, &tk);
  /* A bounded look for a wrong take: the idle express slot was woken by
   * these submits and would have taken either within this time. */
  usleep(200000);
  engine_result r;
  CHECK(engine_await(e, "crit-big", ENGINE_NO_WAIT, &r, NULL) == CUZK_TIMEOUT);
  CHECK_EQ_INT(r.state, ENGINE_JOB_QUEUED);
  engine_result_free(&r);
  CHECK(engine_await(e, "normal-small", ENGINE_NO_WAIT, &r, NULL) == CUZK_TIMEOUT);
  CHECK_EQ_INT(r.state, ENGINE_JOB_QUEUED);
  engine_result_free(&r);
  hook_release();
  check_done_and_valid(e, "big", &v.f);
  check_done_and_valid(e, "crit-big", &v.f);
  check_done_and_valid(e, "normal-small", &f2);
  fixture_free(&f2);
  env_fini(&v);

  /* no registered key small enough: no express slot */
  fake_env(&v, &t, 6, 44, 1);
  v.c.express_max_lg = 4;
  e = env_start(&v);
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK(s.gpus[0].slots == 1 && !s.gpus[0].express);
  engine_status_free(&s);
  env_fini(&v);
}

/* Waits (bounded) until `slot` of GPU 0 has let go of its copies n times. */
/* Waits (bounded: 10 s) until the FG counter *c reaches n; its value. */
static unsigned fg_wait(const unsigned *c, unsigned n) {
  pthread_mutex_lock(&FG.mu);
  for (int i = 0; i < 1000 && *c < n; i++) {
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_nsec += 10000000;
    if (dl.tv_nsec >= 1000000000)
      dl.tv_sec++, dl.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&FG.cv, &FG.mu, &dl);
  }
  unsigned got = *c;
  pthread_mutex_unlock(&FG.mu);
  return got;
}

static void wait_drops(unsigned slot, unsigned n) {
  unsigned got = fg_wait(&FG.drops[0][slot], n);
  CHECK_MSG(got >= n, "slot %u let go %u times, want %u", slot, got, n);
}

/* Eviction of a key that one slot proves with and another holds idle: the
 * idle slot lets go at once, the copy stays (and the budget stays used)
 * while the busy slot proves, its MSMs still run over it, and both go
 * when it is done. */
ETEST(engine_device_evict_waits_for_busy_slot) {
  env v;
  env_init(&v, 5, 41, 1, false);
  backend_devices t = fake_on(&v, 1, 2, 0);
  v.c.devices = &t;
  with_hook(&v.c);
  hook_hold("*", ENGINE_JOB_FINALIZING);
  engine *e = env_start(&v);
  submit_parts(&v, "warm", 2); /* both slots hold the key */
  hook_wait_held_n(2);
  hook_release();
  check_done_and_valid(e, "warm", &v.f);
  wait_workers_idle(e);
  const uint64_t copy = one_copy_bytes(&v.f), dev = device_bytes(&v.f);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  check_gpu(&s, 0, dev, copy);
  engine_status_free(&s);

  /* one slot proves "busy", held before its MSMs; the other is idle */
  hook_hold("busy", ENGINE_JOB_PROVING);
  submit_parts(&v, "busy", 1);
  hook_wait_held();
  unsigned busy_slot = 2;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].busy_slots, 1);
  engine_status_free(&s);
  pthread_mutex_lock(&FG.mu);
  unsigned before[2] = {FG.resident_msms[0][0], FG.resident_msms[0][1]};
  pthread_mutex_unlock(&FG.mu);

  bool was = false;
  uint64_t freed = 1;
  cuzk_err err = {0};
  CHECK(engine_evict(e, "k", &was, &freed, &err) == CUZK_OK);
  CHECK(was && freed == 0); /* in use: dropped when released */
  /* the idle slot lets go; which one is idle: the one not in the hook */
  for (unsigned sl = 0; sl < 2 && busy_slot == 2; sl++) {
    pthread_mutex_lock(&FG.mu);
    unsigned d = FG.drops[0][sl];
    pthread_mutex_unlock(&FG.mu);
    if (d)
      busy_slot = 1 - sl;
  }
  if (busy_slot == 2) { /* not yet: wait for either */
    for (int i = 0; i < 1000 && busy_slot == 2; i++) {
      sleep_ms(10);
      pthread_mutex_lock(&FG.mu);
      if (FG.drops[0][0] || FG.drops[0][1])
        busy_slot = FG.drops[0][0] ? 1 : 0;
      pthread_mutex_unlock(&FG.mu);
    }
  }
  CHECK_MSG(busy_slot < 2, "no slot let go of the evicted key's copy");
  wait_drops(1 - busy_slot, 1);
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  check_gpu(&s, 0, dev, copy); /* the busy slot still holds it */
  CHECK_EQ_INT(key_status(&s, "k")->tier, ENGINE_TIER_DEVICE);
  engine_status_free(&s);
  CHECK_EQ_INT(FG.drops[0][busy_slot], 0);

  hook_release();
  check_done_and_valid(e, "busy", &v.f);
  pthread_mutex_lock(&FG.mu);
  unsigned after = FG.resident_msms[0][busy_slot];
  unsigned streamed = FG.streamed_msms[0][busy_slot];
  pthread_mutex_unlock(&FG.mu);
  CHECK_MSG(after == before[busy_slot] + 4 && streamed == 0,
            "the busy slot's MSMs after the eviction: %u resident, %u streamed (want 4, 0)",
            after - before[busy_slot], streamed);
  wait_drops(busy_slot, 1); /* its partition ended: it lets go, the key leaves */
  for (int i = 0; i < 1000 && tier_of(e, "k") != ENGINE_TIER_DISK; i++) sleep_ms(10);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DISK);
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  check_gpu(&s, 0, 0, 0);
  engine_status_free(&s);
  env_fini(&v);
}

/* The VRAM plan with keys on the device: one copy per GPU plus K slots'
 * scratch.  Room for the copy beside 2 slots but not 3: K = 3 plans 2
 * slots and says why; with keys off the device all 3 fit; the auto budget
 * holds the copy. */
ETEST(engine_device_plan_keeps_room_for_one_copy) {
  env v;
  env_init(&v, 4, 42, 1, false);
  backend_devices t = fake_on(&v, 1, 3, 0);
  v.c.devices = &t;
  const uint64_t margin = (uint64_t)512 << 20;
  const uint64_t dev = device_bytes(&v.f);
  FG.total = 3 * FG.slot_bytes + margin + dev - 1;
  engine *e = env_start(&v);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].slots, 2);
  CHECK_MSG(strstr(s.gpus[0].note, "2 of 3 slots fit") && strstr(s.gpus[0].note, "resident copy"),
            "note: %s", s.gpus[0].note);
  CHECK_MSG(s.gpus[0].budget >= dev, "budget %llu < key %llu",
            (unsigned long long)s.gpus[0].budget, (unsigned long long)dev);
  engine_status_free(&s);
  engine_ticket tk;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  check_done_and_valid(e, "a", &v.f);
  engine_free(e);
  v.e = NULL;
  memset(FG.store, 0, sizeof FG.store);

  v.c.keys_on_device = false;
  e = env_start(&v);
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].slots, 3);
  CHECK_EQ_STR(s.gpus[0].note, "");
  engine_status_free(&s);
  env_fini(&v);
}

/* Distinct values other than +-1 among m's entries (sorted, counted). */
static int fr_cmp(const void *a, const void *b) { return memcmp(a, b, sizeof(bls12_381_fr)); }
static size_t distinct_not_unit(const pce_csr *m) {
  bls12_381_fr one, minus_one, *v = malloc((m->nnz ? m->nnz : 1) * sizeof *v);
  CHECK(v);
  bls12_381_fr_set_one(&one);
  bls12_381_fr_neg(&minus_one, &one);
  size_t n = 0, d = 0;
  for (uint64_t e = 0; e < m->nnz; e++)
    if (memcmp(&m->val[e], &one, sizeof one) && memcmp(&m->val[e], &minus_one, sizeof one))
      v[n++] = m->val[e];
  qsort(v, n, sizeof *v, fr_cmp);
  for (size_t i = 0; i < n; i++) d += !i || memcmp(&v[i], &v[i - 1], sizeof *v);
  free(v);
  return d;
}

static uint64_t file_bytes(const char *path) {
  struct stat sb;
  CHECK(stat(path, &sb) == 0);
  return (uint64_t)sb.st_size;
}

/* A bellperson key's resident copy is planned at what the GPU keeps: its
 * matrices' values as 4-byte codes and tables of their distinct values
 * (groth16/pce_tables.h), not the PCE's 32 bytes an entry.  Room for that
 * copy beside 3 slots plans 3 slots (the whole values' figure would fit
 * 2); one byte less, 2. */
ETEST(engine_device_plan_counts_value_tables) {
  env v;
  env_init(&v, 4, 42, 1, false);
  backend_devices t = fake_on(&v, 1, 3, 0);
  v.c.devices = &t;
  pce_gen_plan plan;
  pce_file pce;
  bp_params pp;
  cuzk_err err = {0};
  CHECK(pce_gen_plan_make(&plan, pce_shape_find("porep-32g"), 10, &err) == CUZK_OK);
  CHECK(pce_gen_circuit(&pce, &plan, &err) == CUZK_OK);
  CHECK(bp_setup(&pp, &pce, 7, NULL, &err) == CUZK_OK);
  char params[128], pcep[128];
  snprintf(params, sizeof params, "%s/porep.params", v.dir);
  snprintf(pcep, sizeof pcep, "%s/porep.pce", v.dir);
  CHECK(bp_params_write(&pp, params, &err) == CUZK_OK);
  CHECK(pce_write(&pce, pcep, &err) == CUZK_OK);
  v.circ[1] = (engine_circuit){.id = "porep", .path = params, .pce = pcep};
  v.c.ncircuits = 2;
  /* the files, the query index lists, less 28 bytes an entry and plus 32
   * a distinct value for each matrix that keeps a table */
  uint64_t want = file_bytes(params) + file_bytes(pcep) +
                  8 * ((uint64_t)pce.num_inputs + pce.num_aux);
  const pce_csr *m[3] = {&pce.a, &pce.b, &pce.c};
  unsigned tables = 0;
  for (int k = 0; k < 3; k++) {
    const size_t d = distinct_not_unit(m[k]);
    if (m[k]->nnz && d <= PCE_TABLE_MAX && d <= m[k]->nnz / PCE_TABLE_SHARE)
      want -= 28 * m[k]->nnz - 32 * d, tables++;
  }
  CHECK_EQ_INT(tables, 3); /* the generator's matrices: +-1 and a few powers of two */
  const uint64_t margin = (uint64_t)512 << 20;
  for (int less = 0; less <= 1; less++) {
    memset(FG.store, 0, sizeof FG.store);
    FG.total = 3 * FG.slot_bytes + margin + want - (uint64_t)less;
    engine *e = start(&v.c);
    engine_status s;
    CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
    CHECK_MSG(s.gpus[0].slots == 3u - (unsigned)less, "%u slots with %d byte(s) less: %s",
              s.gpus[0].slots, less, s.gpus[0].note);
    engine_status_free(&s);
    engine_free(e);
  }
  CHECK(unlink(params) == 0 && unlink(pcep) == 0);
  bp_params_free(&pp);
  pce_close(&pce);
  env_fini(&v);
}

static unsigned fg_get(const unsigned *p) {
  pthread_mutex_lock(&FG.mu);
  unsigned v = *p;
  pthread_mutex_unlock(&FG.mu);
  return v;
}

/* The engine asks the device registry, not a build switch: the GPU
 * options reach every slot's backend (ntt_pass1_table), a device without
 * BACKEND_CAP_RESIDENT gets no holds even with keys_on_device (its MSMs
 * stream their bases), and one that cannot run BLS12-381 is refused with
 * device = gpu and skipped with auto. */
static const backend_devices_ops fake_plain_ops = {
    .kind = "stand-in without resident copies",
    .count = fake_count,
    .mem_info = fake_mem_info,
    .supports = fake_dev_supports,
    .backend_new = fake_backend_new,
};

ETEST(engine_devices_options_and_capabilities) {
  env v;
  env_init(&v, 4, 43, 1, false);
  backend_devices t = fake_on(&v, 1, 2, 0);
  v.c.devices = &t;
  v.c.ntt_pass1_table = true;
  FG.pass1_backends = 0;
  engine *e = env_start(&v);
  CHECK_EQ_INT(fg_get(&FG.pass1_backends), 2); /* both slots */
  engine_free(e);
  memset(FG.store, 0, sizeof FG.store);
  v.c.ntt_pass1_table = false;
  FG.pass1_backends = 0;
  e = env_start(&v);
  CHECK_EQ_INT(fg_get(&FG.pass1_backends), 0);
  engine_free(e);
  memset(FG.store, 0, sizeof FG.store);

  /* keys_on_device on a device without resident copies: streamed MSMs */
  t.ops = &fake_plain_ops;
  memset(FG.resident_msms, 0, sizeof FG.resident_msms);
  memset(FG.streamed_msms, 0, sizeof FG.streamed_msms);
  e = env_start(&v);
  engine_ticket tk;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  check_done_and_valid(e, "a", &v.f);
  CHECK_EQ_INT(fg_get(&FG.resident_msms[0][0]) + fg_get(&FG.resident_msms[0][1]), 0);
  CHECK_EQ_INT(fg_get(&FG.streamed_msms[0][0]) + fg_get(&FG.streamed_msms[0][1]), 4);
  CHECK(tier_of(e, "k") != ENGINE_TIER_DEVICE);
  engine_free(e);
  memset(FG.store, 0, sizeof FG.store);

  /* a device that cannot run the curve */
  FG.no_bls = true;
  cuzk_err err = {0};
  v.e = NULL;
  CHECK_EQ_INT(engine_new(&e, &v.c, &err), CUZK_UNSUPPORTED);
  CHECK_MSG(strstr(err.msg, "GPU 0 is not usable") && strstr(err.msg, "BLS12-381"), "%s", err.msg);
  v.c.device = ENGINE_DEVICE_AUTO; /* the CPU instead */
  e = env_start(&v);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.ngpus, 0);
  CHECK(s.serving_workers >= 1);
  engine_status_free(&s);
  submit_ok(e, "b", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  check_done_and_valid(e, "b", &v.f);
  FG.no_bls = false;
  env_fini(&v);
}

/* ------------------------------------------------------------ lost GPUs */

/* The engine's log lines (engine_config.log): how many of each level, and
 * how many announce that GPU 0 or 1 went out of service. */
typedef struct {
  pthread_mutex_t mu;
  unsigned level[3], gpu_lost[FG_GPUS];
  char last_error[1024];
} log_rec;

static log_rec LR = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void log_fn(void *ctx, engine_log_level level, const char *msg) {
  log_rec *l = ctx;
  pthread_mutex_lock(&l->mu);
  l->level[level]++;
  for (int g = 0; g < FG_GPUS; g++) {
    char head[32];
    snprintf(head, sizeof head, "GPU %d (", g);
    if (level == ENGINE_LOG_ERROR && !strncmp(msg, head, strlen(head)))
      l->gpu_lost[g]++;
  }
  if (level == ENGINE_LOG_ERROR)
    snprintf(l->last_error, sizeof l->last_error, "%s", msg);
  pthread_mutex_unlock(&l->mu);
}

/* An env (key "k" of 2^5 from `seed`) on `ngpus` stand-in GPUs (*t, which
 * must outlive the engine) of K slots: GPU g is lost at its lose[g]-th MSM
 * (0: never); the engine's log is recorded in LR. */
static void lossy_init(env *v, backend_devices *t, uint64_t seed, unsigned ngpus, unsigned K,
                       const unsigned lose[FG_GPUS]) {
  env_init(v, 5, seed, 1, false);
  *t = fake_on(v, ngpus, K, 0);
  for (unsigned g = 0; g < ngpus; g++) FG.lose_at[g] = lose[g];
  v->c.devices = t;
  v->c.log = log_fn;
  v->c.log_ctx = &LR;
}

/* A one-partition submission of the env's key that must be refused at
 * once with UNAVAILABLE; err gets why. */
static void submit_refused(env *v, const char *id, cuzk_err *err) {
  const uint8_t *w[1] = {v->f.wtns};
  size_t wl[1] = {v->f.wtns_len};
  engine_ticket tk;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cuzk_status st = submit_full(v->e, id, "k", ENGINE_PRI_NORMAL, w, wl, 1, false, &tk, err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CHECK_MSG(st == CUZK_UNAVAILABLE, "submit %s: %s (%s), want unavailable", id,
            cuzk_status_name(st), err->msg);
  CHECK(t1.tv_sec - t0.tv_sec < 5); /* at once, not queued */
  engine_result r;
  CHECK_EQ_INT(engine_await(v->e, id, 1, &r, NULL), CUZK_NOT_FOUND);
}

/* Waits (bounded) until n backends of GPU g have been destroyed. */
static void wait_destroys(int g, unsigned n) {
  unsigned got = fg_wait(&FG.destroys[g], n);
  CHECK_MSG(got >= n, "GPU %d: %u backends freed, want %u", g, got, n);
}

/* LR's count of lines announcing GPU g lost, and its last error line. */
static unsigned lr_lost(int g, char *last, size_t n) {
  pthread_mutex_lock(&LR.mu);
  unsigned v = LR.gpu_lost[g];
  if (last)
    snprintf(last, n, "%s", LR.last_error);
  pthread_mutex_unlock(&LR.mu);
  return v;
}

/* Job `id` ends FAILED with `want` and an error holding each of `what`. */
static void check_failed(engine *e, const char *id, cuzk_status want, const char *const *what) {
  engine_result r;
  CHECK(await_state(e, id, &r) == ENGINE_JOB_FAILED);
  CHECK_MSG(r.job_status == want, "job %s: %s, want %s (%s)", id, cuzk_status_name(r.job_status),
            cuzk_status_name(want), r.error);
  for (; *what; what++) CHECK_MSG(strstr(r.error, *what), "job %s: no '%s' in: %s", id, *what, r.error);
  printf("  %s: %s\n", id, r.error);
  engine_result_free(&r);
}

/* 2 GPUs of K = 2 slots, one partition on each slot; GPU 0's first MSM
 * meets a sticky error.  Both of GPU 0's partitions are retried on GPU 1
 * and the job's proofs verify; GPU 0 is FAILED with the CUDA error in the
 * status, HTTP /status and the metrics (cuzk_gpu_up 0), logged once; both
 * its slots freed their backends and its budget and copies are back to 0;
 * later jobs never reach it. */
ETEST(engine_device_lost_retried_on_other_gpu) {
  env v;
  backend_devices t;
  lossy_init(&v, &t, 50, 2, 2, (const unsigned[FG_GPUS]){1, 0});
  with_hook(&v.c);
  hook_hold("*", ENGINE_JOB_PREPARING); /* each slot takes one partition */
  engine *e = env_start(&v);
  submit_parts(&v, "four", 4);
  hook_wait_held_n(4);
  hook_release();
  check_done_and_valid(e, "four", &v.f);
  wait_destroys(0, 2); /* both of GPU 0's slots left and freed their backends */

  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].state, ENGINE_GPU_FAILED);
  CHECK_MSG(strstr(s.gpus[0].reason, "cudaErrorIllegalAddress"), "reason: %s", s.gpus[0].reason);
  CHECK_EQ_INT(s.gpus[1].state, ENGINE_GPU_UP);
  CHECK_EQ_STR(s.gpus[1].reason, "");
  CHECK_EQ_INT(s.serving_workers, 2);
  CHECK_EQ_INT(s.retried, 2);
  CHECK_EQ_INT(s.completed, 1);
  CHECK_EQ_INT(s.failed, 0);
  CHECK_EQ_INT(s.gpus[0].vram_free, 0); /* not asked */
  check_gpu(&s, 0, 0, 0);               /* holds dropped, copies freed */
  check_gpu(&s, 1, device_bytes(&v.f), one_copy_bytes(&v.f));
  char *json = http_status_json(&s);
  CHECK(json);
  CHECK_MSG(strstr(json, "\"state\":\"failed\",\"reason\":\"") &&
                strstr(json, "(cudaErrorIllegalAddress)") && strstr(json, "\"state\":\"up\"") &&
                strstr(json, "\"serving_workers\":2"),
            "/status: %s", json);
  free(json);
  engine_status_free(&s);
  const char *m[] = {"cuzk_gpu_up{device=\"gpu0\"} 0\n", "cuzk_gpu_up{device=\"gpu1\"} 1\n",
                     "cuzk_serving_workers 2\n", "cuzk_partitions_retried_total 2\n",
                     "cuzk_gpu_used_bytes{device=\"gpu0\"} 0\n", NULL};
  check_metrics(e, m);
  char last[1024];
  CHECK_EQ_INT(lr_lost(0, last, sizeof last), 1); /* once, though both slots failed */
  CHECK_EQ_INT(lr_lost(1, NULL, 0), 0);
  printf("  log: %s\n", last);

  /* nothing more reaches GPU 0 */
  const unsigned msms0 = fg_get(&FG.msms[0]), after0 = fg_get(&FG.after_loss[0]);
  const unsigned msms1 = fg_get(&FG.msms[1]);
  submit_parts(&v, "later-a", 2);
  submit_parts(&v, "later-b", 1);
  submit_parts(&v, "later-c", 3);
  check_done_and_valid(e, "later-a", &v.f);
  check_done_and_valid(e, "later-b", &v.f);
  check_done_and_valid(e, "later-c", &v.f);
  CHECK_EQ_INT(fg_get(&FG.msms[0]), msms0);
  CHECK_EQ_INT(fg_get(&FG.after_loss[0]), after0);
  CHECK_EQ_INT(fg_get(&FG.msms[1]), msms1 + 6 * 4);
  CHECK_EQ_INT(fg_get(&FG.destroys[0]), 2);
  env_fini(&v);
}

/* device = AUTO on one GPU: when it is lost, the engine proves on CPU
 * workers from then on; the job that met the loss is retried there. */
ETEST(engine_device_lost_falls_back_to_cpu) {
  env v;
  backend_devices t;
  lossy_init(&v, &t, 51, 1, 1, (const unsigned[FG_GPUS]){3, 0});
  v.c.device = ENGINE_DEVICE_AUTO;
  v.c.cpu_workers = 2;
  engine *e = env_start(&v);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.cpu_workers, 0);
  CHECK_EQ_INT(s.serving_workers, 1);
  engine_status_free(&s);
  engine_ticket tk;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  check_done_and_valid(e, "a", &v.f);
  wait_destroys(0, 1);
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].state, ENGINE_GPU_FAILED);
  CHECK_EQ_INT(s.cpu_workers, 2);
  CHECK_EQ_INT(s.serving_workers, 2);
  CHECK_EQ_INT(s.retried, 1);
  check_gpu(&s, 0, 0, 0);
  engine_status_free(&s);
  const char *m[] = {"cuzk_gpu_up{device=\"gpu0\"} 0\n", "cuzk_serving_workers 2\n",
                     "cuzk_workers 3\n", NULL};
  check_metrics(e, m);
  CHECK_EQ_INT(lr_lost(0, NULL, 0), 1);
  const unsigned msms0 = fg_get(&FG.msms[0]);
  submit_ok(e, "b", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  check_done_and_valid(e, "b", &v.f);
  CHECK_EQ_INT(fg_get(&FG.msms[0]), msms0);
  CHECK_EQ_INT(fg_get(&FG.after_loss[0]), 0);
  env_fini(&v);
}

/* The job log names the device each try ran on: the partition started on
 * GPU 0's slot, then (after the loss, ERROR, the CPU fallback and the
 * retry, WARN, queued by the worker that met the loss) on a CPU worker,
 * and the job done; the job's lines and the retry in that order. */
ETEST(engine_job_log_gpu_loss_and_fallback) {
  env v;
  backend_devices t;
  lossy_init(&v, &t, 54, 1, 1, (const unsigned[FG_GPUS]){1, 0});
  v.c.device = ENGINE_DEVICE_AUTO;
  v.c.log = lines_fn;
  v.c.log_ctx = &LINES;
  engine *e = env_start(&v);
  engine_ticket tk;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  check_done_and_valid(e, "a", &v.f);
  wait_destroys(0, 1);
  lines_need("ERROR", "GPU 0 (test GPU 0) is out of service");
  lines_need("WARN", "every GPU is out of service; device = auto: proving on 1 CPU worker");
  lines_need("WARN", "job a partition 0: GPU 0 was lost under it; retried on another worker");
  const char *const seq[][2] = {
      {"INFO", "job a accepted: circuit k, 1 partition"},
      {"INFO", "job a partition 0 of 1 started on gpu 0 slot 0 ("},
      {"WARN", "job a partition 0: GPU 0 was lost under it; retried on another worker"},
      {"INFO", "job a partition 0 of 1 started on cpu worker 1 ("},
      {"INFO", "job a done: circuit k, 1 partition; queue "},
  };
  size_t prev = 0;
  for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
    lines_need(seq[i][0], seq[i][1]);
    size_t at = lines_at(seq[i][1]);
    CHECK_MSG(i == 0 || at > prev, "\"%s\" comes before \"%s\"", seq[i][1], seq[i - 1][1]);
    prev = at;
  }
  pthread_mutex_lock(&LINES.mu);
  printf("%s", LINES.text);
  pthread_mutex_unlock(&LINES.mu);
  env_fini(&v);
}

/* device = GPU on one GPU: the job that meets the loss fails with
 * DEVICE_LOST naming the GPU and the CUDA error; the job queued behind it
 * fails UNAVAILABLE; later submissions are refused at once, saying why. */
ETEST(engine_device_lost_no_worker_left) {
  env v;
  backend_devices t;
  lossy_init(&v, &t, 52, 1, 1, (const unsigned[FG_GPUS]){1, 0});
  with_hook(&v.c);
  engine *e = env_start(&v);
  submit_held(&v, "first", ENGINE_JOB_PREPARING);
  engine_ticket tk;
  submit_ok(e, "second", "k", ENGINE_PRI_NORMAL, &v.f, &tk); /* queued behind it */
  hook_release();
  const char *w1[] = {"device_lost: partition 0: GPU 0 (test GPU 0) lost",
                      "no other worker is left", "(cudaErrorIllegalAddress)", NULL};
  check_failed(e, "first", CUZK_DEVICE_LOST, w1);
  const char *w2[] = {"unavailable: no worker can prove", "GPU 0", "no CPU fallback", NULL};
  check_failed(e, "second", CUZK_UNAVAILABLE, w2);

  cuzk_err err = {0};
  submit_refused(&v, "third", &err);
  CHECK_MSG(strstr(err.msg, "no worker can prove") && strstr(err.msg, "GPU 0 (test GPU 0)") &&
                strstr(err.msg, "cudaErrorIllegalAddress") && strstr(err.msg, "restart"),
            "refusal: %s", err.msg);
  printf("  third: %s\n", err.msg);

  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].state, ENGINE_GPU_FAILED);
  CHECK_EQ_INT(s.serving_workers, 0);
  CHECK_EQ_INT(s.failed, 2);
  CHECK_EQ_INT(s.retried, 0);
  CHECK_EQ_INT(s.queue_witness, 0); /* the witnesses were freed */
  engine_status_free(&s);
  const char *m[] = {"cuzk_gpu_up{device=\"gpu0\"} 0\n", "cuzk_serving_workers 0\n",
                     "cuzk_errors_total{code=\"device_lost\"} 1\n",
                     "cuzk_errors_total{code=\"unavailable\"} 2\n", NULL};
  check_metrics(e, m);
  wait_destroys(0, 1);
  char last[1024];
  CHECK_EQ_INT(lr_lost(0, last, sizeof last), 1);
  CHECK_MSG(strstr(last, "no worker can prove"), "last error line: %s", last);
  env_fini(&v);
}

/* A partition is retried once: on 2 GPUs that are both lost under it, its
 * job fails DEVICE_LOST after the second loss, and then no worker is left. */
ETEST(engine_device_lost_retried_once) {
  env v;
  backend_devices t;
  lossy_init(&v, &t, 53, 2, 1, (const unsigned[FG_GPUS]){1, 1});
  engine *e = env_start(&v);
  engine_ticket tk;
  submit_ok(e, "a", "k", ENGINE_PRI_NORMAL, &v.f, &tk);
  const char *w1[] = {"device_lost: partition 0: GPU ", "already retried once",
                      "(cudaErrorIllegalAddress)", NULL};
  check_failed(e, "a", CUZK_DEVICE_LOST, w1);
  engine_status s;
  CHECK(engine_status_get(e, &s, NULL) == CUZK_OK);
  CHECK_EQ_INT(s.gpus[0].state, ENGINE_GPU_FAILED);
  CHECK_EQ_INT(s.gpus[1].state, ENGINE_GPU_FAILED);
  CHECK_EQ_INT(s.serving_workers, 0);
  CHECK_EQ_INT(s.retried, 1);
  engine_status_free(&s);
  cuzk_err err = {0};
  submit_refused(&v, "b", &err);
  wait_destroys(0, 1);
  wait_destroys(1, 1);
  env_fini(&v);
}

/* The status table: DEVICE_LOST has a name and a message and goes out as
 * gRPC UNAVAILABLE; a reply carrying its name reads back as DEVICE_LOST. */
ETEST(engine_device_lost_status_maps) {
  CHECK_EQ_STR(cuzk_status_name(CUZK_DEVICE_LOST), "device_lost");
  CHECK(strstr(cuzk_status_message(CUZK_DEVICE_LOST), "GPU"));
  CHECK_EQ_INT(rpc_status_code(CUZK_DEVICE_LOST), RPC_CODE_UNAVAILABLE);
  CHECK_EQ_INT(rpc_status_code(CUZK_UNAVAILABLE), RPC_CODE_UNAVAILABLE);
  CHECK_EQ_INT(rpc_status_exit(CUZK_DEVICE_LOST), 2);
  const char *text = NULL;
  CHECK_EQ_INT(rpc_status_from_reply(RPC_CODE_UNAVAILABLE, "device_lost: GPU 0 lost", &text),
               CUZK_DEVICE_LOST);
  CHECK_EQ_STR(text, "GPU 0 lost");
  CHECK_EQ_INT(rpc_status_from_reply(RPC_CODE_UNAVAILABLE, "shutting down", NULL),
               CUZK_UNAVAILABLE);
  CHECK_EQ_STR(engine_gpu_state_name(ENGINE_GPU_UP), "up");
  CHECK_EQ_STR(engine_gpu_state_name(ENGINE_GPU_FAILED), "failed");
}

/* ------------------------------------------------------------ request content */

ETEST(engine_empty_witness_refused) {
  env v;
  env_init(&v, 4, 40, 1, false);
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  engine_ticket t;
  cuzk_err err = {0};
  /* protobuf-c hands an empty bytes field over as (NULL, 0) */
  const uint8_t *w[2] = {NULL, f->wtns};
  size_t wl[2] = {0, f->wtns_len};
  CHECK_EQ_INT(submit_full(e, "e0", "k", 2, w, wl, 1, false, &t, &err), CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "witness 0 is empty"), "message: %s", err.msg);
  const uint8_t *w2[2] = {f->wtns, f->wtns};
  size_t wl2[2] = {f->wtns_len, 0}; /* a zero length with a pointer: empty all the same */
  CHECK_EQ_INT(submit_full(e, "e1", "k", 2, w2, wl2, 2, false, &t, &err), CUZK_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.msg, "witness 1 is empty"), "message: %s", err.msg);
  check_status(e, 0, 0, 0, 0);
  env_fini(&v);
}

/* A 64-bit multiply-xorshift digest over the witnesses, block by block:
 * the kind of non-cryptographic digest that cannot tell request contents
 * apart, since each step h' = f(h ^ block) with f a bijection lets a
 * second block cancel any change to the first. */
#define MULXOR_M 0x9e3779b97f4a7c15ULL
static uint64_t mulxor_step(uint64_t h, uint64_t v) {
  h = (h ^ v) * MULXOR_M;
  return h ^ h >> 31;
}

static uint64_t mulxor_digest(const uint8_t *const *w, const size_t *wl, size_t nparts) {
  const uint64_t m = MULXOR_M;
  uint64_t h = nparts * m;
  for (size_t i = 0; i < nparts; i++) {
    size_t n = wl[i], k = 0;
    h = (h ^ n) * m;
    for (; k + 8 <= n; k += 8) {
      uint64_t b;
      memcpy(&b, w[i] + k, 8);
      h = mulxor_step(h, b);
    }
    uint64_t tail = 0;
    if (n > k)
      memcpy(&tail, w[i] + k, n - k);
    h = (h ^ tail ^ (uint64_t)(n - k) << 56) * m;
    h ^= h >> 29;
  }
  return h;
}

/* Two witnesses under one request id that such a digest cannot tell
 * apart (9 bytes differ, inside one value's low 20 bytes) are two
 * requests: the second is refused, never handed the first's proof. */
ETEST(engine_request_id_colliding_witness_refused) {
  env v;
  env_init(&v, 4, 41, 1, false);
  engine *e = env_start(&v);
  const fixture *f = &v.f;
  uint8_t *b = malloc(f->wtns_len);
  CHECK(b);
  memcpy(b, f->wtns, f->wtns_len);
  wtns_file w;
  cuzk_err err = {0};
  CHECK(wtns_open_mem(&w, b, f->wtns_len, "w", &err) == CUZK_OK);
  size_t off = (size_t)(wtns_value(&w, w.n_witness - 1) - b);
  wtns_close(&w);
  size_t k = (off + 7) / 8 * 8; /* the first whole 8-byte block in the last value */
  CHECK(k + 16 <= off + 20 && k + 16 <= f->wtns_len);
  /* the digest's state before block k, then the blocks k and k + 1 */
  uint64_t h = (1 * MULXOR_M ^ f->wtns_len) * MULXOR_M; /* one partition of wtns_len bytes */
  for (size_t i = 0; i < k; i += 8) {
    uint64_t x;
    memcpy(&x, f->wtns + i, 8);
    h = mulxor_step(h, x);
  }
  uint64_t a0, a1;
  memcpy(&a0, f->wtns + k, 8);
  memcpy(&a1, f->wtns + k + 8, 8);
  uint64_t b0 = a0 ^ 1, b1 = a1 ^ mulxor_step(h, a0) ^ mulxor_step(h, b0);
  memcpy(b + k, &b0, 8);
  memcpy(b + k + 8, &b1, 8);
  const uint8_t *wa[1] = {f->wtns}, *wb[1] = {b};
  size_t wl[1] = {f->wtns_len};
  CHECK(memcmp(f->wtns, b, f->wtns_len) != 0);
  CHECK_MSG(mulxor_digest(wa, wl, 1) == mulxor_digest(wb, wl, 1), "the two witnesses must collide");

  engine_ticket t;
  CHECK(submit_full(e, "dup", "k", 2, wa, wl, 1, false, &t, &err) == CUZK_OK);
  check_done_and_valid(e, "dup", f);
  cuzk_status st = submit_full(e, "dup", "k", 3, wb, wl, 1, false, &t, &err);
  CHECK_MSG(st == CUZK_INVALID_ARGUMENT, "the colliding witness: %s%s (%s)", cuzk_status_name(st),
            st == CUZK_OK && t.attached ? ", attached to the first one's proof" : "", err.msg);
  CHECK_MSG(strstr(err.msg, "already used"), "message: %s", err.msg);
  /* the first witness, at another priority, still attaches */
  CHECK(submit_full(e, "dup", "k", 4, wa, wl, 1, false, &t, &err) == CUZK_OK && t.attached);
  free(b);
  env_fini(&v);
}

/* ------------------------------------------------------------ shutdown's grace */

static void *await_later(void *arg) {
  engine *e = arg;
  struct timespec ts = {0, 50 * 1000000L};
  nanosleep(&ts, NULL);
  engine_result r;
  await_state(e, "c2", &r);
  engine_result_free(&r);
  return NULL;
}

/* engine_wait_collected counts the jobs whose final result no await has
 * returned (a TIMEOUT is not one; a second await of a result is not
 * counted again), ends as soon as the last one is collected, and at its
 * bound otherwise. */
ETEST(engine_wait_collected_counts_results) {
  env v;
  env_init(&v, 4, 42, 1, true);
  engine *e = env_start(&v);
  engine_ticket t;
  CHECK_EQ_INT(engine_wait_collected(e, 0), 0);
  submit_held(&v, "c1", ENGINE_JOB_PROVING);
  submit_ok(e, "c2", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  submit_ok(e, "c3", "k", ENGINE_PRI_NORMAL, &v.f, &t);
  engine_result r;
  cuzk_err err = {0};
  CHECK_EQ_INT(engine_await(e, "c1", 10, &r, &err), CUZK_TIMEOUT);
  engine_result_free(&r);
  CHECK_EQ_INT(engine_wait_collected(e, 0), 3); /* unfinished ones count too */
  hook_release();
  engine_shutdown(e);
  CHECK_EQ_INT(engine_wait_collected(e, 0), 3);
  CHECK_EQ_INT(await_state(e, "c1", &r), ENGINE_JOB_DONE);
  engine_result_free(&r);
  CHECK_EQ_INT(await_state(e, "c1", &r), ENGINE_JOB_DONE); /* twice: counted once */
  engine_result_free(&r);
  CHECK_EQ_INT(engine_wait_collected(e, 0), 2);
  /* bounded: c2 and c3 uncollected, 50 ms */
  double t0 = cuzk_now_s();
  CHECK_EQ_INT(engine_wait_collected(e, 50), 2);
  CHECK(cuzk_now_s() - t0 >= 0.045);
  CHECK_EQ_INT(await_state(e, "c3", &r), ENGINE_JOB_DONE);
  engine_result_free(&r);
  /* the last one, collected by another thread while the grace waits: the
   * wait ends then, far before its 60 s */
  pthread_t th;
  CHECK(pthread_create(&th, NULL, await_later, e) == 0);
  t0 = cuzk_now_s();
  CHECK_EQ_INT(engine_wait_collected(e, 60000), 0);
  CHECK(cuzk_now_s() - t0 < 30);
  pthread_join(th, NULL);
  env_fini(&v);
}

/* ------------------------------------------------------------ key files changed under the engine */

/* The engine owns the bytes of a loaded key (keys.c): a key file rewritten
 * in place, truncated or replaced while the key is loaded never reaches a
 * job proving with the old copy, and the next job finds the change (the
 * file's identity), reads the key again and checks it: an error naming the
 * file and what changed when the new file is bad, a proof with the new key
 * when it is good.  Timestamps: a change is seen by its mtime/ctime, so the
 * tests let a few milliseconds pass (more than a timestamp tick) between a
 * load and the change. */

static void key_change_pause(void) {
  struct timespec ts = {0, 20 * 1000000};
  nanosleep(&ts, NULL);
}

/* len bytes at off into path, in place (same inode, no truncation). */
static void write_in_place(const char *path, size_t off, const void *b, size_t len) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  CHECK(fd >= 0);
  CHECK(pwrite(fd, b, len, (off_t)off) == (ssize_t)len);
  CHECK(close(fd) == 0);
}

/* path's contents replaced in place the way `cp new path` does it: the
 * same inode truncated, then written. */
static void cp_in_place(const char *path, const void *b, size_t len) {
  int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  CHECK(fd >= 0);
  CHECK(write(fd, b, len) == (ssize_t)len);
  CHECK(close(fd) == 0);
}

/* The file offset of coefficient entry i's row in the key at path. */
static size_t coef_row_offset(const char *path, uint64_t i) {
  zkey_file zk;
  cuzk_err err = {0};
  CHECK_MSG(zkey_open(&zk, path, &err) == CUZK_OK, "%s", err.msg);
  const binfile_section *s4 = NULL;
  CHECK(binfile_section_get(&zk.bf, 4, "coefficients", true, &s4, NULL) == CUZK_OK);
  CHECK(i < zk.n_coefs);
  size_t off = (size_t)s4->offset + 4 + (size_t)i * ZKEY_COEF_BYTES + 4;
  zkey_close(&zk);
  return off;
}

/* Job `id` on "k" fails (any status) with an error holding each of the
 * NULL-terminated strings `what`. */
static void submit_fails_naming(engine *e, const char *id, const fixture *f,
                                const char *const *what) {
  engine_ticket t;
  submit_ok(e, id, "k", ENGINE_PRI_NORMAL, f, &t);
  engine_result r;
  engine_job_state s = await_state(e, id, &r);
  CHECK_MSG(s == ENGINE_JOB_FAILED, "job %s: %s, expected FAILED", id, engine_job_state_name(s));
  for (; *what; what++)
    CHECK_MSG(strstr(r.error, *what), "job %s: no '%s' in: %s", id, *what, r.error);
  CHECK(r.proof == NULL);
  printf("  %s: %s: %s\n", id, cuzk_status_name(r.job_status), r.error);
  engine_result_free(&r);
}

/* Job `id` on "k" with f's witness ends DONE with a proof that verifies
 * against f's key. */
static void prove_ok(engine *e, const char *id, const fixture *f) {
  engine_ticket t;
  submit_ok(e, id, "k", ENGINE_PRI_NORMAL, f, &t);
  check_done_and_valid(e, id, f);
}

/* Starts v's engine with its key loaded by a first job "a" (proved), the
 * key file's bytes as loaded in *orig (*len bytes, the caller frees), and
 * the pause that lets a change after it be seen. */
static engine *env_start_loaded(env *v, uint8_t **orig, size_t *len) {
  *orig = (uint8_t *)test_read_file(v->f.zkey, len);
  CHECK(*orig);
  engine *e = env_start(v);
  prove_ok(e, "a", &v->f);
  key_change_pause();
  return e;
}

/* A coefficient row set to >= domainSize in place (same size, same
 * inode), then set back: the job between fails naming the file, the
 * change and the bad row, nothing is written out of bounds, and the job
 * after proves again.  Before the engine owned its keys, that job's a/b
 * pass indexed the mapped file's new row and wrote far out of bounds. */
ETEST(engine_key_rewritten_in_place_between_jobs) {
  env v;
  env_init(&v, 5, 61, 1, false);
  engine *e = env_start(&v);
  prove_ok(e, "a", &v.f);
  size_t off = coef_row_offset(v.f.zkey, 3);
  uint8_t was[4];
  int fd = open(v.f.zkey, O_RDONLY | O_CLOEXEC);
  CHECK(fd >= 0 && pread(fd, was, 4, (off_t)off) == 4 && close(fd) == 0);
  key_change_pause();
  const uint8_t bad[4] = {0xf0, 0xff, 0xff, 0x7f}; /* row 0x7ffffff0 */
  write_in_place(v.f.zkey, off, bad, 4);
  const char *want[] = {v.f.zkey, "changed since it was loaded", "row 2147483632",
                        "expected < domainSize", NULL};
  submit_fails_naming(e, "b", &v.f, want);
  submit_fails_naming(e, "b2", &v.f, want); /* still bad: refused again, read again */
  key_change_pause();
  write_in_place(v.f.zkey, off, was, 4);
  prove_ok(e, "c", &v.f);
  check_status(e, 2, 2, 0, 0);
  env_fini(&v);
}

/* The key file truncated in place between jobs (what `cp` does first),
 * then written back whole: the job between fails naming the file and the
 * new size, the engine keeps serving, and the job after proves.  Before,
 * the job read the mapping past the file's new end: SIGBUS. */
ETEST(engine_key_truncated_in_place_between_jobs) {
  env v;
  env_init(&v, 5, 62, 1, false);
  size_t len;
  uint8_t *orig;
  engine *e = env_start_loaded(&v, &orig, &len);
  CHECK(truncate(v.f.zkey, (off_t)(len / 2)) == 0);
  char size[64];
  snprintf(size, sizeof size, "size %zu -> %zu", len, len / 2);
  const char *want[] = {v.f.zkey, "changed since it was loaded", size, NULL};
  submit_fails_naming(e, "b", &v.f, want);
  key_change_pause();
  cp_in_place(v.f.zkey, orig, len);
  prove_ok(e, "c", &v.f);
  CHECK(tier_of(e, "k") == ENGINE_TIER_MAPPED);
  check_status(e, 2, 1, 0, 0);
  free(orig);
  env_fini(&v);
}

/* The key file replaced by another valid key of the same shape, by rename
 * (an atomic replacement) and then in place (`cp`): each later job proves
 * with the key the file holds now (its proof verifies against that key).
 * Before, the engine went on proving with the copy mapped at the first
 * load, whatever the file had become. */
ETEST(engine_key_replaced_by_another_valid_key) {
  env v;
  env_init(&v, 5, 63, 1, false);
  fixture f2; /* another key of the same circuit shape, not registered */
  fixture_make(&f2, v.dir, "k2", 5, 64);
  size_t len;
  uint8_t *orig;
  engine *e = env_start_loaded(&v, &orig, &len);
  CHECK(rename(f2.zkey, v.f.zkey) == 0);
  fixture now2 = f2; /* k2's witness, the key now at k's path */
  snprintf(now2.zkey, sizeof now2.zkey, "%s", v.f.zkey);
  prove_ok(e, "b", &now2);
  key_change_pause();
  cp_in_place(v.f.zkey, orig, len);
  prove_ok(e, "c", &v.f);
  const char *loads[] = {"cuzk_key_loads_total{circuit=\"k\"} 3", NULL};
  check_metrics(e, loads);
  check_status(e, 3, 0, 0, 0);
  free(orig);
  fixture_free(&f2);
  env_fini(&v);
}

/* Changes while a job proves with the loaded copy: the job finishes on
 * the copy (its proof verifies against the key as it was loaded); a job
 * submitted meanwhile waits for the old copy's user, then proves with the
 * new key (two workers: it is taken while the first one proves); after a
 * truncation, the next job fails naming the change.  Before, the first
 * job read the mapping after the file had changed under it. */
ETEST(engine_key_changed_while_a_job_proves) {
  env v;
  env_init(&v, 5, 65, 2, true);
  fixture f2;
  fixture_make(&f2, v.dir, "k2", 5, 66);
  size_t len;
  uint8_t *orig = (uint8_t *)test_read_file(v.f.zkey, &len);
  CHECK(orig);
  fixture was = v.f; /* the first key, kept beside it to verify against */
  snprintf(was.zkey, sizeof was.zkey, "%s/was.zkey", v.dir);
  FILE *fp = fopen(was.zkey, "wb");
  CHECK(fp && fwrite(orig, 1, len, fp) == len && fclose(fp) == 0);
  fixture was2 = f2; /* the second key, kept beside it likewise */
  snprintf(was2.zkey, sizeof was2.zkey, "%s/was2.zkey", v.dir);
  size_t len2;
  uint8_t *k2 = (uint8_t *)test_read_file(f2.zkey, &len2);
  CHECK(k2 && (fp = fopen(was2.zkey, "wb")) && fwrite(k2, 1, len2, fp) == len2 && fclose(fp) == 0);
  free(k2);
  engine *e = env_start(&v);
  submit_held(&v, "a", ENGINE_JOB_PROVING); /* a, b computed; the MSMs to come */
  key_change_pause();
  CHECK(rename(f2.zkey, v.f.zkey) == 0);
  fixture now2 = f2;
  snprintf(now2.zkey, sizeof now2.zkey, "%s", v.f.zkey);
  engine_ticket t;
  submit_ok(e, "b", "k", ENGINE_PRI_NORMAL, &now2, &t);
  hook_wait_taken(2); /* b is taken: it waits for a's copy to go (or, when a is done
                      * first, reads the new key at once: the same result) */
  hook_release();
  check_done_and_valid(e, "a", &was);
  check_done_and_valid(e, "b", &now2);
  /* In flight again, now truncated under it. */
  submit_held(&v, "c", ENGINE_JOB_PROVING);
  key_change_pause();
  CHECK(truncate(v.f.zkey, 100) == 0);
  hook_release();
  fixture c_chk = was2; /* c: k's witness on the second key, as loaded */
  c_chk.wtns = v.f.wtns, c_chk.wtns_len = v.f.wtns_len;
  check_done_and_valid(e, "c", &c_chk);
  const char *want[] = {v.f.zkey, "changed since it was loaded", "-> 100", NULL};
  submit_fails_naming(e, "d", &v.f, want);
  key_change_pause();
  cp_in_place(v.f.zkey, orig, len);
  prove_ok(e, "e", &v.f);
  check_status(e, 4, 1, 0, 0);
  unlink(was.zkey);
  unlink(was2.zkey);
  free(orig);
  fixture_free(&f2);
  env_fini(&v);
}

/* The DEVICE tier: both slots of a stand-in GPU hold the key's copy when
 * its file is replaced by another valid key (rename).  The next job's
 * slots see the change, let go of their holds (the old device copy is
 * freed, the old host copy unloaded) and prove with the new key: both of
 * its partitions verify against it.  Without the slot's own check
 * (keys_stale) its hold would keep the old copy referenced and the reload
 * waiting for ever; and a device copy kept across the reload would be used
 * for the new key's bases. */
ETEST(engine_device_held_key_file_replaced) {
  env v;
  env_init(&v, 5, 67, 1, false);
  fixture f2;
  fixture_make(&f2, v.dir, "k2", 5, 68);
  backend_devices t = fake_on(&v, 1, 2, 0);
  v.c.devices = &t;
  engine *e = env_start(&v);
  submit_parts(&v, "a", 2);
  check_done_and_valid(e, "a", &v.f);
  wait_workers_idle(e);
  CHECK_EQ_INT(tier_of(e, "k"), ENGINE_TIER_DEVICE);
  key_change_pause();
  CHECK(rename(f2.zkey, v.f.zkey) == 0);
  fixture now2 = f2; /* k2's witness, the key now at k's path */
  snprintf(now2.zkey, sizeof now2.zkey, "%s", v.f.zkey);
  const uint8_t *w[2] = {f2.wtns, f2.wtns};
  size_t wl[2] = {f2.wtns_len, f2.wtns_len};
  engine_ticket tk;
  cuzk_err err = {0};
  CHECK_MSG(submit_full(e, "b", "k", ENGINE_PRI_NORMAL, w, wl, 2, false, &tk, &err) == CUZK_OK,
            "%s", err.msg);
  check_done_and_valid(e, "b", &now2);
  const char *loads[] = {"cuzk_key_loads_total{circuit=\"k\"} 2", NULL};
  check_metrics(e, loads);
  fixture_free(&f2);
  env_fini(&v);
}
