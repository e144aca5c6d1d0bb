/* The engine's entry points: config, start and shutdown, submit, await,
 * cancel (engine.h; the internals are in engine_impl.h).
 *
 * DESIGN: submit does its expensive steps (the digest, copying and parsing
 * the witnesses) without the lock, after reserving their bytes against the
 * queue budget under it, then takes the lock again to insert the job; a
 * repeated request id that raced in meanwhile is found at that second look
 * and attaches.  Await holds a reference on the job while it waits on
 * done_cv, so an expiry during the wait cannot free it.  A submission
 * when no worker is left to prove (every GPU lost, no CPU fallback:
 * worker.c) is refused at once with UNAVAILABLE and the reason.  Shutdown is
 * one-shot: the first caller drains or cancels and joins the workers;
 * later or concurrent callers wait on done_cv for `joined`. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "engine/engine_impl.h"

double engine_now(void) { return cuzk_now_s(); }

void engine_deadline(struct timespec *ts, double s) {
  clock_gettime(CLOCK_MONOTONIC, ts);
  if (s < 0)
    s = 0;
  if (s > 1e7)
    s = 1e7;
  time_t whole = (time_t)s;
  long ns = ts->tv_nsec + (long)((s - (double)whole) * 1e9);
  ts->tv_sec += whole + ns / 1000000000L;
  ts->tv_nsec = ns % 1000000000L;
}

/* ------------------------------------------------------------ names */

const char *engine_job_state_name(engine_job_state s) {
  static const char *const n[] = {"queued", "preparing", "proving", "finalizing",
                                  "done",   "failed",    "cancelled"};
  return (unsigned)s < sizeof n / sizeof *n ? n[s] : "unknown";
}

const char *engine_tier_name(engine_tier t) {
  static const char *const n[] = {"disk", "mapped", "pinned", "device"};
  return (unsigned)t < sizeof n / sizeof *n ? n[t] : "unknown";
}

const char *engine_priority_name(engine_priority p) {
  static const char *const n[] = {"normal", "low", "normal", "high", "critical"};
  return (unsigned)p < sizeof n / sizeof *n ? n[p] : "unknown";
}

const char *engine_gpu_state_name(engine_gpu_state s) {
  static const char *const n[] = {"up", "failed"};
  return (unsigned)s < sizeof n / sizeof *n ? n[s] : "unknown";
}

void engine_log(engine *e, engine_log_level level, const char *fmt, ...) {
  if (!e->cfg.log)
    return;
  char line[2 * CUZK_ERR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  e->cfg.log(e->cfg.log_ctx, level, line);
}

/* ------------------------------------------------------------ config */

void engine_config_defaults(engine_config *c) {
  memset(c, 0, sizeof *c);
  c->device = ENGINE_DEVICE_AUTO;
  c->gpu_workers_per_device = 1;
  c->witness_readahead = 1;
  c->cpu_workers = 1;
  c->finished_ttl_ms = 10 * 60 * 1000;
  c->max_finished = 10000;
}

/* Physical memory less 5 GiB (the Rust daemon's safety margin), at least 1 GiB. */
static uint64_t auto_host_budget(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
  uint64_t total = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (uint64_t)16 << 30;
  uint64_t margin = (uint64_t)5 << 30, floor = (uint64_t)1 << 30;
  return total > margin + floor ? total - margin : floor;
}

static cuzk_status check_config(engine_config *c, cuzk_err *err) {
  if (c->device != ENGINE_DEVICE_AUTO && c->device != ENGINE_DEVICE_CPU &&
      c->device != ENGINE_DEVICE_GPU)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "engine: device mode %d is not auto, cpu or gpu",
                        (int)c->device);
  if (c->gpu_workers_per_device < 1 || c->gpu_workers_per_device > 64)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "engine: gpu_workers_per_device %u must be in 1..64",
                        c->gpu_workers_per_device);
  if (c->cpu_workers < 1 || c->cpu_workers > 1024)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "engine: cpu_workers %u must be in 1..1024",
                        c->cpu_workers);
  if (c->witness_readahead > 16)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "engine: witness_readahead %u must be in 0..16",
                        c->witness_readahead);
  if (c->express_max_lg > 30)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "engine: express_max_lg %u must be in 0..30",
                        c->express_max_lg);
  if (!c->placement_wait_ms)
    c->placement_wait_ms = ENGINE_PLACEMENT_WAIT_MS_DEFAULT;
  if (c->max_finished < 1)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "engine: max_finished must be at least 1");
  if (!c->host_budget_bytes)
    c->host_budget_bytes = auto_host_budget();
  if (!c->queue_budget_bytes)
    c->queue_budget_bytes = c->host_budget_bytes / 4;
  if (c->queue_budget_bytes >= c->host_budget_bytes)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "engine: queue budget %llu bytes must be below the host budget %llu "
                        "(keys get the difference)",
                        (unsigned long long)c->queue_budget_bytes,
                        (unsigned long long)c->host_budget_bytes);
  return CUZK_OK;
}

