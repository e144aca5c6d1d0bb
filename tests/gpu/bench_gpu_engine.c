/* The GPU executor's throughput: proofs/s of the engine with K = 1, 2, 3
 * slots per GPU on the first G GPUs (G = 1: GPU 0) over a synthetic key of
 * 2^LG (groth16/keygen.h), with the slots' timeline: each GPU's busy
 * fraction (the union of its kernel stretches over the batch's wall
 * time), whether one slot's uploads overlapped another's kernels on its
 * GPU, and the device-global CUDA calls made during the batch (want:
 * none); with resident keys, the resident bytes on GPU 0 (one copy that
 * its K slots share) and its free memory after the warm-up, per K; with
 * several GPU counts, each run's throughput against the first count's at
 * the same K (the scaling, measured in one call).
 * Prints "summary: ..." lines for bench/gpu.sh's table.
 *
 *   bench_gpu_engine [-l LG] [-n JOBS] [-k 1,2,3] [-g 1,2] [-s]
 *     -l  key size 2^LG (default 20; the target is 24)
 *     -n  jobs per run after a warm-up of 2 jobs per slot (default 4 per
 *         slot, at least 8)
 *     -k  the slot counts per GPU to run (default 1,2,3)
 *     -g  the GPU counts to run, GPUs 0..G-1 (default 1); a count above the
 *         usable GPUs is reported as not run
 *     -s  streamed bases (keys_on_device off; default: resident on the GPU)
 * Exit status 1 when a job fails; 0 otherwise (also when skipped: no GPU). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_engine_util.h"

#define GPUS_MAX 16

/* One run: K slots on each of GPUs 0..G-1, njobs jobs; *pps its proofs/s
 * (0 when not run). */
