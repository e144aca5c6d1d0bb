/* cuzk bench bp: bellperson-convention partitions of a development circuit
 * (`cuzk circuit gen`'s shapes) proven against an INSECURE key made on the
 * spot (`cuzk setup`'s), all in memory: the circuit, the key and the
 * witnesses never touch the disk, so that a 2^27 partition fits a machine
 * of 64 GiB of disk.  Prints the time of each step of the set-up and, for
 * the proofs, the first one's time (the resident copies are made then)
 * and the median of each stage over the others, with (on a GPU) each
 * stage's floor counted from the witness; every proof is verified against
 * the key before it counts. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device.h"
#include "base/clock.h"
#include "base/par.h"
#include "cli/bench_bp.h"
#include "cli/cli.h"
#include "groth16/bp_prove.h"
#include "groth16/bp_setup.h"
#include "groth16/pce_gen.h"
#include "groth16/types.h"
#include "msm/msm_internal.h"
#include "msm/plan.h"

typedef unsigned long long ull;

static void usage(FILE *f) {
  fprintf(f,
          "usage: cuzk bench bp --shape SHAPE [--scale-lg K] [--reps R] [--seed S]\n"
          "                     [--threads T] [--device cpu|gpu|auto]\n"
          "                     [--engine [--jobs J] [--partitions P] [--slots N]\n"
          "                      [--critical C [--express]] [--witness-dir DIR]\n"
          "                      [--readahead B]] [--ntt-pass1-table]\n"
          "  Generates the development circuit SHAPE (%s; full\n"
          "  scale, or about 2^K constraints with --scale-lg K) and an INSECURE key for\n"
          "  it from seed S (default 1), then proves R + 1 partitions (default R = 3),\n"
          "  each with other inputs, the key resident on the GPU: the time of the first\n"
          "  and the median of each stage over the R others, and on a GPU each stage's\n"
          "  floor on the H200 (docs/PERF.md) and its ratio.  Every proof is verified.\n"
          "  --engine: instead, J jobs (default 3) of P partitions (default 10) through\n"
          "  the proving engine as the daemon runs them (the key in memory and resident\n"
          "  on the GPU, N slots per GPU (default 1), witnesses as files under DIR,\n"
          "  default $TMPDIR or /tmp): seconds per job, GPU busy fraction, peak device\n"
          "  memory and host RSS; with C > 0, C CRITICAL winning-32g jobs submitted\n"
          "  while the stream fills the queue, and their latency (--express: with an\n"
          "  express slot for them, [gpus] express_max_lg); B witness read-ahead\n"
          "  buffers (default 1, 0 = none: [gpus] witness_readahead).\n"
          "  --ntt-pass1-table: the NTTs' first-pass twiddle table on the GPU (32 bytes\n"
          "  per domain element per slot: [gpus] ntt_pass1_table).\n",
          pce_shape_names());
}

static void progress(void *ctx, const char *stage) {
  (void)ctx;
  printf("  setup: %s\n", stage);
  fflush(stdout);
}

/* ---- floors (docs/PERF.md §1: the H200's rates) ---- */

#define IMAD_RATE 1.656e13 /* 32-bit multiply-adds per second */
#define IMAD_G1_MADD 5616.0 /* a G1 XYZZ mixed addition */
#define IMAD_G2_MADD 14064.0
#define IMAD_FR_MUL 264.0
#define HBM_RATE 4.3e12 /* device bytes read plus written per second */
#define BUS_RATE 55e9   /* host to device from page-locked memory */

/* The scalars of one query: the others' folded bit lengths, the ones. */
typedef struct {
  uint32_t hist[256];
  uint64_t ones, zeros;
} query_stats;

enum { Q_A, Q_B, Q_L, NQ };

typedef struct {
  const uint8_t *vals; /* canonical 32-byte values, ONE first */
  const pce_file *pce;
  size_t nv;
  query_stats *per; /* NQ per worker */
} stats_ctx;