/* ------------------------------------------------------------ start, stop */

cuzk_status engine_new(engine **out, const engine_config *cfg, cuzk_err *err) {
  *out = NULL;
  engine *e = calloc(1, sizeof *e);
  if (!e)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "engine: no memory");
  e->cfg = *cfg;
  cuzk_status st = check_config(&e->cfg, err);
  if (st != CUZK_OK) {
    free(e);
    return st;
  }
  /* The config's pointers are the caller's: keep copies of what is used later. */
  e->cfg.circuits = NULL, e->cfg.ncircuits = 0, e->cfg.gpus = NULL, e->cfg.ngpus = 0;
  e->cfg.param_dir = NULL, e->cfg.witness_dir = NULL;
  if (cfg->param_dir && !(e->param_dir = strdup(cfg->param_dir))) {
    free(e);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "engine: no memory");
  }
  if (cfg->witness_dir && *cfg->witness_dir) {
    /* Its real path: a witness file must resolve inside it (submit). */
    struct stat sb;
    char real[4096];
    errno = 0;
    if (!realpath(cfg->witness_dir, real) || stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
      st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "engine: witness directory %s: %s", cfg->witness_dir,
                        errno ? strerror(errno) : "not a directory");
      free(e->param_dir);
      free(e);
      return st;
    }
    if (!(e->witness_dir = strdup(real))) {
      free(e->param_dir);
      free(e);
      return cuzk_err_set(err, CUZK_NO_MEMORY, "engine: no memory");
    }
  }
  pthread_mutex_init(&e->mu, NULL);
  pthread_mutex_init(&e->log_mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&e->work_cv, &ca);
  pthread_cond_init(&e->done_cv, &ca);
  pthread_cond_init(&e->key_cv, &ca);
  pthread_cond_init(&e->ra_cv, &ca);
  pthread_condattr_destroy(&ca);
  e->t_start = engine_now();
  e->accepting = true;
  e->keys_budget = e->cfg.host_budget_bytes - e->cfg.queue_budget_bytes;
  struct rlimit nofile;
  e->wfiles_cap = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY
                      ? (unsigned long)(nofile.rlim_cur / 2)
                      : 1ul << 20;
  if (e->wfiles_cap < 64)
    e->wfiles_cap = 64;
  atomic_init(&e->wfiles_open, 0);
  e->table_size = 64;
  e->table = calloc(e->table_size, sizeof *e->table);
  uint64_t salt = 0;
  if (getrandom(&salt, sizeof salt, 0) != (ssize_t)sizeof salt)
    salt = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
  e->id_salt = salt;
  if (!e->table) {
    st = cuzk_err_set(err, CUZK_NO_MEMORY, "engine: no memory");
    goto fail;
  }
  /* keys_init and workers_start read the caller's arrays. */
  e->cfg.circuits = cfg->circuits, e->cfg.ncircuits = cfg->ncircuits;
  e->cfg.gpus = cfg->gpus, e->cfg.ngpus = cfg->ngpus;
  if ((st = keys_init(e, err)) != CUZK_OK || (st = workers_start(e, err)) != CUZK_OK)
    goto fail;
  e->cfg.circuits = NULL, e->cfg.ncircuits = 0, e->cfg.gpus = NULL, e->cfg.ngpus = 0;
  *out = e;
  return CUZK_OK;
fail:
  e->cfg.circuits = NULL, e->cfg.ncircuits = 0, e->cfg.gpus = NULL, e->cfg.ngpus = 0;
  engine_free(e);
  return st;
}

void engine_stop_accepting(engine *e) {
  pthread_mutex_lock(&e->mu);
  e->accepting = false;
  pthread_mutex_unlock(&e->mu);
}

void engine_shutdown(engine *e) {
  if (!e)
    return;
  pthread_mutex_lock(&e->mu);
  if (e->shutting) {
    while (!e->joined) pthread_cond_wait(&e->done_cv, &e->mu);
    pthread_mutex_unlock(&e->mu);
    return;
  }
  e->shutting = true;
  e->accepting = false;
  if (e->cfg.cancel_on_shutdown)
    while (e->live.head)
      jobs_finish(e, e->live.head, ENGINE_JOB_CANCELLED, CUZK_CANCELLED,
                  "cancelled: the engine is shutting down");
  e->paused = false;
  e->draining = true;
  pthread_cond_broadcast(&e->work_cv);
  pthread_cond_broadcast(&e->key_cv);
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);

  workers_join(e);

  pthread_mutex_lock(&e->mu);
  /* Nothing should be left; a job is never left waiting for ever. */
  while (e->live.head)
    jobs_finish(e, e->live.head, ENGINE_JOB_CANCELLED, CUZK_CANCELLED,
                "cancelled: the engine shut down before it ran");
  e->joined = true;
  pthread_cond_broadcast(&e->done_cv);
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);
}

