/* cuzk bench bp --engine: a stream of multi-partition jobs of a generated
 * bellperson circuit through the proving engine (engine/engine.h), as the
 * daemon runs them: the key registered in memory, keys_on_device, K slots
 * per GPU, witnesses named as files in a witness directory (each read when
 * its partition starts), every partition verified by the engine.
 *
 * Reported: the warm-up (the first partition on each slot makes the
 * resident copies), then for the stream the wall time, seconds per job
 * (wall / jobs) and in the steady state (between the first and the last
 * job's end, over jobs - 1), each job's time, the GPU's busy fraction (the
 * union of the slots' kernel stretches over the stream's wall time), the
 * peak device memory in use and the peak host RSS while the stream ran
 * (sampled every 100 ms), and with --critical the latency of CRITICAL
 * jobs of a second circuit (winning-32g, full scale) submitted while the
 * stream fills the queue. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/bench_bp.h"
#include "groth16/bp_setup.h"

typedef unsigned long long ull;

/* A CRITICAL job goes in this long after the stream's submit (and after
 * the previous CRITICAL job): with partitions of a second or more, the
 * slots are then inside the stream's partitions, which is the latency
 * the benchmark measures. */
#define CRITICAL_AFTER_US 3000000

/* Peak device memory in use (total less free, GPU 0) and host RSS. */
typedef struct {
  engine *e;
  volatile int stop;
  uint64_t vram_peak, vram_total, rss_peak;
} sampler;

static uint64_t rss_now(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0, res = 0;
  if (f) {
    if (fscanf(f, "%llu %llu", &pages, &res) != 2)
      res = 0;
    fclose(f);
  }
  return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void sample(sampler *s) {
  engine_status st;
  cuzk_err err = {0};
  if (engine_status_get(s->e, &st, &err) == CUZK_OK) {
    for (size_t g = 0; g < st.ngpus; g++) {
      uint64_t used = st.gpus[g].vram_total - st.gpus[g].vram_free;
      if (st.gpus[g].vram_total && used > s->vram_peak)
        s->vram_peak = used, s->vram_total = st.gpus[g].vram_total;
    }
    engine_status_free(&st);
  }
  uint64_t r = rss_now();
  if (r > s->rss_peak)
    s->rss_peak = r;
}

static void *sampler_main(void *arg) {
  sampler *s = arg;
  while (!s->stop) {
    sample(s);
    usleep(100000);
  }
  return NULL;
}

/* Over [t0, t1], for the spans of GPU `ordinal` (-1: every GPU's): the
 * seconds of upload spans (summed), the seconds in which any slot ran
 * kernels (the GPU's busy time), and those in which at least two did at
 * once (the sharing that makes a slot's stages longer than a partition's
 * alone). */
typedef struct {
  double t;
  int d;
} edge;
static int edge_cmp(const void *a, const void *b) {
  const double x = ((const edge *)a)->t, y = ((const edge *)b)->t;
  return x < y ? -1 : x > y;
}
static void span_stats(const engine_span *sp, size_t n, int ordinal, double t0, double t1,
                       double *upload, double *busy, double *shared) {
  *upload = *busy = *shared = 0;
  edge *ev = malloc((2 * n + 1) * sizeof *ev);
  if (!ev)
    return;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const double a = sp[i].t0 > t0 ? sp[i].t0 : t0, b = sp[i].t1 < t1 ? sp[i].t1 : t1;
    if (b <= a || (ordinal >= 0 && sp[i].ordinal != ordinal))
      continue;
    if (sp[i].upload) {
      *upload += b - a;
    } else {
      ev[m++] = (edge){a, 1};
      ev[m++] = (edge){b, -1};
    }
  }
  qsort(ev, m, sizeof *ev, edge_cmp);
  int depth = 0;
  for (size_t i = 0; i < m; i++) {
    const double dt = i ? ev[i].t - ev[i - 1].t : 0;
    *busy += depth >= 1 ? dt : 0;
    *shared += depth >= 2 ? dt : 0;
    depth += ev[i].d;
  }
  free(ev);
}

/* Writes witness `part` of plan p (seed) as dir/name. */
static cuzk_status write_witness(const pce_gen_plan *p, uint64_t seed, uint32_t part,
                                 const char *dir, const char *name, size_t nv, cuzk_err *err) {
  bls12_381_fr *w = malloc(nv * sizeof *w);
  if (!w)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for a witness of %zu values", nv);
  pce_gen_witness(p, seed, part, w);
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  cuzk_status st = pce_write_wtns(path, w, nv, err);
  free(w);
  return st;
}