/* One canonical 32-byte value, classed as the GPU split does: 0 and 1 as
 * they are (-1 folds to 1 but is an other), the others by their folded
 * magnitude's bit length. */
static void stats_add(query_stats *q, const uint8_t *p) {
  limb_t v[4];
  const unsigned folded = msm_scalar_load(v, p);
  if (!folded && !(v[1] | v[2] | v[3]) && v[0] <= 1) {
    v[0] ? q->ones++ : q->zeros++;
    return;
  }
  for (int k = 3; k >= 0; k--)
    if (v[k]) {
      q->hist[64 * k + 64 - __builtin_clzll(v[k])]++;
      return;
    }
}

static void stats_run(void *arg, unsigned idx, unsigned n) {
  const stats_ctx *c = arg;
  query_stats *q = c->per + (size_t)NQ * idx;
  const size_t ninp = c->pce->num_inputs;
  size_t lo, hi;
  par_range(c->nv, idx, n, &lo, &hi);
  for (size_t i = lo; i < hi; i++) {
    const uint8_t *s = c->vals + 32 * i;
    const bool aux = i >= ninp;
    const uint64_t j = aux ? i - ninp : i;
    if (!aux || pce_density_get(&c->pce->a_aux, j))
      stats_add(&q[Q_A], s);
    if (pce_density_get(aux ? &c->pce->b_aux : &c->pce->b_input, j))
      stats_add(&q[Q_B], s);
    if (aux)
      stats_add(&q[Q_L], s);
  }
}

/* The stages' floors in seconds, in bench bp's column order (a,b,c; h;
 * MSM a, b G1, b G2, l + h), from one witness's values: a, b, c the bytes
 * the resident matrices move at least (row pointers, columns and 4-byte
 * value codes, the witness once, a, b, c written); h six NTTs of
 * (m / 2) lg m Fr products; each MSM its Pippenger's mixed additions at
 * the floor (msm_gpu_floor_adds; h's m - 1 scalars uniform).  *upload: the
 * witness over the bus.  False when out of memory. */
static bool stage_floors(double fl[6], double *upload, const uint8_t *vals, const pce_file *pce,
                         unsigned lg) {
  const size_t nv = (size_t)pce->num_inputs + pce->num_aux, m = (size_t)1 << lg;
  const unsigned nt = par_threads();
  query_stats *per = calloc((size_t)NQ * nt, sizeof *per), q[NQ];
  if (!per)
    return false;
  stats_ctx c = {vals, pce, nv, per};
  par_run(nt, stats_run, &c);
  memset(q, 0, sizeof q);
  for (unsigned t = 0; t < nt; t++)
    for (int k = 0; k < NQ; k++) {
      const query_stats *x = &per[(size_t)NQ * t + k];
      for (int b = 0; b < 256; b++) q[k].hist[b] += x->hist[b];
      q[k].ones += x->ones, q[k].zeros += x->zeros;
    }
  free(per);
  static uint32_t uni[256];
  memset(uni, 0, sizeof uni);
  uni[MSM_REC_BITS - 1] = (uint32_t)(m - 1);
  const double nnz = (double)pce->a.nnz + (double)pce->b.nnz + (double)pce->c.nnz;
  const double abc_bytes = 3.0 * 4 * ((double)pce->num_constraints + 1) + 8.0 * nnz +
                           32.0 * (double)nv + 3.0 * 32 * (double)m;
  fl[0] = abc_bytes / HBM_RATE;
  fl[1] = 6.0 * (double)(m / 2) * lg * IMAD_FR_MUL / IMAD_RATE;
  fl[2] = msm_gpu_floor_adds(q[Q_A].hist, q[Q_A].ones) * IMAD_G1_MADD / IMAD_RATE;
  const double b_adds = msm_gpu_floor_adds(q[Q_B].hist, q[Q_B].ones); /* one query, two groups */
  fl[3] = b_adds * IMAD_G1_MADD / IMAD_RATE;
  fl[4] = b_adds * IMAD_G2_MADD / IMAD_RATE;
  fl[5] = (msm_gpu_floor_adds(q[Q_L].hist, q[Q_L].ones) + msm_gpu_floor_adds(uni, 0)) *
          IMAD_G1_MADD / IMAD_RATE;
  *upload = 32.0 * (double)nv / BUS_RATE;
  static const char *names[NQ] = {"a", "b", "l"};
  for (int k = 0; k < NQ; k++) {
    uint64_t others = 0;
    for (int b = 0; b < 256; b++) others += q[k].hist[b];
    const double all = (double)(q[k].zeros + q[k].ones + others);
    printf("  %s query: %llu scalars, %.1f %% zero, %.1f %% one, %.1f %% other\n", names[k],
           (ull)all, 100.0 * q[k].zeros / all, 100.0 * q[k].ones / all, 100.0 * others / all);
  }
  return true;
}