size_t engine_wait_collected(engine *e, uint64_t ms) {
  struct timespec dl;
  engine_deadline(&dl, (double)ms / 1000.0);
  pthread_mutex_lock(&e->mu);
  jobs_expire(e);
  while (e->uncollected && ms && pthread_cond_timedwait(&e->done_cv, &e->mu, &dl) != ETIMEDOUT)
    jobs_expire(e);
  size_t left = e->uncollected;
  pthread_mutex_unlock(&e->mu);
  return left;
}

void engine_free(engine *e) {
  if (!e)
    return;
  engine_shutdown(e);
  jobs_free_all(e);
  readahead_free(e);
  joblog_free(e);
  keys_free_all(e);
  free(e->workers);
  workers_free_devices(e);
  free(e->table);
  free(e->param_dir);
  free(e->witness_dir);
  pthread_cond_destroy(&e->work_cv);
  pthread_cond_destroy(&e->done_cv);
  pthread_cond_destroy(&e->key_cv);
  pthread_cond_destroy(&e->ra_cv);
  pthread_mutex_destroy(&e->mu);
  pthread_mutex_destroy(&e->log_mu);
  free(e);
}

void engine_set_paused(engine *e, bool paused) {
  pthread_mutex_lock(&e->mu);
  e->paused = paused && !e->draining;
  pthread_cond_broadcast(&e->work_cv);
  pthread_mutex_unlock(&e->mu);
}

/* ------------------------------------------------------------ submit */

static cuzk_status check_id(const char *what, const char *id, bool may_be_empty, cuzk_err *err) {
  if (!id || !*id)
    return may_be_empty ? CUZK_OK
                        : cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s is empty", what);
  size_t n = strnlen(id, ENGINE_ID_MAX);
  if (n >= ENGINE_ID_MAX)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s is longer than %d bytes", what,
                        ENGINE_ID_MAX - 1);
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s has a control character at byte %zu",
                          what, i);
  return CUZK_OK;
}

/* Does a known job carry the same request?  The digest decides (it
 * covers the circuit id and every witness byte); the id and the count are
 * compared too for the message. */
static cuzk_status same_request(const ejob *j, const engine_request *rq,
                                const uint8_t digest[JOBS_DIGEST_BYTES], cuzk_err *err) {
  if (strcmp(j->key->id, rq->circuit_id) != 0 || j->nparts != rq->nparts ||
      memcmp(j->digest, digest, JOBS_DIGEST_BYTES) != 0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "request id '%s' is already used by a different request (circuit %s, "
                        "%zu partitions, other witness bytes): one request id names one proof",
                        j->id, j->key->id, j->nparts);
  return CUZK_OK;
}

/* t for an attach to j (locked). */
static void attach_ticket(engine *e, ejob *j, engine_ticket *t) {
  snprintf(t->job_id, sizeof t->job_id, "%s", j->id);
  t->queue_position = 0;
  t->attached = true;
  e->attached++;
}

/* A known, attachable job under this request id, or NULL (locked).
 * CUZK_INVALID_ARGUMENT in *st when it is a different request. */
static ejob *attachable(engine *e, const engine_request *rq, const uint8_t *digest, cuzk_status *st,
                        cuzk_err *err) {
  *st = CUZK_OK;
  if (!rq->request_id || !*rq->request_id)
    return NULL;
  ejob *j = jobs_find(e, rq->request_id);
  if (!j || (j->finished && j->state != ENGINE_JOB_DONE))
    return NULL; /* unknown, or failed/cancelled: prove again */
  *st = same_request(j, rq, digest, err);
  return *st == CUZK_OK ? j : NULL;
}

static void free_parts(engine *e, epart *parts, size_t n) {
  for (size_t i = 0; i < n; i++) {
    wtns_close(&parts[i].w);
    free(parts[i].wit);
    free(parts[i].wcopy);
    jobs_close_witness_file(e, &parts[i]);
    free(parts[i].wname);
  }
  free(parts);
}

/* n zeroed partitions holding no witness file (wfd -1), or NULL. */
static epart *parts_new(size_t n) {
  epart *parts = calloc(n, sizeof *parts);
  for (size_t i = 0; parts && i < n; i++) parts[i].wfd = -1;
  return parts;
}

/* A witness of key k (its header parsed into w, named `name`): the
 * curve's prime and the key's count, else FORMAT in *we. */