/* Submits a job of n partitions naming the witness files names[0..n). */
static cuzk_status submit(engine *e, const char *circuit, const char *const *names, size_t n,
                          engine_priority pri, engine_ticket *t, cuzk_err *err) {
  engine_request rq = {.circuit_id = circuit, .priority = pri, .nparts = n, .witness_file = names};
  return engine_submit(e, &rq, t, err);
}

/* Awaits job id; *took: its wall time, submit to end (the engine's); sum
 * (when not NULL) gets its partitions' stage times added. */
static cuzk_status await_done(engine *e, const char *id, double *took, engine_timings *sum,
                              cuzk_err *err) {
  engine_result r;
  cuzk_status st = engine_await(e, id, 0, &r, err);
  *took = (double)r.timings.total_ms / 1000.0;
  if (sum)
    engine_timings_add(sum, &r.timings);
  if (st == CUZK_OK && r.state != ENGINE_JOB_DONE)
    st = cuzk_err_set(err, r.job_status ? r.job_status : CUZK_INTERNAL, "job %s: %s", id,
                      r.error);
  engine_result_free(&r);
  return st;
}

cuzk_status bench_bp_engine(const bench_bp_stream *o, const bp_params *pp, const pce_file *pce,
                            const pce_gen_plan *plan, cuzk_err *err) {
  const size_t nv = (size_t)pce->num_inputs + pce->num_aux;
  const unsigned nw = o->partitions < 2 ? 1 : 2; /* distinct witnesses, reused in turn */
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/cuzk-bench-bp-XXXXXX", o->witness_dir);
  if (!mkdtemp(dir))
    return cuzk_err_set(err, CUZK_IO, "cannot make a directory under %s", o->witness_dir);
  char names[2][32] = {"w0.wtns", "w1.wtns"}, wname[32] = "critical.wtns";
  pce_file wpce;
  bp_params wpp;
  pce_gen_plan wplan;
  memset(&wpce, 0, sizeof wpce);
  memset(&wpp, 0, sizeof wpp);
  engine *e = NULL;
  const char **pn = NULL;
  engine_ticket *tk = NULL;
  double *done = NULL;
  int gpu_ord[16]; /* the engine's GPUs */
  size_t ngpu = 0;
  cuzk_status st = CUZK_OK;
  double t = cuzk_now_s();
  for (unsigned i = 0; i < nw && st == CUZK_OK; i++)
    st = write_witness(plan, o->seed, i, dir, names[i], nv, err);
  if (st != CUZK_OK)
    goto out;
  printf("stream: %u witness files (%.1f GB each) written to %s in %.1f s\n", nw,
         (32.0 * (double)nv + 76) / 1e9, dir, cuzk_now_s() - t);

  /* The CRITICAL circuit: winning-32g at full scale, in memory too. */
  if (o->critical) {
    const bp_setup_opts so = {.threads = o->threads};
    if ((st = pce_gen_plan_make(&wplan, pce_shape_find("winning-32g"), 0, err)) != CUZK_OK ||
        (st = pce_gen_circuit(&wpce, &wplan, err)) != CUZK_OK ||
        (st = bp_setup(&wpp, &wpce, o->seed + 1, &so, err)) != CUZK_OK ||
        (st = write_witness(&wplan, o->seed, 0, dir, wname, (size_t)wpce.num_inputs + wpce.num_aux,
                            err)) != CUZK_OK)
      goto out_w;
  }

  engine_config c;
  engine_config_defaults(&c);
  c.device = o->device;
  c.gpu_workers_per_device = o->slots;
  if (o->express && o->critical)
    c.express_max_lg = pce_domain_lg(&wpce); /* the critical circuit's, not the stream's */
  c.threads = o->threads;
  c.keys_on_device = true;
  c.record_timeline = true;
  c.witness_dir = dir;
  c.witness_readahead = o->readahead;
  c.ntt_pass1_table = o->ntt_pass1_table;
  engine_circuit circ[2] = {
      {.id = "stream", .path = "(in memory)", .pce = "(in memory)", .bp_mem = pp, .pce_mem = pce},
      {.id = "critical", .path = "(in memory)", .pce = "(in memory)", .bp_mem = &wpp,
       .pce_mem = &wpce}};
  c.circuits = circ;
  c.ncircuits = o->critical ? 2 : 1;
  t = cuzk_now_s();
  if ((st = engine_new(&e, &c, err)) != CUZK_OK)
    goto out_w;
  engine_status es;
  if (engine_status_get(e, &es, err) == CUZK_OK) {
    for (size_t g = 0; g < es.ngpus && ngpu < sizeof gpu_ord / sizeof *gpu_ord; g++)
      gpu_ord[ngpu++] = es.gpus[g].ordinal;
    for (size_t g = 0; g < es.ngpus; g++)
      printf("stream: GPU %d %s: %u slots%s%s%s, %.1f of %.1f GiB free after planning (%.1f s)\n",
             es.gpus[g].ordinal, es.gpus[g].name, es.gpus[g].slots,
             es.gpus[g].express ? " and an express slot" : "", es.gpus[g].note[0] ? ": " : "",
             es.gpus[g].note, es.gpus[g].vram_free / 1073741824.0,
             es.gpus[g].vram_total / 1073741824.0, cuzk_now_s() - t);
    if (!es.ngpus)
      printf("stream: %u CPU workers\n", es.cpu_workers);
    if (o->readahead)
      printf("stream: %u of %u witness read-ahead buffers made\n", es.readahead_buffers,
             o->readahead);
    engine_status_free(&es);
  }
  /* names for a job's partitions and for the warm-up's one per slot */
  const size_t npn = o->partitions > o->slots ? o->partitions : o->slots;
  pn = malloc(npn * sizeof *pn);
  tk = calloc(o->jobs, sizeof *tk);
  done = calloc(o->jobs, sizeof *done);
  if (!pn || !tk || !done) {
    st = cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
    goto out_e;
  }
  for (size_t i = 0; i < npn; i++) pn[i] = names[i % nw];

  /* Warm-up: one partition per slot, so each has its resident copies (and
   * the critical circuit's, when asked). */
  t = cuzk_now_s();
  engine_ticket wt;
  double td; /* unused: the warm-up's time is the wall clock's */
  if ((st = submit(e, "stream", pn, o->slots, ENGINE_PRI_NORMAL, &wt, err)) != CUZK_OK ||
      (st = await_done(e, wt.job_id, &td, NULL, err)) != CUZK_OK)
    goto out_e;
  if (o->critical) {
    const char *cn[1] = {wname};
    if ((st = submit(e, "critical", cn, 1, ENGINE_PRI_CRITICAL, &wt, err)) != CUZK_OK ||
        (st = await_done(e, wt.job_id, &td, NULL, err)) != CUZK_OK)
      goto out_e;
  }
  printf("stream: warm-up (%u partition%s, resident copies made) %.1f s\n", o->slots,
         o->slots == 1 ? "" : "s", cuzk_now_s() - t);
  engine_span *sp = NULL;
  size_t nsp = 0;
  engine_timeline(e, &sp, &nsp, err); /* drop the warm-up's */
  free(sp);

  uint64_t ra0 = 0, ra1 = 0; /* partitions begun from a read-ahead buffer, before and after */
  if (engine_status_get(e, &es, err) == CUZK_OK) {
    ra0 = es.readahead_used;
    engine_status_free(&es);
  }
  sampler smp = {.e = e};
  pthread_t th;
  bool sampling = pthread_create(&th, NULL, sampler_main, &smp) == 0;
  engine_timings stages = {0}; /* the stream's partitions, summed */
  const double t0 = cuzk_now_s();
  for (size_t j = 0; j < o->jobs && st == CUZK_OK; j++)
    st = submit(e, "stream", pn, o->partitions, ENGINE_PRI_NORMAL, &tk[j], err);
  /* CRITICAL jobs while the queue is full: one after each of the first
   * jobs has had time to start, each awaited before the next. */
  double *lat = o->critical ? calloc(o->critical, sizeof *lat) : NULL;
  for (unsigned k = 0; st == CUZK_OK && k < o->critical && lat; k++) {
    usleep(CRITICAL_AFTER_US);
    const char *cn[1] = {wname};
    engine_ticket ct;
    if ((st = submit(e, "critical", cn, 1, ENGINE_PRI_CRITICAL, &ct, err)) == CUZK_OK)
      st = await_done(e, ct.job_id, &lat[k], NULL, err);
  }
  /* the jobs were submitted at t0 (within microseconds): each ends at t0 + its time */
  for (size_t j = 0; j < o->jobs && st == CUZK_OK; j++)
    if ((st = await_done(e, tk[j].job_id, &done[j], &stages, err)) == CUZK_OK)
      done[j] += t0;
  const double t1 = cuzk_now_s();
  smp.stop = 1;
  if (sampling)
    pthread_join(th, NULL);
  sample(&smp);
  if (st != CUZK_OK)
    goto out_e;
  /* The stream ends with its last job (the critical jobs' waits aside). */
  double first = done[0], last = done[0];
  for (size_t j = 1; j < o->jobs; j++) {
    first = done[j] < first ? done[j] : first;
    last = done[j] > last ? done[j] : last;
  }
  (void)t1;
  engine_timeline(e, &sp, &nsp, err);
  const double wall = last - t0;
  double upload_s, busy, shared_s;
  const bool one_gpu = ngpu <= 1;
  /* one GPU's busy time; with several, the busiest's (each is printed) */
  char per[256] = "";
  if (one_gpu) {
    span_stats(sp, nsp, -1, t0, last, &upload_s, &busy, &shared_s);
  } else {
    double u_all = 0, s_all = 0;
    busy = 0;
    for (size_t g = 0; g < ngpu; g++) {
      double u, b, sh;
      span_stats(sp, nsp, gpu_ord[g], t0, last, &u, &b, &sh);
      u_all += u, s_all += sh, busy = b > busy ? b : busy;
      const size_t at = strlen(per);
      snprintf(per + at, sizeof per - at, "%sGPU %d %.1f%%", g ? ", " : "", gpu_ord[g],
               last > t0 ? 100.0 * b / (last - t0) : 0.0);
    }
    upload_s = u_all, shared_s = s_all;
  }
  free(sp);
  printf("stream: %zu jobs of %zu partitions in %.2f s: %.2f s per job (%.1f jobs/hour)\n",
         o->jobs, o->partitions, wall, wall / (double)o->jobs, 3600.0 * (double)o->jobs / wall);
  if (o->jobs > 1)
    printf("stream: steady state %.2f s per job (between the first and the last job's end)\n",
           (last - first) / (double)(o->jobs - 1));
  printf("stream: job ends at");
  for (size_t j = 0; j < o->jobs; j++) printf(" %.2f", done[j] - t0);
  printf(" s\n");
  if (!one_gpu)
    printf("stream: %zu GPUs, busy %s of the wall time\n", ngpu, per);
  printf("stream: GPU busy %.1f%% of the wall time%s; peak device memory in use %.1f of %.1f GiB%s; "
         "peak host RSS %.1f GiB\n",
         wall > 0 ? 100.0 * busy / wall : 0.0, one_gpu ? "" : " (the busiest GPU)",
         smp.vram_peak / 1073741824.0, smp.vram_total / 1073741824.0,
         one_gpu ? "" : " (the fullest GPU)", smp.rss_peak / 1073741824.0);
  /* Where a slot's time per partition goes (the engine's stages): what
   * the GPU waits for while the slots prepare is the busy fraction's gap. */
  const double np = (double)(o->jobs * o->partitions);
  printf("stream: per partition (mean of %.0f): waiting %.3f s, key %.3f s, preparing (witness "
         "read, a, b, c) %.3f s, upload %.3f s, proving (h, the MSMs) %.3f s, finishing (verify) "
         "%.3f s; two or more slots' kernels at once %.1f%% of the wall time\n",
         np, stages.queue_wait_ms / 1e3 / np, stages.key_load_ms / 1e3 / np,
         stages.prepare_ms / 1e3 / np, upload_s / np, stages.gpu_ms / 1e3 / np,
         stages.finalize_ms / 1e3 / np, wall > 0 ? 100.0 * shared_s / wall : 0.0);
  if (engine_status_get(e, &es, err) == CUZK_OK) {
    ra1 = es.readahead_used;
    engine_status_free(&es);
  }
  printf("stream: %llu of %.0f partitions began with their witness read ahead\n",
         (unsigned long long)(ra1 - ra0), np + o->critical);
  for (unsigned k = 0; lat && k < o->critical; k++)
    printf("stream: CRITICAL winning-32g job %u: %.3f s from submit to verified proof\n", k,
           lat[k]);
  char gpus[32] = "";
  if (!one_gpu)
    snprintf(gpus, sizeof gpus, " on %zu GPUs", ngpu);
  printf("summary: bench bp stream 2^%u, %u slot%s%s%s: %.2f s per %zu-partition job, GPU busy "
         "%.1f%%%s, peak VRAM %.1f GiB",
         pce_domain_lg(pce), o->slots, o->slots == 1 ? "" : "s", o->express ? " + express" : "",
         gpus, wall / (double)o->jobs, o->partitions, wall > 0 ? 100.0 * busy / wall : 0.0,
         one_gpu ? "" : " (the busiest)", smp.vram_peak / 1073741824.0);
  for (unsigned k = 0; lat && k < o->critical; k++) printf("%s%.3f", k ? ", " : "; CRITICAL ", lat[k]);
  printf("%s\n", o->critical ? " s" : "");
  free(lat);
out_e:
  engine_free(e);
out_w:
  free(pn), free(tk), free(done);
  bp_params_free(&wpp);
  pce_close(&wpce);
out:
  for (unsigned i = 0; i < nw; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, wname);
  unlink(path);
  rmdir(dir);
  return st;
}
