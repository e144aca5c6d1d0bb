/* The engine (engine/engine.h) with bellperson keys and witness files, on
 * the CPU backend: a development circuit (`cuzk circuit gen`'s porep-32g
 * shape, about 2^10 rows) with an INSECURE key (`cuzk setup`'s), written
 * as .params and .pce files, registered, found in param_dir, or given in
 * memory; witnesses carried as bytes or named as files under the witness
 * directory.  Every proof the engine returns is decoded and verified here
 * again, against the key's own verifying key and the public inputs taken
 * from the witness, so a test fails if the engine returns a wrong proof,
 * the wrong partition's proof, or proofs out of order.  The witness-file
 * rules are checked one by one: names that leave the directory, links,
 * files missing or of another circuit, files that change after submit, a
 * file unlinked after submit (still proven: the engine keeps it open), and
 * request ids over files. */
#include "harness.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/bytes.h"
#include "engine/engine.h"
#include "groth16/bp.h"
#include "groth16/bp_setup.h"
#include "groth16/json.h"
#include "groth16/pce_gen.h"
#include "groth16/verify.h"

#define NPART 3

typedef struct {
  char dir[64], wdir[128], params[160], pce_path[160], vk_path[160];
  char wname[NPART][32];  /* relative to wdir */
  char wpath[NPART][192];
  pce_gen_plan plan;
  pce_file pce;
  bp_params pp;
  groth16_vk vk;
  bls12_381_fr *w[NPART]; /* Montgomery, for the public inputs */
  size_t nv;
} bpfix;

static void fix_make(bpfix *f) {
  memset(f, 0, sizeof *f);
  cuzk_err e = {0};
  snprintf(f->dir, sizeof f->dir, "/tmp/cuzk-ebp-XXXXXX");
  CHECK(mkdtemp(f->dir));
  snprintf(f->wdir, sizeof f->wdir, "%s/w", f->dir);
  CHECK(mkdir(f->wdir, 0700) == 0);
  CHECK_MSG(pce_gen_plan_make(&f->plan, pce_shape_find("porep-32g"), 10, &e) == CUZK_OK, "%s",
            e.msg);
  CHECK_MSG(pce_gen_circuit(&f->pce, &f->plan, &e) == CUZK_OK, "%s", e.msg);
  CHECK_MSG(bp_setup(&f->pp, &f->pce, 7, NULL, &e) == CUZK_OK, "%s", e.msg);
  snprintf(f->params, sizeof f->params, "%s/porep.params", f->dir);
  snprintf(f->pce_path, sizeof f->pce_path, "%s/porep.pce", f->dir);
  CHECK_MSG(bp_params_write(&f->pp, f->params, &e) == CUZK_OK, "%s", e.msg);
  CHECK_MSG(pce_write(&f->pce, f->pce_path, &e) == CUZK_OK, "%s", e.msg);
  CHECK_MSG(bp_vk_to_groth16(&f->pp.vk, &f->vk, &e) == CUZK_OK, "%s", e.msg);
  f->nv = (size_t)f->pce.num_inputs + f->pce.num_aux;
  for (int i = 0; i < NPART; i++) {
    f->w[i] = malloc(f->nv * sizeof *f->w[i]);
    CHECK(f->w[i]);
    pce_gen_witness(&f->plan, 7, (uint32_t)i, f->w[i]);
    snprintf(f->wname[i], sizeof f->wname[i], "p%d.wtns", i);
    snprintf(f->wpath[i], sizeof f->wpath[i], "%s/%s", f->wdir, f->wname[i]);
    CHECK_MSG(pce_write_wtns(f->wpath[i], f->w[i], f->nv, &e) == CUZK_OK, "%s", e.msg);
  }
}

static void fix_free(bpfix *f) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
  CHECK(system(cmd) == 0);
  for (int i = 0; i < NPART; i++) free(f->w[i]);
  groth16_vk_fini(&f->vk);
  bp_params_free(&f->pp);
  pce_close(&f->pce);
}