static cuzk_status witness_fits(const ekey *k, wtns_file *w, const char *name, cuzk_err *we) {
  cuzk_status s = wtns_check_curve(w, we);
  if (s == CUZK_OK && w->n_witness != k->n_vars)
    s = cuzk_err_set(we, CUZK_FORMAT,
                     "%s: %llu values, but circuit %s has %s = %llu: a witness of another "
                     "circuit",
                     name, (unsigned long long)w->n_witness, k->id,
                     k->kind == EKEY_BP ? "1 + inputs + aux" : "nVars",
                     (unsigned long long)k->n_vars);
  return s;
}

/* Whether name is a relative path of components of letters, digits,
 * '.', '_' and '-', none empty, "." or "..": it cannot leave the
 * directory it is joined to but through a link. */
static bool safe_rel_path(const char *name) {
  if (!*name || *name == '/')
    return false;
  for (const char *c = name; *c;) {
    const char *end = strchr(c, '/');
    size_t n = end ? (size_t)(end - c) : strlen(c);
    if (!n || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
      return false;
    for (size_t i = 0; i < n; i++)
      if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= 'A' && c[i] <= 'Z') ||
            (c[i] >= '0' && c[i] <= '9') || c[i] == '.' || c[i] == '_' || c[i] == '-'))
        return false;
    c += n;
    if (*c == '/')
      c++;
    if (end && !*c)
      return false; /* a trailing '/' */
  }
  return true;
}

/* Opens witness file `name` under the engine's witness directory (its
 * real path, e->witness_dir): no link followed in the last component,
 * and the file opened must resolve inside the directory; a regular file. */
static cuzk_status open_witness_file(engine *e, const char *name, size_t i, int *fd,
                                     cuzk_err *err) {
  *fd = -1;
  if (!e->witness_dir)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "witness %zu: a witness file (%s) was named, but the engine has no "
                        "witness directory configured: send the witness bytes instead",
                        i, name);
  if (strlen(name) >= 1024 || !safe_rel_path(name))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "witness %zu: file name '%.200s' is not a relative path of letters, "
                        "digits, '.', '_' and '-' components (no '..', no leading '/', at most "
                        "1023 bytes)",
                        i, name);
  /* Each open witness file holds a descriptor until its partition ends:
   * at most wfiles_cap of them (half the process's limit), so that a flood
   * of queued jobs cannot take every descriptor the daemon has. */
  if (atomic_fetch_add(&e->wfiles_open, 1) >= e->wfiles_cap) {
    atomic_fetch_sub(&e->wfiles_open, 1);
    return cuzk_err_set(err, CUZK_EXHAUSTED,
                        "witness %zu: %lu witness files are held open by queued jobs already "
                        "(at most %lu: half the daemon's open-file limit); retry later",
                        i, (unsigned long)e->wfiles_cap, (unsigned long)e->wfiles_cap);
  }
  char path[4096 + 1024 + 2];
  snprintf(path, sizeof path, "%s/%s", e->witness_dir, name);
  int f = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (f < 0) {
    int er = errno;
    atomic_fetch_sub(&e->wfiles_open, 1);
    return cuzk_err_set(err, er == ENOENT ? CUZK_NOT_FOUND : CUZK_INVALID_ARGUMENT,
                        "witness %zu: cannot open %s: %s%s", i, path, strerror(er),
                        er == ELOOP ? " (a link: witness files are opened without following "
                                      "links)"
                                    : "");
  }
  struct stat sb;
  char real[4096] = "", proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", f);
  ssize_t n = readlink(proc, real, sizeof real - 1);
  if (n > 0)
    real[n] = 0;
  else if (!realpath(path, real))
    real[0] = 0;
  size_t dl = strlen(e->witness_dir);
  cuzk_status st = CUZK_OK;
  if (fstat(f, &sb) != 0 || !S_ISREG(sb.st_mode))
    st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "witness %zu: %s is not a regular file", i,
                      path);
  else if (strncmp(real, e->witness_dir, dl) != 0 || real[dl] != '/')
    st = cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                      "witness %zu: %s resolves to %s, outside the witness directory %s", i,
                      path, real[0] ? real : "an unknown path", e->witness_dir);
  if (st != CUZK_OK) {
    close(f);
    atomic_fetch_sub(&e->wfiles_open, 1);
    return st;
  }
  *fd = f;
  return CUZK_OK;
}

/* Partition i's witness file named in rq, opened and its header checked
 * (the values are read by the worker: worker.c stage_witness). */
