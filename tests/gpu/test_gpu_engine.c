/* The GPU executor through the engine (DESIGN.md section 3): K = 2 slots on
 * GPU 0 with a synthetic key (groth16/keygen.h), a warm-up that has each
 * slot prove once, then a batch of jobs in flight together.  Checks: every
 * job DONE (the engine verifies each proof before returning it), no
 * device-global CUDA call at all over the batch (cuda/gcall.h counters,
 * every kind), both slots in the timeline; prints the GPU busy fraction and
 * whether one slot's uploads overlapped the other's kernels.  Also the
 * ordinal checks (all GPUs by default, a missing ordinal refused) and
 * GetStatus's vram_*.  Skipped, with the reason, without a usable GPU. */
#include <pthread.h>

#include "harness.h"

#include "gpu_engine_util.h"
#include "gpu_test.h"

#define LG 16     /* the key: domain 2^16 */
#define NJOBS 12  /* the measured batch */

/* The warm-up barrier: the hook holds each slot at PREPARING until K
 * partitions have been taken, so each of the K slots takes one. */
typedef struct {
  pthread_mutex_t mu;
  unsigned arrived, want;
  bool on;
} barrier;

static void barrier_hook(void *ctx, const char *job, size_t part, engine_job_state s) {
  barrier *b = ctx;
  if (s != ENGINE_JOB_PREPARING)
    return;
  pthread_mutex_lock(&b->mu);
  if (b->on) {
    b->arrived++;
    double until = cuzk_now_s() + 60;
    while (b->on && b->arrived < b->want && cuzk_now_s() < until) {
      pthread_mutex_unlock(&b->mu);
      usleep(1000);
      pthread_mutex_lock(&b->mu);
    }
  }
  pthread_mutex_unlock(&b->mu);
}

static void batch_without_global_calls(bool resident) {
  need_gpu();
  gx_key k;
  cuzk_err err = {0};
  CHECK_MSG(gx_key_make(&k, LG, &err) == CUZK_OK, "keygen: %s", err.msg);
  const int gpu0 = 0;
  const unsigned K = 2;
  engine_config c;
  engine_circuit circ;
  gx_config(&c, &circ, &gpu0, &k, K, resident);
  barrier b = {PTHREAD_MUTEX_INITIALIZER, 0, K, true};
  c.test_hook = barrier_hook;
  c.test_hook_ctx = &b;
  engine *e = NULL;
  cuzk_status st = engine_new(&e, &c, &err);
  CHECK_MSG(st == CUZK_OK, "engine_new: %s: %s", cuzk_status_name(st), err.msg);

  engine_status es;
  CHECK(engine_status_get(e, &es, &err) == CUZK_OK);
  CHECK_EQ_INT(es.ngpus, 1);
  CHECK_EQ_INT(es.gpus[0].slots, K);
  CHECK_MSG(es.gpus[0].vram_total > 0 && es.gpus[0].vram_free > 0 &&
                es.gpus[0].vram_free <= es.gpus[0].vram_total,
            "vram: total %llu, free %llu", (unsigned long long)es.gpus[0].vram_total,
            (unsigned long long)es.gpus[0].vram_free);
  printf("  GPU 0: %s, %u slots, vram %.1f of %.1f GiB free after planning, budget %.1f GiB\n",
         es.gpus[0].name, es.gpus[0].slots, es.gpus[0].vram_free / 1073741824.0,
         es.gpus[0].vram_total / 1073741824.0, es.gpus[0].budget / 1073741824.0);
  engine_status_free(&es);

  /* Warm-up: K jobs, one per slot (the barrier), so each slot has made what
   * a first proof makes (the key's load; with resident keys its copy). */
  double wall = 0;
  st = gx_run_jobs(e, &k, K, ENGINE_PRI_NORMAL, &wall, &err);
  CHECK_MSG(st == CUZK_OK, "warm-up: %s: %s", cuzk_status_name(st), err.msg);
  pthread_mutex_lock(&b.mu);
  b.on = false;
  unsigned arrived = b.arrived;
  pthread_mutex_unlock(&b.mu);
  CHECK_EQ_INT(arrived, K);
  engine_span *spans = NULL;
  size_t nspans = 0;
  CHECK(engine_timeline(e, &spans, &nspans, &err) == CUZK_OK); /* drop the warm-up's */
  free(spans);

  cuzk_cuda_gcalls before, after;
  cuzk_cuda_global_calls(&before);
  st = gx_run_jobs(e, &k, NJOBS, ENGINE_PRI_NORMAL, &wall, &err);
  cuzk_cuda_global_calls(&after);
  CHECK_MSG(st == CUZK_OK, "batch: %s: %s", cuzk_status_name(st), err.msg);
  char calls[512];
  cuzk_cuda_gcalls_describe(calls, sizeof calls, &before, &after);
  printf("  %d jobs of 2^%d on %u slots (%s bases): %.3f s, %.1f proofs/s; global CUDA calls: %s\n",
         NJOBS, LG, K, resident ? "resident" : "streamed", wall, NJOBS / wall, calls);
  CHECK_MSG(cuzk_cuda_gcalls_delta(&before, &after, false) == 0,
            "device-global CUDA calls on the job path: %s", calls);

  CHECK(engine_timeline(e, &spans, &nspans, &err) == CUZK_OK);
  gx_timeline a;
  gx_timeline_analyse(&a, spans, nspans);
  printf("  timeline: %zu spans (%zu uploads, %zu kernel stretches) on %u slots; GPU busy %.1f%% "
         "of %.3f s; %zu uploads overlapped another slot's kernels (%.1f ms)\n",
         a.spans, a.uploads, a.computes, a.slots_seen,
         a.t1 > a.t0 ? 100.0 * a.busy_s / (a.t1 - a.t0) : 0.0, a.t1 - a.t0, a.uploads_overlapped,
         a.overlap_s * 1e3);
  CHECK_EQ_INT(a.slots_seen, K);
  CHECK(a.uploads >= NJOBS); /* at least the quotient's a, b per proof */
  free(spans);
  engine_free(e);
  gx_key_free(&k);
}