/* A config of one CPU worker (2 threads) with the fixture's key as "porep"
 * (its files, in *circ) and its witness directory. */
static void cpu_config(engine_config *c, engine_circuit *circ, const bpfix *f) {
  engine_config_defaults(c);
  c->device = ENGINE_DEVICE_CPU;
  c->threads = 2;
  c->witness_dir = f->wdir;
  *circ = (engine_circuit){.id = "porep", .path = f->params, .pce = f->pce_path};
  c->circuits = circ, c->ncircuits = 1;
}

/* The engine of cpu_config, the key from its files or in memory, or none
 * registered (with_circuit false). */
static engine *start(const bpfix *f, bool in_memory, const char *param_dir, bool with_circuit) {
  engine_config c;
  static engine_circuit circ;
  cpu_config(&c, &circ, f);
  if (in_memory)
    circ.bp_mem = &f->pp, circ.pce_mem = &f->pce;
  c.circuits = with_circuit ? &circ : NULL;
  c.ncircuits = with_circuit ? 1 : 0;
  c.param_dir = param_dir;
  engine *e = NULL;
  cuzk_err err = {0};
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "%s", err.msg);
  return e;
}

/* Proof p of r (partition `part` of the fixture) verifies, and is not
 * the proof of another partition. */
static void check_proof(const bpfix *f, const engine_result *r, size_t p, int part) {
  cuzk_err e = {0};
  groth16_proof pr;
  CHECK_MSG(bp_proof_decode(&pr, r->proof + p * BP_PROOF_BYTES, "proof", p, &e) == CUZK_OK, "%s",
            e.msg);
  const size_t np = f->pce.num_inputs - 1;
  limb_t(*pub)[4] = malloc((np ? np : 1) * sizeof *pub);
  CHECK(pub);
  for (int q = 0; q < NPART; q++) {
    for (size_t i = 0; i < np; i++) bls12_381_fr_to_canon(pub[i], &f->w[q][1 + i]);
    cuzk_status st = groth16_verify(&f->vk, (const limb_t(*)[4])pub, np, &pr, &e);
    if (q == part)
      CHECK_MSG(st == CUZK_OK, "proof %zu (partition %d): %s", p, part, e.msg);
    else
      CHECK_MSG(st == CUZK_VERIFY_FAILED, "proof %zu verifies with partition %d's inputs too", p,
                q);
  }
  free(pub);
}

static cuzk_status submit_files(engine *e, const char *rid, const char *const *names, size_t n,
                                engine_ticket *t, cuzk_err *err) {
  engine_request rq = {.request_id = rid, .circuit_id = "porep", .nparts = n,
                       .witness_file = names};
  return engine_submit(e, &rq, t, err);
}

static engine_result await_done(engine *e, const char *id) {
  engine_result r;
  cuzk_err err = {0};
  CHECK_MSG(engine_await(e, id, 60000, &r, &err) == CUZK_OK, "%s", err.msg);
  return r;
}

/* A job of partition `part`'s witness file, under request id rid, ends
 * done with its verifying proof (when: for the message). */
static void prove_file_ok(engine *e, const bpfix *f, const char *rid, int part,
                          const char *when) {
  const char *names[1] = {f->wname[part]};
  engine_ticket t;
  cuzk_err err = {0};
  CHECK_MSG(submit_files(e, rid, names, 1, &t, &err) == CUZK_OK, "%s: %s", when, err.msg);
  engine_result r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s: %s", when, r.error);
  check_proof(f, &r, 0, part);
  engine_result_free(&r);
}

