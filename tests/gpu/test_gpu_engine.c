/* The GPU executor through the engine (docs/DESIGN.md §3): K = 2 slots on
 * GPU 0 with a synthetic key (groth16/keygen.h), a warm-up that has each
 * slot prove once, then a batch of jobs in flight together.  Checks: every
 * job DONE (the engine verifies each proof before returning it), no
 * device-global CUDA call at all over the batch (cuda/gcall.h counters,
 * every kind), both slots in the timeline; prints the GPU busy fraction and
 * whether one slot's uploads overlapped the other's kernels.  Also the
 * ordinal checks (all GPUs by default, a missing ordinal refused) and
 * GetStatus's vram_*.  With resident keys, K = 2 slots share one copy of
 * the key: after both proved it, free VRAM has dropped by one copy (the
 * status's resident bytes), not two, and an eviction gives it back.  And
 * a GPU lost to an injected fault fails over (gpu_fault.h).
 * Skipped, with the reason, without a usable GPU. */
#include <pthread.h>
#include <sys/stat.h>

#include "harness.h"

#include "gpu_engine_util.h"
#include "gpu_fault.h"
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

/* An engine of K slots on GPU 0 whose warm-up barrier is b. */
static engine *start_k_slots(const gx_key *k, unsigned K, bool resident, barrier *b) {
  const int gpu0 = 0;
  engine_config c;
  engine_circuit circ;
  gx_config(&c, &circ, &gpu0, k, K, resident);
  *b = (barrier){PTHREAD_MUTEX_INITIALIZER, 0, K, true};
  c.test_hook = barrier_hook;
  c.test_hook_ctx = b;
  engine *e = NULL;
  cuzk_err err = {0};
  cuzk_status st = engine_new(&e, &c, &err);
  CHECK_MSG(st == CUZK_OK, "engine_new: %s: %s", cuzk_status_name(st), err.msg);
  return e;
}

/* K jobs, one per slot (the barrier), so each slot has made what a first
 * proof makes (the key's load; with resident keys the GPU's copy). */
static void warm_up_each_slot(engine *e, const gx_key *k, barrier *b) {
  double wall = 0;
  cuzk_err err = {0};
  cuzk_status st = gx_run_jobs(e, k, b->want, ENGINE_PRI_NORMAL, &wall, &err);
  CHECK_MSG(st == CUZK_OK, "warm-up: %s: %s", cuzk_status_name(st), err.msg);
  pthread_mutex_lock(&b->mu);
  b->on = false;
  unsigned arrived = b->arrived;
  pthread_mutex_unlock(&b->mu);
  CHECK_EQ_INT(arrived, b->want);
}

