/* The GPU executor's throughput: proofs/s of the engine with K = 1, 2, 3
 * slots on GPU 0 over a synthetic key of 2^LG (groth16/keygen.h), with the
 * slots' timeline: GPU busy fraction (the union of kernel stretches over
 * the batch's wall time), whether one slot's uploads overlapped another's
 * kernels, and the device-global CUDA calls made during the batch (want:
 * none); with resident keys, the resident bytes on GPU 0 (one copy that
 * its K slots share) and its free memory after the warm-up, per K.
 * Prints "summary: ..." lines for bench/gpu.sh's table.
 *
 *   bench_gpu_engine [-l LG] [-n JOBS] [-k 1,2,3] [-s]
 *     -l  key size 2^LG (default 20; the target is 24)
 *     -n  jobs per K after a warm-up of K jobs (default 4 per slot, at least 8)
 *     -k  the slot counts to run (default 1,2,3)
 *     -s  streamed bases (keys_on_device off; default: resident on the GPU)
 * Exit status 1 when a job fails; 0 otherwise (also when skipped: no GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_engine_util.h"

static int run_k(const gx_key *k, unsigned lg, unsigned K, size_t njobs, bool resident) {
  const int gpu0 = 0;
  engine_config c;
  engine_circuit circ;
  gx_config(&c, &circ, &gpu0, k, K, resident);
  engine *e = NULL;
  cuzk_err err = {0};
  cuzk_status st = engine_new(&e, &c, &err);
  if (st != CUZK_OK) {
    printf("K=%u: engine_new: %s: %s\n", K, cuzk_status_name(st), err.msg);
    printf("summary: engine 2^%u K=%u: not started (%s)\n", lg, K, cuzk_status_name(st));
    return st == CUZK_NO_MEMORY ? 0 : 1;
  }
  engine_status es;
  unsigned slots = K;
  if (engine_status_get(e, &es, &err) == CUZK_OK) {
    slots = es.ngpus ? es.gpus[0].slots : 0;
    printf("K=%u: GPU 0 %s: %u slots planned%s%s, %.1f of %.1f GiB free\n", K,
           es.ngpus ? es.gpus[0].name : "?", slots, es.ngpus && es.gpus[0].note[0] ? ": " : "",
           es.ngpus ? es.gpus[0].note : "", es.ngpus ? es.gpus[0].vram_free / 1073741824.0 : 0.0,
           es.ngpus ? es.gpus[0].vram_total / 1073741824.0 : 0.0);
    engine_status_free(&es);
  }
  double wall = 0;
  /* Warm-up: 2K jobs, so every slot has most likely proved once. */
  if ((st = gx_run_jobs(e, k, 2 * (size_t)K, ENGINE_PRI_NORMAL, &wall, &err)) != CUZK_OK) {
    printf("K=%u: warm-up: %s: %s\n", K, cuzk_status_name(st), err.msg);
    engine_free(e);
    return 1;
  }
  engine_span *spans = NULL;
  size_t nspans = 0;
  engine_timeline(e, &spans, &nspans, &err);
  free(spans);
  /* Residency after the warm-up: one copy on the GPU whatever K. */
  engine_gpu_status g;
  if (gx_gpu0(e, &g, &err) != CUZK_OK)
    memset(&g, 0, sizeof g);
  printf("K=%u: resident on GPU 0: %.2f GiB (%s), budget used %.2f of %.2f GiB; "
         "%.1f of %.1f GiB free after the warm-up\n",
         K, gx_gib(g.resident), resident ? "one copy for the GPU's slots" : "streamed bases",
         gx_gib(g.used), gx_gib(g.budget), gx_gib(g.vram_free), gx_gib(g.vram_total));

  cuzk_cuda_gcalls before, after;
  cuzk_cuda_global_calls(&before);
  st = gx_run_jobs(e, k, njobs, ENGINE_PRI_NORMAL, &wall, &err);
  cuzk_cuda_global_calls(&after);
  if (st != CUZK_OK) {
    printf("K=%u: batch: %s: %s\n", K, cuzk_status_name(st), err.msg);
    engine_free(e);
    return 1;
  }
  char calls[512];
  cuzk_cuda_gcalls_describe(calls, sizeof calls, &before, &after);
  if (engine_timeline(e, &spans, &nspans, &err) != CUZK_OK)
    nspans = 0, spans = NULL;
  gx_timeline a;
  gx_timeline_analyse(&a, spans, nspans);
  /* Busy: over the batch's wall time (first submit to last result), and
   * over the window from the first span to the last (without the first
   * proof's host-side start and the last one's verification). */
  const double busy = wall > 0 ? a.busy_s / wall : 0;
  const double busy_win = a.t1 > a.t0 ? a.busy_s / (a.t1 - a.t0) : 0;
  printf("K=%u: %zu jobs of 2^%u in %.3f s: %.3f proofs/s; GPU busy %.1f%% of the wall time, "
         "%.1f%% of the span window %.3f s (kernel stretches %.3f s); %zu of %zu uploads "
         "overlapped another slot's kernels (%.1f ms); global CUDA calls: %s\n",
         K, njobs, lg, wall, njobs / wall, 100 * busy, 100 * busy_win, a.t1 - a.t0, a.busy_s,
         a.uploads_overlapped, a.uploads, a.overlap_s * 1e3, calls);
  /* The slots' timeline, one line per span (first 200), for plots. */
  for (size_t i = 0; i < nspans && i < 200; i++)
    printf("span K=%u slot %u %s %.6f %.6f\n", K, spans[i].slot,
           spans[i].upload ? "upload " : "compute", spans[i].t0 - a.t0, spans[i].t1 - a.t0);
  printf("summary: engine 2^%u K=%u (%u slots, %s): %.3f proofs/s, GPU busy %.1f%% (%.1f%% "
         "of the span window), upload/compute overlap %s (%zu/%zu), global calls %s, "
         "resident %.2f GiB, %.1f GiB free\n",
         lg, K, slots, c.keys_on_device ? "resident" : "streamed", njobs / wall, 100 * busy,
         100 * busy_win,
         a.uploads_overlapped ? "yes" : "no", a.uploads_overlapped, a.uploads,
         cuzk_cuda_gcalls_delta(&before, &after, false) ? calls : "none", gx_gib(g.resident),
         gx_gib(g.vram_free));
  free(spans);
  engine_free(e);
  return 0;
}