TEST_TIMEOUT(engine_bp_files_and_bytes, 300) {
  bpfix f;
  fix_make(&f);
  engine *e = start(&f, false, NULL, true);
  cuzk_err err = {0};
  engine_ticket t;
  /* files, partitions in the order named (2, 0, 1) */
  const char *names[NPART] = {f.wname[2], f.wname[0], f.wname[1]};
  CHECK_MSG(submit_files(e, NULL, names, NPART, &t, &err) == CUZK_OK, "%s", err.msg);
  engine_result r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  CHECK_EQ_INT(r.proof_len, NPART * BP_PROOF_BYTES);
  check_proof(&f, &r, 0, 2);
  check_proof(&f, &r, 1, 0);
  check_proof(&f, &r, 2, 1);
  engine_result_free(&r);
  /* bytes */
  size_t len;
  uint8_t *b = (uint8_t *)test_read_file(f.wpath[1], &len);
  CHECK(b);
  const uint8_t *wb[1] = {b};
  engine_request rq = {.circuit_id = "porep", .nparts = 1, .witness = wb, .witness_len = &len};
  CHECK_MSG(engine_submit(e, &rq, &t, &err) == CUZK_OK, "%s", err.msg);
  r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  check_proof(&f, &r, 0, 1);
  engine_result_free(&r);
  /* want_json of a bellperson key: its PUBLIC.json (the inputs without
   * ONE, as decimal strings), no proof.json (the proof is the bytes) */
  rq.want_json = true;
  CHECK_MSG(engine_submit(e, &rq, &t, &err) == CUZK_OK, "%s", err.msg);
  r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE && !r.proof_json && r.public_json, "%s", r.error);
  check_proof(&f, &r, 0, 1);
  {
    limb_t(*vals)[4] = NULL;
    size_t nvals = 0;
    CHECK_MSG(json_parse_public(r.public_json[0], strlen(r.public_json[0]), "public", &vals, &nvals,
                                &err) == CUZK_OK, "%s", err.msg);
    CHECK_EQ_INT(nvals, f.pce.num_inputs - 1);
    for (size_t i = 0; i < nvals; i++) {
      limb_t want[4];
      bls12_381_fr_to_canon(want, &f.w[1][1 + i]);
      CHECK_MSG(!memcmp(vals[i], want, sizeof want), "public input %zu", i);
    }
    free(vals);
  }
  engine_result_free(&r);
  free(b);
  /* the queue budget holds no witness once the jobs are done */
  engine_status s;
  CHECK(engine_status_get(e, &s, &err) == CUZK_OK);
  CHECK_EQ_INT(s.queue_witness, 0);
  CHECK_EQ_INT(s.completed, 3);
  engine_status_free(&s);
  engine_free(e);
  fix_free(&f);
}

TEST_TIMEOUT(engine_bp_param_dir_and_in_memory, 300) {
  bpfix f;
  fix_make(&f);
  cuzk_err err = {0};
  engine_ticket t;
  const char *names[1] = {f.wname[0]};
  /* <param_dir>/porep.params beside porep.pce */
  engine *e = start(&f, false, f.dir, false);
  CHECK_MSG(submit_files(e, NULL, names, 1, &t, &err) == CUZK_OK, "%s", err.msg);
  engine_result r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  check_proof(&f, &r, 0, 0);
  engine_result_free(&r);
  /* no .pce beside it: not found, and the message says what was looked for */
  char p2[200];
  snprintf(p2, sizeof p2, "%s/lone.params", f.dir);
  CHECK(link(f.params, p2) == 0);
  engine_request rq = {.circuit_id = "lone", .nparts = 1, .witness_file = names};
  CHECK(engine_submit(e, &rq, &t, &err) == CUZK_NOT_FOUND);
  CHECK_MSG(strstr(err.msg, "lone.params with lone.pce"), "%s", err.msg);
  engine_free(e);
  /* the key in memory: the files are not read (removed first) */
  CHECK(unlink(f.params) == 0 && unlink(f.pce_path) == 0);
  e = start(&f, true, NULL, true);
  CHECK_MSG(submit_files(e, NULL, names, 1, &t, &err) == CUZK_OK, "%s", err.msg);
  r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  check_proof(&f, &r, 0, 0);
  engine_result_free(&r);
  bool was = false;
  uint64_t freed = 1;
  CHECK(engine_evict(e, "porep", &was, &freed, &err) == CUZK_OK);
  CHECK(was && freed == 0); /* the caller's key stays */
  engine_free(e);
  fix_free(&f);
}