int bench_bp(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  unsigned long reps = 3, threads = 0, scale = 0, seed = 1, jobs = 3, parts = 10, slots = 1,
                critical = 0, readahead = 1;
  const char *device = "auto", *shape = NULL, *wdir = getenv("TMPDIR");
  bool stream = false, express = false, pass1 = false;
  for (int i = 1; i < argc; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--shape") && v) {
      shape = v, i++;
    } else if (!strcmp(o, "--device") && v) {
      device = v, i++;
    } else if (!strcmp(o, "--reps") && v && !strcmp(v, "0")) {
      reps = 0, i++; /* --engine alone */
    } else if (!strcmp(o, "--engine")) {
      stream = true;
    } else if (!strcmp(o, "--express")) {
      express = true;
    } else if (!strcmp(o, "--ntt-pass1-table")) {
      pass1 = true;
    } else if (!strcmp(o, "--witness-dir") && v) {
      wdir = v, i++;
    } else if (!strcmp(o, "--jobs") || !strcmp(o, "--partitions") || !strcmp(o, "--slots") ||
               !strcmp(o, "--critical") || !strcmp(o, "--readahead")) {
      unsigned long *dst = !strcmp(o, "--jobs")         ? &jobs
                           : !strcmp(o, "--partitions") ? &parts
                           : !strcmp(o, "--slots")      ? &slots
                           : !strcmp(o, "--readahead")  ? &readahead
                                                        : &critical;
      if (!cli_parse_uint(o, v, dst))
        return CLI_USAGE;
      i++;
    } else if (!strcmp(o, "--reps") || !strcmp(o, "--threads") || !strcmp(o, "--scale-lg") ||
               !strcmp(o, "--seed")) {
      unsigned long *dst = !strcmp(o, "--reps")      ? &reps
                           : !strcmp(o, "--threads") ? &threads
                           : !strcmp(o, "--seed")    ? &seed
                                                     : &scale;
      if (!cli_parse_uint(o, v, dst))
        return CLI_USAGE;
      i++;
    } else {
      fprintf(stderr, "cuzk bench bp: unknown option or missing value: %s\n\n", o);
      usage(stderr);
      return CLI_USAGE;
    }
  }
  const pce_shape *s = shape ? pce_shape_find(shape) : NULL;
  const char *bad = !shape ? "--shape is required"
                    : !s ? "unknown shape"
                    : (reps < 1 && !stream) || reps > 1000 ? "--reps: 1 to 1000 (0 with --engine)"
                    : jobs < 1 || jobs > 10000 ? "--jobs: 1 to 10000"
                    : parts < 1 || parts > 1024 ? "--partitions: 1 to 1024"
                    : slots < 1 || slots > 16 ? "--slots: 1 to 16"
                    : critical > 100 ? "--critical: 0 to 100"
                    : readahead > 16 ? "--readahead: 0 to 16"
                    : strcmp(device, "cpu") && strcmp(device, "gpu") && strcmp(device, "auto")
                        ? "--device: cpu, gpu or auto"
                        : NULL;
  if (bad) {
    fprintf(stderr, "cuzk bench bp: %s\n\n", bad);
    usage(stderr);
    return CLI_USAGE;
  }
  if (threads)
    par_set_threads((unsigned)threads);
  cuzk_err err = {0};
  pce_gen_plan plan;
  pce_file pce;
  bp_params pp;
  memset(&pce, 0, sizeof pce);
  memset(&pp, 0, sizeof pp);
  bls12_381_fr *w = NULL;
  uint8_t *values = NULL;
  backend *be = NULL;
  double *col = NULL;
  int rc = CLI_USAGE;
  if (pce_gen_plan_make(&plan, s, (unsigned)scale, &err) != CUZK_OK)
    goto fail;
  double t = cuzk_now_s();
  if (pce_gen_circuit(&pce, &plan, &err) != CUZK_OK)
    goto fail;
  const size_t nv = (size_t)pce.num_inputs + pce.num_aux;
  const unsigned lg = pce_domain_lg(&pce);
  printf("bench bp %s: %u constraints (%u inputs with ONE, %u aux), domain 2^%u, nnz %llu; "
         "generated in %.2f s\n",
         s->name, pce.num_constraints, pce.num_inputs, pce.num_aux, lg, (ull)pce.total_nnz,
         cuzk_now_s() - t);
  fflush(stdout);
  /* The backend first: the key's points are multiplied on it (a GPU's
   * fixed_base), the partitions proven on it. */
  backend_device_opts bo = {.threads = (unsigned)threads, .ntt_pass1_table = pass1};
  if (!(be = cli_backend(device, &bo, lg, &err)))
    goto fail;
  t = cuzk_now_s();
  const bp_setup_opts so = {.threads = (unsigned)threads, .progress = progress, .backend = be};
  if (bp_setup(&pp, &pce, seed, &so, &err) != CUZK_OK)
    goto fail;
  const double setup_s = cuzk_now_s() - t;
  printf("INSECURE key (seed %lu): a %zu, b %zu, l %zu, h %zu points; made in %.2f s (%s)\n",
         seed, pp.n_a, pp.n_b_g1, pp.n_l, pp.n_h, setup_s,
         be->ops->fixed_base ? "the points on the GPU" : "CPU");
  if (!reps) { /* --engine alone: its slots make their own backends */
    backend_free(be);
    be = NULL;
    goto stream;
  }
  /* The witness where the backend moves it fastest (page-locked for a
   * GPU), as the engine stages each partition's. */
  uint8_t *stage = be->ops->host_staging ? be->ops->host_staging(be, 32 * nv, &err) : NULL;
  if (be->ops->host_staging && !stage)
    goto fail;
  w = malloc(nv * sizeof *w);
  values = stage ? NULL : malloc(32 * nv);
  col = calloc(8 * reps, sizeof *col);
  if (!w || !(stage || values) || !col) {
    cuzk_err_set(&err, CUZK_NO_MEMORY, "%zu witness values", nv);
    goto fail;
  }
  uint8_t *vals = stage ? stage : values;
  if (be->ops->hold_bases && be->ops->hold_bases(be, true, &err) != CUZK_OK)
    goto fail;
  char desc[1024] = "";
  double first = 0;
  for (unsigned long r = 0; r <= reps; r++) {
    pce_gen_witness(&plan, seed, (uint32_t)r, w);
    groth16_values_from_mont(vals, w, nv, 0);
    groth16_proof proof;
    groth16_timings tm;
    if (bp_prove_values(&proof, &pp, &pce, vals, "the witness", be, NULL, NULL, &tm, &err) !=
        CUZK_OK)
      goto fail;
    if (r == 0) {
      first = tm.total_s;
      if (be->ops->describe)
        be->ops->describe(be, desc, sizeof desc);
      continue;
    }
    double *row = col + (r - 1);
    const double v[8] = {tm.total_s,        tm.ab_s,           tm.quotient_s,     tm.msm_each_s[0],
                         tm.msm_each_s[1], tm.msm_each_s[2], tm.msm_each_s[3], tm.verify_s};
    for (int k = 0; k < 8; k++) row[k * reps] = v[k];
  }
  double m[8];
  for (int k = 0; k < 8; k++) m[k] = cli_median(col + k * reps, reps);
  printf("%s backend: %s\n", be->ops->name, desc[0] ? desc : "-");
  printf("first partition %.3f s (resident copies made); median of %lu: %.3f s per partition\n",
         first, reps, m[0]);
  printf("  a,b,c %.3f s | h (6 NTTs) %.3f s | MSM a %.3f s | b (G1) %.3f s | b (G2) %.3f s | "
         "l+h %.3f s | verify %.3f s\n",
         m[1], m[2], m[3], m[4], m[5], m[6], m[7]);
  printf("partitions/hour: %.0f (verified)\n", 3600.0 / m[0]);
  /* one line for bench/gpu.sh's table */
  printf("summary: bench bp %s 2^%u partition: %.3f s (a,b,c %.3f, h %.3f, MSMs a %.3f b %.3f "
         "b2 %.3f l+h %.3f, verify %.3f; key made in %.1f s)\n",
         s->name, lg, m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], setup_s);
  /* the floors are the H200's (docs/PERF.md): for a GPU backend only */
  if (strcmp(be->ops->name, "cpu")) {
    double fl[6], up, fsum = 0;
    if (!stage_floors(fl, &up, vals, &pce, lg)) {
      cuzk_err_set(&err, CUZK_NO_MEMORY, "the floors' counts");
      goto fail;
    }
    for (int k = 0; k < 6; k++) fsum += fl[k];
    printf("floors (docs/PERF.md §1.4; last witness): a,b,c %.3f s | h %.3f s | MSM a %.3f s | "
           "b (G1) %.3f s | b (G2) %.3f s | l+h %.3f s; their sum %.3f s, with the witness's "
           "upload %.3f s: %.3f s\n",
           fl[0], fl[1], fl[2], fl[3], fl[4], fl[5], fsum, up, fsum + up);
    printf("ratio to floor: a,b,c %.2fx | h %.2fx | MSM a %.2fx | b (G1) %.2fx | b (G2) %.2fx | "
           "l+h %.2fx | partition %.2fx\n",
           m[1] / fl[0], m[2] / fl[1], m[3] / fl[2], m[4] / fl[3], m[5] / fl[4], m[6] / fl[5],
           m[0] / (fsum + up));
    printf("summary: bench bp %s 2^%u floors: %.3f s with the upload (%.2fx; a,b,c %.3f, "
           "h %.3f, MSMs a %.3f b %.3f b2 %.3f l+h %.3f, upload %.3f)\n",
           s->name, lg, fsum + up, m[0] / (fsum + up), fl[0], fl[1], fl[2], fl[3], fl[4], fl[5],
           up);
  }
  /* The engine's slots make their own backends and resident copies. */
  backend_free(be);
  be = NULL;
stream:
  if (stream) {
    const bench_bp_stream bs = {
        .device = !strcmp(device, "cpu")   ? ENGINE_DEVICE_CPU
                  : !strcmp(device, "gpu") ? ENGINE_DEVICE_GPU
                                           : ENGINE_DEVICE_AUTO,
        .slots = (unsigned)slots,
        .threads = (unsigned)threads,
        .jobs = jobs,
        .partitions = parts,
        .critical = (unsigned)critical,
        .express = express,
        .readahead = (unsigned)readahead,
        .ntt_pass1_table = pass1,
        .seed = seed,
        .witness_dir = wdir && *wdir ? wdir : "/tmp"};
    if (bench_bp_engine(&bs, &pp, &pce, &plan, &err) != CUZK_OK)
      goto fail;
  }
  rc = CLI_OK;
  goto done;
fail:
  fprintf(stderr, "cuzk bench bp: %s: %s\n", cuzk_status_name(err.status), err.msg);
  rc = err.status == CUZK_UNSATISFIED ? CLI_NO : CLI_USAGE;
done:
  backend_free(be);
  free(col), free(values), free(w);
  bp_params_free(&pp);
  pce_close(&pce);
  return rc;
}