static cuzk_status part_from_file(engine *e, const ekey *k, const engine_request *rq, size_t i,
                                  epart *p, cuzk_err *err) {
  CUZK_TRY(open_witness_file(e, rq->witness_file[i], i, &p->wfd, err));
  if (!(p->wname = malloc(strlen(rq->witness_file[i]) + 32)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory");
  sprintf(p->wname, "witness %zu (%s)", i, rq->witness_file[i]);
  cuzk_err we = {0};
  cuzk_status s = wtns_open_fd_header(&p->w, p->wfd, p->wname, &we);
  if (s == CUZK_OK)
    s = witness_fits(k, &p->w, p->wname, &we);
  if (s == CUZK_OK)
    s = file_ident_of_fd(&p->wident, p->wfd, p->wname, &we);
  return s == CUZK_OK ? CUZK_OK
                      : cuzk_err_set(err, s == CUZK_IO ? CUZK_IO : CUZK_FORMAT, "%s", we.msg);
}

/* Partition i's witness bytes carried in rq, copied and parsed. */
static cuzk_status part_from_bytes(const ekey *k, const engine_request *rq, size_t i, epart *p,
                                   cuzk_err *err) {
  size_t len = rq->witness_len[i]; /* > 0, and witness[i] set: check_request */
  if (!(p->wit = malloc(len)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "witness %zu: no memory for %zu bytes", i, len);
  if (len) /* an empty witness may come as NULL (protobuf-c's empty bytes) */
    memcpy(p->wit, rq->witness[i], len);
  p->wit_len = len;
  char name[64];
  snprintf(name, sizeof name, "witness %zu", i);
  cuzk_err we = {0};
  cuzk_status s = wtns_open_mem(&p->w, p->wit, len, name, &we);
  if (s == CUZK_OK && (s = witness_fits(k, &p->w, name, &we)) != CUZK_OK)
    wtns_close(&p->w);
  /* Every witness problem is a FORMAT error for the caller (wtns_open's
   * UNSUPPORTED version or prime included): the bytes are not a witness
   * this key can prove. */
  return s == CUZK_OK ? CUZK_OK : cuzk_err_set(err, CUZK_FORMAT, "%s", we.msg);
}

/* The job's partitions from its request's witness files or bytes (no
 * lock); on failure nothing is left open or allocated. */
static cuzk_status make_parts(engine *e, const ekey *k, const engine_request *rq, epart **out,
                              cuzk_err *err) {
  epart *parts = parts_new(rq->nparts);
  if (!parts)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for %zu partitions", rq->nparts);
  cuzk_status st = CUZK_OK;
  for (size_t i = 0; i < rq->nparts && st == CUZK_OK; i++)
    st = rq->witness_file ? part_from_file(e, k, rq, i, &parts[i], err)
                          : part_from_bytes(k, rq, i, &parts[i], err);
  if (st != CUZK_OK) {
    free_parts(e, parts, rq->nparts);
    return st;
  }
  *out = parts;
  return CUZK_OK;
}

static cuzk_status check_request(const engine_request *rq, cuzk_err *err) {
  if (!rq)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "no request");
  CUZK_TRY(check_id("request id", rq->request_id, true, err));
  CUZK_TRY(check_id("circuit id", rq->circuit_id, false, err));
  if (rq->nparts < 1)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "a request needs at least one witness");
  if (rq->nparts > 1u << 16)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%zu partitions (at most 65536)",
                        rq->nparts);
  if (rq->witness_file) {
    if (rq->witness || rq->witness_len)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "a request carries witness bytes or names witness files, not both");
    for (size_t i = 0; i < rq->nparts; i++)
      if (!rq->witness_file[i] || !*rq->witness_file[i])
        return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "witness file %zu has no name", i);
  } else if (!rq->witness || !rq->witness_len) {
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "no witness arrays");
  }
  for (size_t i = 0; !rq->witness_file && i < rq->nparts; i++) {
    if (!rq->witness_len[i])
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "witness %zu is empty (0 bytes): expected a .wtns image", i);
    if (!rq->witness[i])
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "witness %zu is NULL", i);
  }
  if ((unsigned)rq->priority > ENGINE_PRI_CRITICAL)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "priority %d is not 0..4", (int)rq->priority);
  return CUZK_OK;
}

/* UNAVAILABLE with the reason no worker is left (locked). */
static cuzk_status no_worker(const engine *e, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_UNAVAILABLE, "%s",
                      e->unavailable[0] ? e->unavailable : "no worker can prove any more");
}

static cuzk_status refuse(engine *e, cuzk_status st) {
  if (st != CUZK_OK && (unsigned)st < CUZK_STATUS_COUNT)
    e->errors[st]++;
  if (st == CUZK_EXHAUSTED)
    e->refused_exhausted++;
  return st;
}