/* Submits names[0] and expects st with `want` in the message. */
static void refused(engine *e, const char *name, cuzk_status st, const char *want) {
  cuzk_err err = {0};
  engine_ticket t;
  const char *names[1] = {name};
  cuzk_status got = submit_files(e, NULL, names, 1, &t, &err);
  CHECK_MSG(got == st && strstr(err.msg, want), "'%s': %s (%s), expected %s with '%s'", name,
            cuzk_status_name(got), err.msg, cuzk_status_name(st), want);
}

TEST_TIMEOUT(engine_witness_file_rules, 300) {
  bpfix f;
  fix_make(&f);
  engine *e = start(&f, false, NULL, true);
  char p[300];
  /* names that leave the directory, or are not names */
  refused(e, "../porep.pce", CUZK_INVALID_ARGUMENT, "not a relative path");
  refused(e, "/etc/passwd", CUZK_INVALID_ARGUMENT, "not a relative path");
  refused(e, "a//b", CUZK_INVALID_ARGUMENT, "not a relative path");
  refused(e, "sub/", CUZK_INVALID_ARGUMENT, "not a relative path");
  refused(e, "x y", CUZK_INVALID_ARGUMENT, "not a relative path");
  refused(e, "missing.wtns", CUZK_NOT_FOUND, "No such file");
  /* a link, in the last component or on the way */
  snprintf(p, sizeof p, "%s/link.wtns", f.wdir);
  CHECK(symlink(f.wpath[0], p) == 0);
  refused(e, "link.wtns", CUZK_INVALID_ARGUMENT, "without following links");
  snprintf(p, sizeof p, "%s/out", f.wdir);
  CHECK(symlink(f.dir, p) == 0);
  refused(e, "out/porep.params", CUZK_INVALID_ARGUMENT, "outside the witness directory");
  /* a directory, and a file that is not a witness of this circuit */
  snprintf(p, sizeof p, "%s/d", f.wdir);
  CHECK(mkdir(p, 0700) == 0);
  refused(e, "d", CUZK_INVALID_ARGUMENT, "not a regular file");
  snprintf(p, sizeof p, "%s/short.wtns", f.wdir);
  cuzk_err err = {0};
  CHECK(pce_write_wtns(p, f.w[0], f.nv - 1, &err) == CUZK_OK);
  refused(e, "short.wtns", CUZK_FORMAT, "a witness of another circuit");
  snprintf(p, sizeof p, "%s/junk.wtns", f.wdir);
  FILE *j = fopen(p, "w");
  CHECK(j && fputs("not a witness", j) >= 0 && fclose(j) == 0);
  refused(e, "junk.wtns", CUZK_FORMAT, "junk.wtns");
  /* a value not below r fails its partition (read when it starts) */
  snprintf(p, sizeof p, "%s/big.wtns", f.wdir);
  CHECK(pce_write_wtns(p, f.w[0], f.nv, &err) == CUZK_OK);
  int bf = open(p, O_WRONLY);
  uint8_t ff[32];
  memset(ff, 0xff, sizeof ff);
  CHECK(bf >= 0 && pwrite(bf, ff, sizeof ff, 76 + 32 * 3) == (ssize_t)sizeof ff && close(bf) == 0);
  {
    engine_ticket bt;
    const char *bn[1] = {"big.wtns"};
    CHECK(submit_files(e, NULL, bn, 1, &bt, &err) == CUZK_OK);
    engine_result br;
    CHECK(engine_await(e, bt.job_id, 60000, &br, &err) == CUZK_OK);
    CHECK_MSG(br.state == ENGINE_JOB_FAILED && strstr(br.error, "value 3"), "%s", br.error);
    engine_result_free(&br);
  }
  /* a subdirectory is fine */
  snprintf(p, sizeof p, "%s/d/q.wtns", f.wdir);
  CHECK(pce_write_wtns(p, f.w[1], f.nv, &err) == CUZK_OK);
  engine_ticket t;
  const char *sub[1] = {"d/q.wtns"};
  CHECK_MSG(submit_files(e, NULL, sub, 1, &t, &err) == CUZK_OK, "%s", err.msg);
  engine_result r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  check_proof(&f, &r, 0, 1);
  engine_result_free(&r);

  /* Changes after submit, while the job waits (paused): a file unlinked
   * is still proven (the engine holds it open); one rewritten with other
   * values fails its partition, naming the file. */
  engine_set_paused(e, true);
  const char *n0[1] = {f.wname[0]}, *n1[1] = {f.wname[1]};
  engine_ticket t0, t1;
  CHECK(submit_files(e, "rid-0", n0, 1, &t0, &err) == CUZK_OK);
  CHECK(submit_files(e, "rid-1", n1, 1, &t1, &err) == CUZK_OK);
  /* the same request id and files attach */
  engine_ticket ta;
  CHECK(submit_files(e, "rid-0", n0, 1, &ta, &err) == CUZK_OK && ta.attached);
  CHECK(unlink(f.wpath[0]) == 0);
  int fd = open(f.wpath[1], O_WRONLY);
  CHECK(fd >= 0);
  uint8_t zero[32] = {0};
  CHECK(pwrite(fd, zero, sizeof zero, 76 + 32 * 5) == (ssize_t)sizeof zero);
  CHECK(close(fd) == 0);
  /* rid-1's file is another file now: the same id is a different request */
  CHECK(submit_files(e, "rid-1", n1, 1, &ta, &err) == CUZK_INVALID_ARGUMENT);
  engine_set_paused(e, false);
  r = await_done(e, t0.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  check_proof(&f, &r, 0, 0);
  engine_result_free(&r);
  r = await_done(e, t1.job_id);
  CHECK(r.state == ENGINE_JOB_FAILED && r.job_status == CUZK_FORMAT);
  CHECK_MSG(strstr(r.error, "p1.wtns") && strstr(r.error, "changed after it was submitted"), "%s",
            r.error);
  engine_result_free(&r);
  engine_free(e);

  /* no witness directory: files are refused */
  engine_config c;
  engine_config_defaults(&c);
  c.device = ENGINE_DEVICE_CPU;
  engine_circuit circ = {.id = "porep", .path = f.params, .pce = f.pce_path};
  c.circuits = &circ, c.ncircuits = 1;
  CHECK(engine_new(&e, &c, &err) == CUZK_OK);
  refused(e, f.wname[2], CUZK_INVALID_ARGUMENT, "no witness directory");
  engine_free(e);
  /* a witness directory that is not one */
  c.witness_dir = f.params;
  CHECK(engine_new(&e, &c, &err) == CUZK_INVALID_ARGUMENT && strstr(err.msg, "witness directory"));
  fix_free(&f);
}

TEST_TIMEOUT(engine_bp_key_checks, 300) {
  bpfix f;
  fix_make(&f);
  engine_config c;
  engine_config_defaults(&c);
  c.device = ENGINE_DEVICE_CPU;
  cuzk_err err = {0};
  engine *e = NULL;
  /* the PCE of another circuit: the key's counts disagree at load */
  pce_gen_plan p2;
  pce_file other;
  CHECK(pce_gen_plan_make(&p2, pce_shape_find("winning-32g"), 10, &err) == CUZK_OK);
  CHECK(pce_gen_circuit(&other, &p2, &err) == CUZK_OK);
  char op[200];
  snprintf(op, sizeof op, "%s/other.pce", f.dir);
  CHECK(pce_write(&other, op, &err) == CUZK_OK);
  engine_circuit circ = {.id = "mixed", .path = f.params, .pce = op};
  c.circuits = &circ, c.ncircuits = 1;
  c.witness_dir = f.wdir;
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "%s", err.msg);
  char wp[300];
  const size_t onv = (size_t)other.num_inputs + other.num_aux;
  bls12_381_fr *ow = malloc(onv * sizeof *ow);
  CHECK(ow);
  pce_gen_witness(&p2, 1, 0, ow);
  snprintf(wp, sizeof wp, "%s/other.wtns", f.wdir);
  CHECK(pce_write_wtns(wp, ow, onv, &err) == CUZK_OK);
  free(ow);
  const char *names[1] = {"other.wtns"};
  engine_request rq = {.circuit_id = "mixed", .nparts = 1, .witness_file = names};
  engine_ticket t;
  CHECK_MSG(engine_submit(e, &rq, &t, &err) == CUZK_OK, "%s", err.msg);
  engine_result r;
  CHECK(engine_await(e, t.job_id, 60000, &r, &err) == CUZK_OK);
  CHECK_MSG(r.state == ENGINE_JOB_FAILED && r.job_status == CUZK_FORMAT, "%s", r.error);
  CHECK_MSG(strstr(r.error, "porep.params") && strstr(r.error, "other.pce"), "%s", r.error);
  engine_result_free(&r);
  engine_free(e);
  pce_close(&other);
  /* a bellperson key needs its PCE; an in-memory key both halves */
  engine_circuit half = {.id = "h", .path = f.params, .bp_mem = &f.pp};
  c.circuits = &half;
  CHECK(engine_new(&e, &c, &err) == CUZK_INVALID_ARGUMENT && strstr(err.msg, "PCE"));
  half.pce = f.pce_path;
  CHECK(engine_new(&e, &c, &err) == CUZK_INVALID_ARGUMENT && strstr(err.msg, "both"));
  fix_free(&f);
}