int main(int argc, char **argv) {
  unsigned lg = 20;
  size_t njobs = 0;
  const char *ks = "1,2,3";
  bool resident = true;
  int o;
  while ((o = getopt(argc, argv, "l:n:k:s")) != -1) {
    switch (o) {
    case 'l': lg = (unsigned)atoi(optarg); break;
    case 'n': njobs = (size_t)atol(optarg); break;
    case 'k': ks = optarg; break;
    case 's': resident = false; break;
    default:
      fprintf(stderr, "usage: %s [-l LG] [-n JOBS] [-k 1,2,3] [-s]\n", argv[0]);
      return 2;
    }
  }
  char why[512];
  if (!cuzk_cuda_available(why, sizeof why)) {
    printf("bench_gpu_engine: skipped: %s\n", why);
    return 0;
  }
  char desc[256];
  cuzk_cuda_describe(desc, sizeof desc);
  printf("GPU 0: %s\n", desc);
  gx_key k;
  cuzk_err err = {0};
  double t = cuzk_now_s();
  if (gx_key_make(&k, lg, &err) != CUZK_OK) {
    printf("keygen 2^%u: %s\n", lg, err.msg);
    return 1;
  }
  printf("key 2^%u made in %.1f s (%s)\n", lg, cuzk_now_s() - t, k.zkey);
  int rc = 0;
  for (const char *p = ks; *p;) {
    unsigned K = (unsigned)strtoul(p, (char **)&p, 10);
    if (K >= 1 && K <= 16)
      rc |= run_k(&k, lg, K, njobs ? njobs : (4 * K > 8 ? 4 * K : 8), resident);
    while (*p == ',' || *p == ' ') p++;
    if (*p && (*p < '0' || *p > '9'))
      break;
  }
  gx_key_free(&k);
  return rc;
}