static cuzk_status submit(engine *e, const engine_request *rq, engine_ticket *t, cuzk_err *err) {
  memset(t, 0, sizeof *t);
  cuzk_status st = check_request(rq, err);
  if (st != CUZK_OK) {
    pthread_mutex_lock(&e->mu);
    refuse(e, st);
    pthread_mutex_unlock(&e->mu);
    return st;
  }
  ekey *k;
  if ((st = keys_lookup(e, rq->circuit_id, &k, err)) != CUZK_OK) {
    pthread_mutex_lock(&e->mu);
    refuse(e, st);
    pthread_mutex_unlock(&e->mu);
    return st;
  }
  /* Only a request id can bring a job back (attachable), so only a
   * request with one needs its digest; the others keep zeros, which a
   * SHA-256 output matches with odds of 2^-256. */
  uint8_t digest[JOBS_DIGEST_BYTES] = {0};
  epart *parts = NULL;
  const bool want_json = rq->want_json;
  /* Witness files are opened and their headers checked first: a request
   * of files is identified by the files it opened. */
  if (st == CUZK_OK && rq->witness_file)
    st = make_parts(e, k, rq, &parts, err);
  if (st == CUZK_OK && rq->request_id && *rq->request_id)
    st = rq->witness_file ? jobs_files_digest(rq, parts, digest, err)
                          : jobs_request_digest(rq, digest, err);
  if (st != CUZK_OK) {
    if (parts)
      free_parts(e, parts, rq->nparts);
    pthread_mutex_lock(&e->mu);
    refuse(e, st);
    pthread_mutex_unlock(&e->mu);
    return st;
  }
  /* Bytes carried are charged now; files' values when a worker reads them. */
  uint64_t bytes = 0;
  for (size_t i = 0; !rq->witness_file && i < rq->nparts; i++) bytes += rq->witness_len[i];
  /* The witness copies, and the job with its results for as long as it
   * is known: both charged before either is made. */
  const uint64_t held = jobs_held_bytes(k, rq->nparts, want_json);

  /* First look: attach, or reserve the witness bytes. */
  pthread_mutex_lock(&e->mu);
  jobs_expire(e);
  if (!e->accepting) {
    st = cuzk_err_set(err, CUZK_UNAVAILABLE, "the engine is shutting down");
    goto refused;
  }
  if (!workers_serving(e)) {
    st = no_worker(e, err);
    goto refused;
  }
  ejob *j = attachable(e, rq, digest, &st, err);
  if (st != CUZK_OK)
    goto refused;
  if (j) {
    attach_ticket(e, j, t);
    pthread_mutex_unlock(&e->mu);
    if (parts)
      free_parts(e, parts, rq->nparts);
    return CUZK_OK;
  }
  jobs_reclaim(e, bytes + held);
  if (bytes + held > queue_room(e)) {
    st = cuzk_err_set(err, CUZK_EXHAUSTED,
                      "queue budget exhausted: %llu witness bytes and %llu for the job asked, "
                      "%llu of %llu in use; retry later",
                      (unsigned long long)bytes, (unsigned long long)held,
                      (unsigned long long)e->queue_used,
                      (unsigned long long)e->cfg.queue_budget_bytes);
    goto refused;
  }
  e->queue_used += bytes + held;
  e->witness_used += bytes;
  pthread_mutex_unlock(&e->mu);

  /* Without the lock: copy and parse. */
  j = calloc(1, sizeof *j);
  if (!j)
    st = cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for a job");
  else if (!parts)
    st = make_parts(e, k, rq, &parts, err);

  pthread_mutex_lock(&e->mu);
  if (st == CUZK_OK && !e->accepting)
    st = cuzk_err_set(err, CUZK_UNAVAILABLE, "the engine is shutting down");
  if (st == CUZK_OK && !workers_serving(e))
    st = no_worker(e, err); /* the last worker went while we parsed */
  ejob *other = NULL;
  if (st == CUZK_OK)
    other = attachable(e, rq, digest, &st, err); /* a same-id submit raced in */
  if (st != CUZK_OK || other) {
    e->queue_used -= bytes + held;
    e->witness_used -= bytes;
    if (other)
      attach_ticket(e, other, t);
    else
      refuse(e, st);
    pthread_mutex_unlock(&e->mu);
    if (parts)
      free_parts(e, parts, rq->nparts);
    free(j);
    return st;
  }
  j->seq = e->next_seq++;
  if (rq->request_id && *rq->request_id)
    snprintf(j->id, sizeof j->id, "%s", rq->request_id);
  else
    snprintf(j->id, sizeof j->id, "job-%016llx-%llu",
             (unsigned long long)(e->id_salt ^ (j->seq * 0x9e3779b97f4a7c15ULL)),
             (unsigned long long)j->seq);
  j->pri = rq->priority == ENGINE_PRI_UNSPECIFIED ? ENGINE_PRI_NORMAL : rq->priority;
  j->key = k;
  j->want_json = want_json;
  memcpy(j->digest, digest, JOBS_DIGEST_BYTES);
  j->nparts = rq->nparts;
  j->parts = parts;
  j->wit_bytes = bytes;
  j->held_bytes = held;
  j->state = ENGINE_JOB_QUEUED;
  j->t_submit = engine_now();
  /* A failed or cancelled job under this id is forgotten: the new one replaces it. */
  ejob *old = rq->request_id && *rq->request_id ? jobs_find(e, rq->request_id) : NULL;
  if (old)
    jobs_forget(e, old);
  if ((st = jobs_insert(e, j, err)) != CUZK_OK) {
    e->queue_used -= bytes + held;
    e->witness_used -= bytes;
    refuse(e, st);
    pthread_mutex_unlock(&e->mu);
    free_parts(e, parts, rq->nparts);
    free(j);
    return st;
  }
  snprintf(t->job_id, sizeof t->job_id, "%s", j->id);
  t->queue_position = sched_ahead(e, j->pri);
  joblog_accepted(e, j, rq->request_id, t->queue_position);
  sched_push(e, j);
  pthread_cond_broadcast(&e->work_cv);
  pthread_mutex_unlock(&e->mu);
  return CUZK_OK;

refused:
  refuse(e, st);
  pthread_mutex_unlock(&e->mu);
  if (parts)
    free_parts(e, parts, rq->nparts);
  return st;
}