/* Witness files hold descriptors while queued: at most half the open-file
 * limit at the engine's start.  Past it a submit is refused EXHAUSTED
 * (nothing left open), and the count goes back as partitions end. */
TEST_TIMEOUT(engine_witness_files_bounded, 300) {
  bpfix f;
  fix_make(&f);
  struct rlimit rl;
  CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0);
  rl.rlim_cur = 256; /* a cap of 128 (this test's process only: the harness forks) */
  CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
  engine *e = start(&f, false, NULL, true);
  const char *many[129];
  for (int i = 0; i < 129; i++) many[i] = f.wname[i % NPART];
  cuzk_err err = {0};
  engine_ticket t;
  for (int round = 0; round < 2; round++) {
    CHECK(submit_files(e, NULL, many, 129, &t, &err) == CUZK_EXHAUSTED);
    CHECK_MSG(strstr(err.msg, "held open") && strstr(err.msg, "at most 128"), "%s", err.msg);
  }
  engine_set_paused(e, true);
  engine_ticket a, b;
  CHECK_MSG(submit_files(e, NULL, many, 100, &a, &err) == CUZK_OK, "%s", err.msg);
  CHECK(submit_files(e, NULL, many, 29, &t, &err) == CUZK_EXHAUSTED); /* 100 + 29 > 128 */
  CHECK_MSG(submit_files(e, NULL, many, 28, &b, &err) == CUZK_OK, "%s", err.msg);
  engine_set_paused(e, false);
  engine_result r = await_done(e, b.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  engine_result_free(&r);
  /* cancelled: its files are closed too */
  bool was = false;
  CHECK(engine_cancel(e, a.job_id, &was, &err) == CUZK_OK);
  r = await_done(e, a.job_id);
  CHECK(r.state == ENGINE_JOB_CANCELLED || r.state == ENGINE_JOB_DONE);
  engine_result_free(&r);
  CHECK_MSG(submit_files(e, NULL, many, 128, &t, &err) == CUZK_OK, "all 128 back: %s", err.msg);
  CHECK(engine_cancel(e, t.job_id, &was, &err) == CUZK_OK);
  r = await_done(e, t.job_id);
  engine_result_free(&r);
  engine_free(e);
  fix_free(&f);
}

