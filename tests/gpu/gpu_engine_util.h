/* What tests/gpu/test_gpu_engine.c and bench_gpu_engine.c share: a
 * synthetic key (groth16/keygen.h: INSECURE, for tests) in a temporary
 * directory, an engine on GPU slots, a batch of jobs, and the analysis of
 * the slots' timeline (engine_timeline): GPU busy fraction and whether one
 * slot's uploads ran while another slot's kernels did. */
#ifndef CUZK_TESTS_GPU_ENGINE_UTIL_H
#define CUZK_TESTS_GPU_ENGINE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cuda/cuda.h"
#include "cuda/gcall.h"
#include "engine/engine.h"
#include "groth16/keygen.h"

typedef struct {
  char dir[256], zkey[300], wtns[300];
  uint8_t *wit; /* the witness file's bytes */
  size_t wit_len;
} gx_key;

/* Writes chain key 2^lg and its witness under a fresh temporary directory. */
static inline cuzk_status gx_key_make(gx_key *k, unsigned lg, cuzk_err *err) {
  memset(k, 0, sizeof *k);
  snprintf(k->dir, sizeof k->dir, "/tmp/cuzk-gpu-engine-XXXXXX");
  if (!mkdtemp(k->dir))
    return cuzk_err_set(err, CUZK_IO, "mkdtemp %s failed", k->dir);
  snprintf(k->zkey, sizeof k->zkey, "%s/chain.zkey", k->dir);
  snprintf(k->wtns, sizeof k->wtns, "%s/chain.wtns", k->dir);
  keygen_chain c;
  CUZK_TRY(keygen_chain_from_seed(&c, KEYGEN_CHAIN_STEPS(lg), 0x5eedu + lg, err));
  keygen_opts o = {0};
  CUZK_TRY(keygen_chain_write(&c, k->zkey, k->wtns, &o, NULL, err));
  FILE *f = fopen(k->wtns, "rb");
  if (!f)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot open", k->wtns);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  k->wit = malloc(len > 0 ? (size_t)len : 1);
  k->wit_len = len > 0 ? (size_t)len : 0;
  size_t got = k->wit ? fread(k->wit, 1, k->wit_len, f) : 0;
  fclose(f);
  if (!k->wit || got != k->wit_len)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot read", k->wtns);
  return CUZK_OK;
}

static inline void gx_key_free(gx_key *k) {
  unlink(k->zkey), unlink(k->wtns), rmdir(k->dir);
  free(k->wit);
  memset(k, 0, sizeof *k);
}

/* An engine on the GPUs ordinals[0..n) (n = 0: every usable GPU), K slots
 * each, timeline on. */
static inline void gx_config_on(engine_config *c, engine_circuit *circ, const int *ordinals,
                                size_t n, const gx_key *k, unsigned K, bool resident) {
  engine_config_defaults(c);
  *circ = (engine_circuit){.id = "chain", .path = k->zkey};
  c->circuits = circ;
  c->ncircuits = 1;
  c->device = ENGINE_DEVICE_GPU;
  c->gpus = n ? ordinals : NULL;
  c->ngpus = n;
  c->gpu_workers_per_device = K;
  c->keys_on_device = resident;
  c->record_timeline = true;
}

/* The same on GPU *ordinal only (NULL: all). */
static inline void gx_config(engine_config *c, engine_circuit *circ, const int *ordinal,
                             const gx_key *k, unsigned K, bool resident) {
  gx_config_on(c, circ, ordinal, ordinal ? 1 : 0, k, K, resident);
}

/* Submits n jobs of the key's witness at priority pri, then awaits them
 * all: CUZK_OK when every one is DONE (the engine verified each proof),
 * else the first failure, described in err.  *wall: first submit to last
 * completion, seconds. */