cuzk_status engine_submit(engine *e, const engine_request *rq, engine_ticket *t, cuzk_err *err) {
  cuzk_err local = {0};
  if (!err)
    err = &local; /* the log line gives the reason */
  cuzk_status st = submit(e, rq, t, err);
  joblog_submitted(e, rq, t, st, err);
  return st;
}

/* ------------------------------------------------------------ await */

static char *dup_str(const char *s) { return s ? strdup(s) : NULL; }

/* The bytes fill_result copies out of a DONE job. */
static uint64_t result_bytes(const ejob *j) {
  uint64_t n = (uint64_t)j->nparts * GROTH16_PROOF_BYTES;
  if (j->want_json)
    for (size_t p = 0; p < j->nparts; p++)
      n += 2 * sizeof(char *) + (j->parts[p].proof_json ? strlen(j->parts[p].proof_json) + 1 : 0) +
           (j->parts[p].public_json ? strlen(j->parts[p].public_json) + 1 : 0);
  return n;
}

/* r from a finished job (locked).  The copies are charged to the queue
 * budget first (r->charged, given back by engine_result_free): EXHAUSTED
 * when they do not fit.  CUZK_NO_MEMORY when a copy fails. */
static cuzk_status fill_result(engine *e, const ejob *j, engine_result *r, cuzk_err *err) {
  r->state = j->state;
  r->nparts = j->nparts;
  if (j->state == ENGINE_JOB_FAILED) {
    r->job_status = j->status;
    snprintf(r->error, sizeof r->error, "%s", j->error);
  } else if (j->state == ENGINE_JOB_CANCELLED) {
    r->job_status = CUZK_CANCELLED;
    snprintf(r->error, sizeof r->error, "%s", j->error);
  }
  for (size_t p = 0; p < j->nparts; p++) engine_timings_add(&r->timings, &j->parts[p].tm);
  r->timings.total_ms = (uint64_t)((j->t_finish - j->t_submit) * 1000.0 + 0.5);
  if (j->state != ENGINE_JOB_DONE)
    return CUZK_OK;
  uint64_t need = result_bytes(j);
  if (need > queue_room(e))
    return cuzk_err_set(err, CUZK_EXHAUSTED,
                        "job '%s': no room in the queue budget for its result (%llu bytes; %llu of "
                        "%llu in use); retry later",
                        j->id, (unsigned long long)need, (unsigned long long)e->queue_used,
                        (unsigned long long)e->cfg.queue_budget_bytes);
  e->queue_used += need;
  r->owner = e;
  r->charged = need;
  r->proof_len = j->nparts * GROTH16_PROOF_BYTES;
  if (!(r->proof = malloc(r->proof_len)))
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the proof");
  for (size_t p = 0; p < j->nparts; p++)
    memcpy(r->proof + p * GROTH16_PROOF_BYTES, j->parts[p].proof, GROTH16_PROOF_BYTES);
  if (j->want_json) {
    /* a bellperson key's job has the public inputs' JSON only */
    const bool proofs = j->key->kind == EKEY_ZKEY;
    r->proof_json = proofs ? calloc(j->nparts, sizeof *r->proof_json) : NULL;
    r->public_json = calloc(j->nparts, sizeof *r->public_json);
    if ((proofs && !r->proof_json) || !r->public_json)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the JSON");
    for (size_t p = 0; p < j->nparts; p++) {
      if (proofs && !(r->proof_json[p] = dup_str(j->parts[p].proof_json)))
        return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the JSON");
      if (!(r->public_json[p] = dup_str(j->parts[p].public_json)))
        return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for the JSON");
    }
  }
  return CUZK_OK;
}

void engine_timings_add(engine_timings *sum, const engine_timings *t) {
  sum->queue_wait_ms += t->queue_wait_ms;
  sum->key_load_ms += t->key_load_ms;
  sum->prepare_ms += t->prepare_ms;
  sum->gpu_ms += t->gpu_ms;
  sum->finalize_ms += t->finalize_ms;
}