/* A trusted .params (no point checks at load) with a point off its curve:
 * the proof fails verification, the engine checks the key's points
 * (groth16_key_check_points) and fails the job as the key's fault, naming
 * the vector and the point; bp_params_validate_points says the same. */
TEST_TIMEOUT(engine_bp_corrupt_trusted_key, 300) {
  bpfix f;
  fix_make(&f);
  const size_t at = BP_VK_FIXED_BYTES + 96 * f.pp.vk.n_ic + 4 + 96 * 3 + 95; /* h[3].y's last byte */
  int fd = open(f.params, O_RDWR);
  uint8_t b;
  CHECK(fd >= 0 && pread(fd, &b, 1, (off_t)at) == 1);
  b ^= 1;
  CHECK(pwrite(fd, &b, 1, (off_t)at) == 1 && close(fd) == 0);
  engine_config c;
  engine_circuit circ;
  cpu_config(&c, &circ, &f);
  circ.trusted = true;
  engine *e = NULL;
  cuzk_err err = {0};
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "%s", err.msg);
  const char *names[1] = {f.wname[0]};
  engine_ticket t;
  CHECK_MSG(submit_files(e, NULL, names, 1, &t, &err) == CUZK_OK, "%s", err.msg);
  engine_result r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_FAILED && r.job_status == CUZK_FORMAT &&
                strstr(r.error, "the proving key is corrupt") && strstr(r.error, "vector h, point 3"),
            "%s", r.error);
  engine_result_free(&r);
  engine_free(e);
  /* the same check on the key read back as trusted */
  bp_params pp;
  const bp_read_opts trust = {.skip_checks = true};
  CHECK_MSG(bp_params_read(&pp, f.params, &trust, &err) == CUZK_OK, "%s", err.msg);
  CHECK(bp_params_validate_points(&pp, 2, &err) == CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "vector h, point 3: G1: not on the curve"), "%s", err.msg);
  bp_params_free(&pp);
  CHECK_MSG(bp_params_validate_points(&f.pp, 2, &err) == CUZK_OK, "%s", err.msg);
  /* a vk point off its curve is named too */
  const bls12_381_g1_aff alpha = f.pp.vk.alpha_g1;
  bls12_381_fp_add(&f.pp.vk.alpha_g1.y, &f.pp.vk.alpha_g1.y, &bls12_381_fp_one_mont);
  CHECK(bls12_381_fp_is_zero(&f.pp.vk.alpha_g1.y) ||
        bp_params_validate_points(&f.pp, 2, &err) == CUZK_FORMAT);
  CHECK_MSG(strstr(err.msg, "alpha_g1: G1: not on the curve"), "%s", err.msg);
  f.pp.vk.alpha_g1 = alpha;
  fix_free(&f);
}