static inline cuzk_status gx_run_jobs(engine *e, const gx_key *k, size_t n, engine_priority pri,
                                      double *wall, cuzk_err *err) {
  *wall = 0;
  char(*ids)[ENGINE_ID_MAX] = calloc(n ? n : 1, sizeof *ids);
  if (!ids)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  const uint8_t *w = k->wit;
  const size_t wl = k->wit_len;
  double t0 = cuzk_now_s();
  cuzk_status st = CUZK_OK;
  size_t submitted = 0;
  for (; submitted < n && st == CUZK_OK; submitted++) {
    engine_request rq = {.circuit_id = "chain", .priority = pri, .nparts = 1,
                         .witness = &w, .witness_len = &wl};
    engine_ticket t;
    if ((st = engine_submit(e, &rq, &t, err)) == CUZK_OK)
      memcpy(ids[submitted], t.job_id, ENGINE_ID_MAX);
  }
  if (st != CUZK_OK)
    submitted--;
  for (size_t i = 0; i < submitted; i++) {
    engine_result r;
    cuzk_err e2 = {0};
    cuzk_status s2 = engine_await(e, ids[i], 0, &r, &e2);
    if (s2 == CUZK_OK && r.state != ENGINE_JOB_DONE)
      s2 = cuzk_err_set(&e2, r.job_status ? r.job_status : CUZK_INTERNAL, "job %s: %s: %s",
                        ids[i], engine_job_state_name(r.state), r.error);
    if (s2 == CUZK_OK && r.proof_len != 192)
      s2 = cuzk_err_set(&e2, CUZK_INTERNAL, "job %s: %zu proof bytes", ids[i], r.proof_len);
    if (s2 == CUZK_OK)
      engine_result_free(&r);
    if (s2 != CUZK_OK && st == CUZK_OK) {
      st = s2;
      if (err)
        *err = e2;
    }
  }
  *wall = cuzk_now_s() - t0;
  free(ids);
  return st;
}

/* GPU 0's row of the engine's status (the first GPU's; zeros when none). */
static inline cuzk_status gx_gpu0(engine *e, engine_gpu_status *g, cuzk_err *err) {
  memset(g, 0, sizeof *g);
  engine_status s;
  CUZK_TRY(engine_status_get(e, &s, err));
  if (s.ngpus)
    *g = s.gpus[0];
  engine_status_free(&s);
  return CUZK_OK;
}

static inline double gx_gib(uint64_t bytes) { return (double)bytes / 1073741824.0; }

typedef struct {
  size_t spans, uploads, computes;
  unsigned slots_seen;  /* slots with at least one span */
  double busy_s;        /* the union of the compute spans */
  double t0, t1;        /* first span start, last span end */
  size_t uploads_overlapped; /* uploads that ran during another slot's compute span */
  double overlap_s;     /* time uploads spent inside other slots' compute spans (summed) */
} gx_timeline;

/* Spans sorted by t0 (engine_timeline's order), those of GPU `ordinal`
 * only (-1: every GPU's, their kernel stretches in one union). */
static inline void gx_timeline_analyse_gpu(gx_timeline *a, const engine_span *s, size_t n,
                                           int ordinal) {
  memset(a, 0, sizeof *a);
  uint64_t seen = 0;
  double cur0 = 0, cur1 = -1; /* the union's current interval */
  for (size_t i = 0; i < n; i++) {
    if (ordinal >= 0 && s[i].ordinal != ordinal)
      continue;
    a->spans++;
    if (a->spans == 1 || s[i].t0 < a->t0)
      a->t0 = s[i].t0;
    if (s[i].t1 > a->t1)
      a->t1 = s[i].t1;
    seen |= (uint64_t)1 << (s[i].slot & 63);
    if (s[i].upload) {
      a->uploads++;
      double in = 0;
      for (size_t j = 0; j < n; j++) {
        /* another slot's kernels on the same GPU */
        if (s[j].upload || s[j].ordinal != s[i].ordinal || s[j].slot == s[i].slot)
          continue;
        double lo = s[i].t0 > s[j].t0 ? s[i].t0 : s[j].t0, hi = s[i].t1 < s[j].t1 ? s[i].t1 : s[j].t1;
        if (hi > lo)
          in += hi - lo;
      }
      if (in > 0)
        a->uploads_overlapped++, a->overlap_s += in;
      continue;
    }
    a->computes++;
    if (s[i].t0 > cur1) { /* a gap: close the current interval */
      if (cur1 > cur0)
        a->busy_s += cur1 - cur0;
      cur0 = s[i].t0, cur1 = s[i].t1;
    } else if (s[i].t1 > cur1) {
      cur1 = s[i].t1;
    }
  }
  if (cur1 > cur0)
    a->busy_s += cur1 - cur0;
  for (unsigned b = 0; b < 64; b++) a->slots_seen += (seen >> b) & 1;
}

static inline void gx_timeline_analyse(gx_timeline *a, const engine_span *s, size_t n) {
  gx_timeline_analyse_gpu(a, s, n, -1);
}

#endif