static int run_k(const gx_key *k, unsigned lg, unsigned K, unsigned G, size_t njobs,
                 bool resident, double base_pps, double *pps) {
  *pps = 0;
  int ords[GPUS_MAX];
  for (unsigned i = 0; i < G; i++) ords[i] = (int)i;
  char tag[32];
  if (G > 1)
    snprintf(tag, sizeof tag, "K=%u x %u GPUs", K, G);
  else
    snprintf(tag, sizeof tag, "K=%u", K);
  char why[256];
  const int have = cuzk_cuda_device_count(why, sizeof why);
  if (G > (unsigned)(have > 0 ? have : 0)) {
    printf("%s: not run: %d GPU(s) here\n", tag, have);
    printf("summary: engine 2^%u %s: not run (%d GPU(s) here)\n", lg, tag, have);
    return 0;
  }
  engine_config c;
  engine_circuit circ;
  gx_config_on(&c, &circ, ords, G, k, K, resident);
  engine *e = NULL;
  cuzk_err err = {0};
  cuzk_status st = engine_new(&e, &c, &err);
  if (st != CUZK_OK) {
    printf("%s: engine_new: %s: %s\n", tag, cuzk_status_name(st), err.msg);
    printf("summary: engine 2^%u %s: not started (%s)\n", lg, tag, cuzk_status_name(st));
    return st == CUZK_NO_MEMORY ? 0 : 1;
  }
  engine_status es;
  unsigned slots = K;
  if (engine_status_get(e, &es, &err) == CUZK_OK) {
    slots = 0;
    for (size_t d = 0; d < es.ngpus; d++) {
      slots += es.gpus[d].slots;
      printf("%s: GPU %d %s: %u slots planned%s%s, %.1f of %.1f GiB free\n", tag,
             es.gpus[d].ordinal, es.gpus[d].name, es.gpus[d].slots,
             es.gpus[d].note[0] ? ": " : "", es.gpus[d].note, gx_gib(es.gpus[d].vram_free),
             gx_gib(es.gpus[d].vram_total));
    }
    engine_status_free(&es);
  }
  double wall = 0;
  /* Warm-up: 2 jobs per slot, so every slot has most likely proved once. */
  if ((st = gx_run_jobs(e, k, 2 * (size_t)K * G, ENGINE_PRI_NORMAL, &wall, &err)) != CUZK_OK) {
    printf("%s: warm-up: %s: %s\n", tag, cuzk_status_name(st), err.msg);
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
  printf("%s: resident on GPU 0: %.2f GiB (%s), budget used %.2f of %.2f GiB; "
         "%.1f of %.1f GiB free after the warm-up\n",
         tag, gx_gib(g.resident), resident ? "one copy for the GPU's slots" : "streamed bases",
         gx_gib(g.used), gx_gib(g.budget), gx_gib(g.vram_free), gx_gib(g.vram_total));

  cuzk_cuda_gcalls before, after;
  cuzk_cuda_global_calls(&before);
  st = gx_run_jobs(e, k, njobs, ENGINE_PRI_NORMAL, &wall, &err);
  cuzk_cuda_global_calls(&after);
  if (st != CUZK_OK) {
    printf("%s: batch: %s: %s\n", tag, cuzk_status_name(st), err.msg);
    engine_free(e);
    return 1;
  }
  *pps = njobs / wall;
  char calls[512];
  cuzk_cuda_gcalls_describe(calls, sizeof calls, &before, &after);
  if (engine_timeline(e, &spans, &nspans, &err) != CUZK_OK)
    nspans = 0, spans = NULL;
  gx_timeline a;
  gx_timeline_analyse(&a, spans, nspans);
  /* Busy: over the batch's wall time (first submit to last result), and
   * over the window from the first span to the last (without the first
   * proof's host-side start and the last one's verification); with
   * several GPUs, each GPU's own (the union of all would hide an idle one). */
  const double busy = wall > 0 ? a.busy_s / wall : 0;
  const double busy_win = a.t1 > a.t0 ? a.busy_s / (a.t1 - a.t0) : 0;
  char per[256] = "";
  for (unsigned d = 0; G > 1 && d < G; d++) {
    gx_timeline ad;
    gx_timeline_analyse_gpu(&ad, spans, nspans, (int)d);
    const size_t at = strlen(per);
    snprintf(per + at, sizeof per - at, "%sGPU %u %.1f%%", d ? ", " : "", d,
             wall > 0 ? 100 * ad.busy_s / wall : 0.0);
  }
  printf("%s: %zu jobs of 2^%u in %.3f s: %.3f proofs/s; GPU busy %.1f%% of the wall time, "
         "%.1f%% of the span window %.3f s (kernel stretches %.3f s)%s%s%s; %zu of %zu uploads "
         "overlapped another slot's kernels (%.1f ms); global CUDA calls: %s\n",
         tag, njobs, lg, wall, njobs / wall, 100 * busy, 100 * busy_win, a.t1 - a.t0, a.busy_s,
         G > 1 ? " (per GPU: " : "", per, G > 1 ? ")" : "", a.uploads_overlapped, a.uploads,
         a.overlap_s * 1e3, calls);
  /* The slots' timeline, one line per span (first 200), for plots. */
  for (size_t i = 0; i < nspans && i < 200; i++)
    printf("span %s gpu %d slot %u %s %.6f %.6f\n", tag, spans[i].ordinal, spans[i].slot,
           spans[i].upload ? "upload " : "compute", spans[i].t0 - a.t0, spans[i].t1 - a.t0);
  if (G == 1) {
    printf("summary: engine 2^%u K=%u (%u slots, %s): %.3f proofs/s, GPU busy %.1f%% (%.1f%% "
           "of the span window), upload/compute overlap %s (%zu/%zu), global calls %s, "
           "resident %.2f GiB, %.1f GiB free\n",
           lg, K, slots, c.keys_on_device ? "resident" : "streamed", njobs / wall, 100 * busy,
           100 * busy_win, a.uploads_overlapped ? "yes" : "no", a.uploads_overlapped, a.uploads,
           cuzk_cuda_gcalls_delta(&before, &after, false) ? calls : "none", gx_gib(g.resident),
           gx_gib(g.vram_free));
  } else {
    char scale[64] = "";
    if (base_pps > 0)
      snprintf(scale, sizeof scale, ", %.2fx the first GPU count's", *pps / base_pps);
    printf("summary: engine 2^%u %s (%u slots, %s): %.3f proofs/s%s, busy %s, upload/compute "
           "overlap %zu/%zu, global calls %s\n",
           lg, tag, slots, c.keys_on_device ? "resident" : "streamed", *pps, scale, per,
           a.uploads_overlapped, a.uploads,
           cuzk_cuda_gcalls_delta(&before, &after, false) ? calls : "none");
  }
  free(spans);
  engine_free(e);
  return 0;
}

/* The numbers of a comma-separated list (1..max each) into v, at most nmax. */
static size_t parse_list(const char *s, unsigned max, unsigned *v, size_t nmax) {
  size_t n = 0;
  for (const char *p = s; *p && n < nmax;) {
    const unsigned x = (unsigned)strtoul(p, (char **)&p, 10);
    if (x >= 1 && x <= max)
      v[n++] = x;
    while (*p == ',' || *p == ' ') p++;
    if (*p && (*p < '0' || *p > '9'))
      break;
  }
  return n;
}

int main(int argc, char **argv) {
  unsigned lg = 20;
  size_t njobs = 0;
  const char *ks = "1,2,3", *gs = "1";
  bool resident = true;
  int o;
  while ((o = getopt(argc, argv, "l:n:k:g:s")) != -1) {
    switch (o) {
    case 'l': lg = (unsigned)atoi(optarg); break;
    case 'n': njobs = (size_t)atol(optarg); break;
    case 'k': ks = optarg; break;
    case 'g': gs = optarg; break;
    case 's': resident = false; break;
    default:
      fprintf(stderr, "usage: %s [-l LG] [-n JOBS] [-k 1,2,3] [-g 1,2] [-s]\n", argv[0]);
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
  unsigned kv[16], gv[GPUS_MAX];
  const size_t nk = parse_list(ks, 16, kv, 16), ng = parse_list(gs, GPUS_MAX, gv, GPUS_MAX);
  gx_key k;
  cuzk_err err = {0};
  double t = cuzk_now_s();
  if (gx_key_make(&k, lg, &err) != CUZK_OK) {
    printf("keygen 2^%u: %s\n", lg, err.msg);
    return 1;
  }
  printf("key 2^%u made in %.1f s (%s)\n", lg, cuzk_now_s() - t, k.zkey);
  int rc = 0;
  for (size_t a = 0; a < nk; a++) {
    double base = 0;
    for (size_t b = 0; b < ng; b++) {
      const unsigned K = kv[a], G = gv[b];
      const size_t n = njobs ? njobs : (4 * K * G > 8 ? 4 * K * G : 8);
      double pps;
      rc |= run_k(&k, lg, K, G, n, resident, b ? base : 0, &pps);
      if (b == 0)
        base = pps;
    }
  }
  gx_key_free(&k);
  return rc;
}