/* A CPU worker's copy of a witness file's values is the partition's
 * working memory, outside the queue budget: with a queue budget smaller
 * than the witness, the job proves and the queue stays within its budget
 * while the partition runs (fuzz_engine found it charged past it:
 * tests/fuzz/corpus/engine/regress-witness-file-cpu-charge). */
static pthread_mutex_t hold_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_cv = PTHREAD_COND_INITIALIZER;
static int hold_state; /* 0 idle, 1 a worker is held, 2 released */

static void hold_hook(void *ctx, const char *job_id, size_t part, engine_job_state s) {
  (void)ctx, (void)job_id, (void)part;
  if (s != ENGINE_JOB_FINALIZING)
    return;
  pthread_mutex_lock(&hold_mu);
  hold_state = 1;
  pthread_cond_broadcast(&hold_cv);
  while (hold_state != 2) pthread_cond_wait(&hold_cv, &hold_mu);
  pthread_mutex_unlock(&hold_mu);
}

TEST_TIMEOUT(engine_witness_file_copy_outside_queue, 300) {
  bpfix f;
  fix_make(&f);
  engine_config c;
  engine_circuit circ;
  cpu_config(&c, &circ, &f);
  c.host_budget_bytes = (uint64_t)256 << 20;
  c.queue_budget_bytes = 16 << 10; /* below the witness's 32 x nv bytes */
  CHECK(32 * f.nv > c.queue_budget_bytes);
  c.test_hook = hold_hook;
  engine *e = NULL;
  cuzk_err err = {0};
  CHECK_MSG(engine_new(&e, &c, &err) == CUZK_OK, "%s", err.msg);
  const char *names[1] = {f.wname[0]};
  engine_ticket t;
  CHECK_MSG(submit_files(e, NULL, names, 1, &t, &err) == CUZK_OK, "%s", err.msg);
  pthread_mutex_lock(&hold_mu);
  while (hold_state != 1) pthread_cond_wait(&hold_cv, &hold_mu);
  pthread_mutex_unlock(&hold_mu);
  engine_status s;
  CHECK(engine_status_get(e, &s, &err) == CUZK_OK);
  CHECK_MSG(s.queue_used <= s.queue_budget, "queue %llu over its budget %llu while proving",
            (unsigned long long)s.queue_used, (unsigned long long)s.queue_budget);
  engine_status_free(&s);
  pthread_mutex_lock(&hold_mu);
  hold_state = 2;
  pthread_cond_broadcast(&hold_cv);
  pthread_mutex_unlock(&hold_mu);
  engine_result r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_DONE, "%s", r.error);
  check_proof(&f, &r, 0, 0);
  engine_result_free(&r);
  engine_free(e);
  fix_free(&f);
}