static void batch_without_global_calls(bool resident) {
  need_gpu();
  gx_key k;
  cuzk_err err = {0};
  CHECK_MSG(gx_key_make(&k, LG, &err) == CUZK_OK, "keygen: %s", err.msg);
  const unsigned K = 2;
  barrier b;
  engine *e = start_k_slots(&k, K, resident, &b);
  cuzk_status st;

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

  warm_up_each_slot(e, &k, &b);
  double wall = 0;
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

/* Waits (bounded, 30 s) until GPU 0 holds no resident copy and its budget
 * counts none (a slot frees its copy, then gives the budget back). */
static void wait_nothing_resident(engine *e, engine_gpu_status *g) {
  cuzk_err err = {0};
  for (int i = 0; i < 3000; i++) {
    CHECK(gx_gpu0(e, g, &err) == CUZK_OK);
    if (g->resident == 0 && g->used == 0)
      return;
    usleep(10000);
  }
  TEST_FAIL("GPU 0: resident %llu bytes, budget used %llu, want none",
            (unsigned long long)g->resident, (unsigned long long)g->used);
}

/* K = 2 slots with resident keys share one copy per GPU: once both have
 * proved the key, GPU 0's free memory has dropped by about the copy's
 * bytes (the store's, GetStatus's resident), not twice that; the budget
 * counts the key once; more jobs add nothing; EvictSRS frees it.
 *
 * A slot's first proof also allocates things of its own (NTT twiddles,
 * the a/b scratch, the CUDA modules on first launch): on the H200 about
 * 0.13 GiB for two slots, more than a quarter of a 2^18 key's copy.  So an
 * engine with streamed bases (no copies) runs the same first proofs
 * before, and what its free memory lost, `lazy`, is allowed on top of the
 * copy; with a 2^20 key the copy (~0.8 GiB) is several times that, so
 * one copy and two stay far apart. */
#define LG_COPY 20
TEST_TIMEOUT(engine_gpu_k2_one_resident_copy, 900) {
  need_gpu();
  gx_key k;
  cuzk_err err = {0};
  CHECK_MSG(gx_key_make(&k, LG_COPY, &err) == CUZK_OK, "keygen: %s", err.msg);
  struct stat sb;
  CHECK(stat(k.zkey, &sb) == 0);
  const uint64_t key_bytes = (uint64_t)sb.st_size;
  const unsigned K = 2;
  barrier b;
  engine_gpu_status g0, g1, g2;

  /* the slots' own first-proof allocations, without resident copies */
  engine *e = start_k_slots(&k, K, false, &b);
  CHECK(gx_gpu0(e, &g0, &err) == CUZK_OK);
  warm_up_each_slot(e, &k, &b);
  CHECK(gx_gpu0(e, &g1, &err) == CUZK_OK);
  CHECK_EQ_INT(g1.resident, 0);
  const double lazy = (double)g0.vram_free - (double)g1.vram_free;
  engine_free(e);

  e = start_k_slots(&k, K, true, &b);
  CHECK(gx_gpu0(e, &g0, &err) == CUZK_OK);
  CHECK_EQ_INT(g0.slots, K);
  CHECK_EQ_INT(g0.resident, 0);
  CHECK_EQ_INT(g0.used, 0);

  warm_up_each_slot(e, &k, &b); /* both slots prove the key */
  CHECK(gx_gpu0(e, &g1, &err) == CUZK_OK);
  const double drop = (double)g0.vram_free - (double)g1.vram_free;
  printf("  2^%d key (%.3f GiB file), K = %u: resident %.3f GiB on GPU 0 (budget used %.3f of "
         "%.1f GiB); free %.3f -> %.3f GiB after both slots proved: dropped %.3f GiB "
         "(one copy %.3f, a copy per slot would be %.3f; the slots' own first-proof "
         "allocations with streamed bases: %.3f)\n",
         LG_COPY, gx_gib(key_bytes), K, gx_gib(g1.resident), gx_gib(g1.used), gx_gib(g1.budget),
         gx_gib(g0.vram_free), gx_gib(g1.vram_free), drop / 1073741824.0, gx_gib(g1.resident),
         gx_gib(K * g1.resident), lazy / 1073741824.0);
  /* the budget counts the key once (its file and the coefficients' scratch), not per slot */
  CHECK(g1.used >= key_bytes && g1.used < 2 * key_bytes);
  CHECK(g1.resident > 0 && g1.resident <= g1.used);
  /* one copy, plus at most the slots' own allocations (and 64 MiB of
   * allocator rounding); the test means something only while a second
   * copy would not fit in that */
  const double slack = (double)(64u << 20), copy = (double)g1.resident;
  CHECK_MSG(copy > lazy + 2 * slack, "the copy (%.0f bytes) is not larger than the slots' own "
            "allocations (%.0f): make the key larger", copy, lazy);
  CHECK_MSG(drop > copy - slack && drop < copy + (lazy > 0 ? lazy : 0) + slack,
            "free VRAM dropped %.0f bytes; one resident copy is %.0f, the slots' own "
            "allocations %.0f", drop, copy, lazy);

  /* more proofs on both slots at once: no further copy */
  double wall = 0;
  cuzk_status st = gx_run_jobs(e, &k, 4 * K, ENGINE_PRI_NORMAL, &wall, &err);
  CHECK_MSG(st == CUZK_OK, "batch: %s: %s", cuzk_status_name(st), err.msg);
  CHECK(gx_gpu0(e, &g2, &err) == CUZK_OK);
  CHECK_EQ_INT(g2.resident, g1.resident);
  CHECK_MSG((double)g1.vram_free - (double)g2.vram_free < slack,
            "free VRAM went on dropping: %llu -> %llu", (unsigned long long)g1.vram_free,
            (unsigned long long)g2.vram_free);

  /* EvictSRS: the idle slots let go, the copy goes, the memory comes back */
  bool was = false;
  uint64_t freed = 0;
  CHECK(engine_evict(e, "chain", &was, &freed, &err) == CUZK_OK && was);
  wait_nothing_resident(e, &g2);
  printf("  evicted: free %.3f GiB (%.3f before the first proof)\n", gx_gib(g2.vram_free),
         gx_gib(g0.vram_free));
  CHECK_MSG((double)g0.vram_free - (double)g2.vram_free < (lazy > 0 ? lazy : 0) + slack,
            "after the eviction %llu bytes free, %llu before the first proof",
            (unsigned long long)g2.vram_free, (unsigned long long)g0.vram_free);
  /* and it proves again (one slot uploads the copy anew) */
  st = gx_run_jobs(e, &k, K, ENGINE_PRI_HIGH, &wall, &err);
  CHECK_MSG(st == CUZK_OK, "after the eviction: %s: %s", cuzk_status_name(st), err.msg);
  engine_free(e);
  gx_key_free(&k);
}

/* The lost-GPU path on real GPUs (issue 16): a fault injected on one GPU
 * (gpu_fault.h: its proving operations fail with DEVICE_LOST from the
 * third on) is taken as a lost GPU.  With two GPUs or more the fault is on
 * GPU 1 and the jobs fail over to the others; with one, the engine runs
 * device AUTO and fails over to its CPU workers.  Every job DONE (the
 * engine verified each proof), the fault reached, the faulted GPU FAILED
 * in the status with its reason and 0 in the metrics, the others up. */
TEST_TIMEOUT(engine_gpu_lost_fails_over, 900) {
  need_gpu();
  gx_key k;
  cuzk_err err = {0};
  CHECK_MSG(gx_key_make(&k, 12, &err) == CUZK_OK, "keygen: %s", err.msg);
  const int count = cuzk_cuda_device_count(NULL, 0);
  int usable = 0;
  for (int g = 0; g < count; g++) usable += cuzk_cuda_device_usable(g, NULL, 0);
  const int bad = usable >= 2 ? 1 : 0;
  engine_config c;
  engine_circuit circ;
  gx_config(&c, &circ, NULL, &k, 1, false); /* every usable GPU, one slot each */
  if (usable < 2) {
    c.device = ENGINE_DEVICE_AUTO;
    c.cpu_workers = 1;
  }
  c.devices = gx_fault_arm(bad, 3);
  engine *e = NULL;
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "engine_new: %s", err.msg);
  double wall = 0;
  const size_t n = 4 * (size_t)usable + 4;
  cuzk_status st = gx_run_jobs(e, &k, n, ENGINE_PRI_NORMAL, &wall, &err);
  CHECK_MSG(st == CUZK_OK, "jobs: %s: %s", cuzk_status_name(st), err.msg);
  CHECK_MSG(atomic_load(&gx_fault.injected) >= 1, "the fault on GPU %d was never reached", bad);
  printf("  %zu jobs in %.2f s on %d GPU(s)%s; GPU %d failed %u operation(s)\n", n, wall,
         usable, usable < 2 ? " and the CPU" : "", bad, atomic_load(&gx_fault.injected));
  engine_status es;
  CHECK(engine_status_get(e, &es, &err) == CUZK_OK);
  bool seen = false;
  for (size_t i = 0; i < es.ngpus; i++) {
    const engine_gpu_status *g = &es.gpus[i];
    printf("  GPU %d: %s%s%s\n", g->ordinal, engine_gpu_state_name(g->state),
           g->reason[0] ? ": " : "", g->reason);
    if (g->ordinal == bad) {
      seen = true;
      CHECK_EQ_INT(g->state, ENGINE_GPU_FAILED);
      CHECK_MSG(strstr(g->reason, "injected") != NULL, "reason: %s", g->reason);
    } else {
      CHECK_EQ_INT(g->state, ENGINE_GPU_UP);
    }
  }
  CHECK_MSG(seen, "GPU %d is not in the status", bad);
  engine_status_free(&es);
  char *m = engine_metrics_text(e);
  CHECK(m);
  for (int g = 0; g < usable; g++) {
    char want[64];
    snprintf(want, sizeof want, "cuzk_gpu_up{device=\"gpu%d\"} %d\n", g, g == bad ? 0 : 1);
    CHECK_MSG(strstr(m, want) != NULL, "metrics lack %s", want);
  }
  free(m);
  engine_free(e);
  gx_key_free(&k);
}