cuzk_status engine_await(engine *e, const char *job_id, uint64_t timeout_ms, engine_result *r,
                         cuzk_err *err) {
  memset(r, 0, sizeof *r);
  if (job_id)
    snprintf(r->job_id, sizeof r->job_id, "%s", job_id);
  struct timespec dl;
  engine_deadline(&dl, (double)timeout_ms / 1000.0);
  pthread_mutex_lock(&e->mu);
  jobs_expire(e);
  ejob *j = job_id ? jobs_find(e, job_id) : NULL;
  if (!j) {
    pthread_mutex_unlock(&e->mu);
    return cuzk_err_set(err, CUZK_NOT_FOUND, "no job '%s' (unknown, or expired)",
                        job_id ? job_id : "");
  }
  jobs_ref(j);
  cuzk_status st = CUZK_OK;
  while (!j->finished) {
    int rc = timeout_ms == ENGINE_NO_WAIT ? ETIMEDOUT
             : timeout_ms                 ? pthread_cond_timedwait(&e->done_cv, &e->mu, &dl)
                                          : pthread_cond_wait(&e->done_cv, &e->mu);
    if (rc == ETIMEDOUT && !j->finished) {
      r->state = jobs_state(j);
      r->nparts = j->nparts;
      st = cuzk_err_set(err, CUZK_TIMEOUT, "job '%s' still %s after %llu ms", j->id,
                        engine_job_state_name(r->state),
                        timeout_ms == ENGINE_NO_WAIT ? 0ull : (unsigned long long)timeout_ms);
      break;
    }
  }
  if (j->finished && (st = fill_result(e, j, r, err)) != CUZK_OK) {
    e->queue_used -= r->charged;
    r->owner = NULL, r->charged = 0;
    engine_result_free(r);
  } else if (j->finished && !j->collected && j->in_table) {
    j->collected = true;
    e->uncollected--;
    pthread_cond_broadcast(&e->done_cv); /* engine_wait_collected */
  }
  jobs_unref(e, j);
  pthread_mutex_unlock(&e->mu);
  return st;
}

cuzk_status engine_charge(engine *e, uint64_t bytes, uint64_t slack, cuzk_err *err) {
  pthread_mutex_lock(&e->mu);
  cuzk_status st = CUZK_OK;
  uint64_t limit = e->cfg.queue_budget_bytes + slack; /* queue_used + bytes must stay within */
  if (bytes > limit || e->queue_used > limit - bytes) {
    st = cuzk_err_set(err, CUZK_EXHAUSTED,
                      "queue budget exhausted: %llu bytes asked, %llu of %llu in use; retry later",
                      (unsigned long long)bytes, (unsigned long long)e->queue_used,
                      (unsigned long long)e->cfg.queue_budget_bytes);
    refuse(e, st);
  } else {
    e->queue_used += bytes;
  }
  pthread_mutex_unlock(&e->mu);
  return st;
}

void engine_uncharge(engine *e, uint64_t bytes) {
  pthread_mutex_lock(&e->mu);
  e->queue_used -= bytes;
  pthread_mutex_unlock(&e->mu);
}

uint64_t engine_queue_budget(const engine *e) { return e->cfg.queue_budget_bytes; }

void engine_result_free(engine_result *r) {
  if (!r)
    return;
  if (r->owner && r->charged)
    engine_uncharge(r->owner, r->charged);
  r->owner = NULL, r->charged = 0;
  for (size_t p = 0; p < r->nparts; p++) {
    if (r->proof_json)
      free(r->proof_json[p]);
    if (r->public_json)
      free(r->public_json[p]);
  }
  free(r->proof_json);
  free(r->public_json);
  free(r->proof);
  r->proof = NULL, r->proof_json = r->public_json = NULL;
  r->proof_len = 0;
}

/* ------------------------------------------------------------ cancel */

cuzk_status engine_cancel(engine *e, const char *job_id, bool *was_running, cuzk_err *err) {
  bool running = false;
  pthread_mutex_lock(&e->mu);
  jobs_expire(e);
  ejob *j = job_id ? jobs_find(e, job_id) : NULL;
  if (!j) {
    pthread_mutex_unlock(&e->mu);
    if (was_running)
      *was_running = false;
    return cuzk_err_set(err, CUZK_NOT_FOUND, "no job '%s' (unknown, or expired)",
                        job_id ? job_id : "");
  }
  if (!j->finished) {
    running = j->next_part > 0;
    jobs_finish(e, j, ENGINE_JOB_CANCELLED, CUZK_CANCELLED, "cancelled by request");
  }
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);
  if (was_running)
    *was_running = running;
  return CUZK_OK;
}