/* A bellperson key whose files change under the engine is read again
 * (groth16_key_read_bp, the engine's key owning the copies): rewritten
 * with the same content it proves as before; its PCE replaced by another
 * circuit's, the job fails naming the shape, and nothing leaks (ASan). */
TEST_TIMEOUT(engine_bp_key_reload, 300) {
  bpfix f;
  fix_make(&f);
  engine *e = start(&f, false, NULL, true);
  cuzk_err err = {0};
  prove_file_ok(e, &f, "r0", 1, "first");
  /* the same key written again (another inode, another mtime) */
  char tmp[200];
  snprintf(tmp, sizeof tmp, "%s/new.params", f.dir);
  CHECK(bp_params_write(&f.pp, tmp, &err) == CUZK_OK);
  CHECK(rename(tmp, f.params) == 0);
  prove_file_ok(e, &f, "r1", 1, "after the rewrite");
  /* the PCE of another circuit in its place */
  pce_gen_plan p2;
  pce_file other;
  CHECK(pce_gen_plan_make(&p2, pce_shape_find("winning-32g"), 10, &err) == CUZK_OK);
  CHECK(pce_gen_circuit(&other, &p2, &err) == CUZK_OK);
  snprintf(tmp, sizeof tmp, "%s/new.pce", f.dir);
  CHECK(pce_write(&other, tmp, &err) == CUZK_OK);
  pce_close(&other);
  CHECK(rename(tmp, f.pce_path) == 0);
  const char *names[1] = {f.wname[1]};
  engine_ticket t;
  CHECK_MSG(submit_files(e, "r2", names, 1, &t, &err) == CUZK_OK, "%s", err.msg);
  engine_result r = await_done(e, t.job_id);
  CHECK_MSG(r.state == ENGINE_JOB_FAILED && r.job_status == CUZK_FORMAT &&
                strstr(r.error, "another shape") && strstr(r.error, "porep.pce"),
            "%s", r.error);
  engine_result_free(&r);
  engine_free(e);
  fix_free(&f);
}