TEST_TIMEOUT(engine_gpu_batch_no_global_calls, 900) { batch_without_global_calls(false); }
TEST_TIMEOUT(engine_gpu_batch_no_global_calls_resident, 900) { batch_without_global_calls(true); }

/* A HIGH job submitted behind a queue of NORMAL ones is taken first and
 * proves on its slot's high-priority stream. */
TEST_TIMEOUT(engine_gpu_priority_job_proves, 900) {
  need_gpu();
  gx_key k;
  cuzk_err err = {0};
  CHECK_MSG(gx_key_make(&k, LG, &err) == CUZK_OK, "keygen: %s", err.msg);
  const int gpu0 = 0;
  engine_config c;
  engine_circuit circ;
  gx_config(&c, &circ, &gpu0, &k, 2, false);
  engine *e = NULL;
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "engine_new: %s", err.msg);
  double wall = 0;
  engine_set_paused(e, true);
  const uint8_t *w = k.wit;
  const size_t wl = k.wit_len;
  engine_ticket tn[4], th;
  for (int i = 0; i < 4; i++) {
    engine_request rq = {.circuit_id = "chain", .priority = ENGINE_PRI_NORMAL, .nparts = 1,
                         .witness = &w, .witness_len = &wl};
    CHECK(engine_submit(e, &rq, &tn[i], &err) == CUZK_OK);
  }
  engine_request rh = {.circuit_id = "chain", .priority = ENGINE_PRI_HIGH, .nparts = 1,
                       .witness = &w, .witness_len = &wl};
  CHECK(engine_submit(e, &rh, &th, &err) == CUZK_OK);
  engine_set_paused(e, false);
  engine_result r;
  CHECK(engine_await(e, th.job_id, 0, &r, &err) == CUZK_OK);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "high job: %s", r.error);
  engine_result_free(&r);
  for (int i = 0; i < 4; i++) {
    CHECK(engine_await(e, tn[i].job_id, 0, &r, &err) == CUZK_OK);
    CHECK_MSG(r.state == ENGINE_JOB_DONE, "normal job %d: %s", i, r.error);
    engine_result_free(&r);
  }
  CHECK(gx_run_jobs(e, &k, 2, ENGINE_PRI_CRITICAL, &wall, &err) == CUZK_OK);
  engine_free(e);
  gx_key_free(&k);
}

/* No ordinals: every usable GPU, K slots each; a missing ordinal is
 * refused with device = GPU and skipped with AUTO (the CPU then). */
TEST_TIMEOUT(engine_gpu_ordinals, 600) {
  need_gpu();
  gx_key k;
  cuzk_err err = {0};
  CHECK_MSG(gx_key_make(&k, 10, &err) == CUZK_OK, "keygen: %s", err.msg);
  int count = cuzk_cuda_device_count(NULL, 0);
  int usable = 0;
  for (int g = 0; g < count; g++) usable += cuzk_cuda_device_usable(g, NULL, 0);
  engine_config c;
  engine_circuit circ;
  gx_config(&c, &circ, NULL, &k, 1, false);
  engine *e = NULL;
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "engine_new: %s", err.msg);
  engine_status es;
  CHECK(engine_status_get(e, &es, &err) == CUZK_OK);
  CHECK_EQ_INT(es.ngpus, usable);
  for (size_t i = 0; i < es.ngpus; i++) {
    printf("  GPU %d: %s, %u slot(s), %.1f GiB free\n", es.gpus[i].ordinal, es.gpus[i].name,
           es.gpus[i].slots, es.gpus[i].vram_free / 1073741824.0);
    CHECK_EQ_INT(es.gpus[i].slots, 1);
    CHECK(es.gpus[i].vram_total > 0);
  }
  engine_status_free(&es);
  double wall = 0;
  CHECK_MSG(gx_run_jobs(e, &k, 2 * (size_t)usable, ENGINE_PRI_NORMAL, &wall, &err) == CUZK_OK,
            "jobs: %s", err.msg);
  engine_free(e);

  const int missing = count; /* one past the last */
  gx_config(&c, &circ, &missing, &k, 1, false);
  CHECK_EQ_INT(engine_new(&e, &c, &err), CUZK_UNSUPPORTED);
  printf("  GPU %d refused: %s\n", missing, err.msg);
  c.device = ENGINE_DEVICE_AUTO;
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "AUTO: %s", err.msg);
  CHECK(engine_status_get(e, &es, &err) == CUZK_OK);
  CHECK_EQ_INT(es.ngpus, 0);
  CHECK(es.cpu_workers >= 1);
  engine_status_free(&es);
  engine_free(e);
  gx_key_free(&k);
}
