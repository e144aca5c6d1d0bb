/* The per-job log lines, at INFO through engine_config.log: a submission
 * accepted (job id, circuit, partitions, priority, request id, witness
 * bytes), attached to a known job or refused (with the reason); each
 * partition started (on which GPU slot or CPU worker); the job done,
 * failed or cancelled (the reason, and its timings).  Witnesses appear
 * only as byte counts: never a value, so a log can be shared.
 *
 * DESIGN: engine_config.log is never called with the engine's lock held
 * (it may block on a full pipe), yet a job's lines are decided under it:
 * it is accepted where it becomes visible to the workers, and it ends in
 * jobs_finish, from a worker, a cancel, shutdown or a lost last GPU.  So
 * every line is formatted under the lock into a queue on the engine
 * (e->log_head), in the order of the events, and joblog_flush writes it,
 * called by each of those places once it has dropped the lock.  Flushes
 * are serialized by e->log_mu, so lines come out in queue order: a job's
 * "accepted" before its "started", which comes before its "done".  The
 * engine's other lines decided under the lock (a GPU lost, a partition
 * retried, the CPU fallback, a corrupt key) take the same queue
 * (engine_log_queued), so they keep their place among the job lines. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

struct joblog_line {
  struct joblog_line *next;
  engine_log_level level;
  char text[];
};

static void queue_va(engine *e, engine_log_level level, const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  struct joblog_line *l = n < 0 ? NULL : malloc(sizeof *l + (size_t)n + 1);
  if (!l)
    return; /* out of memory: the line is lost, the job is not */
  vsnprintf(l->text, (size_t)n + 1, fmt, ap);
  l->level = level;
  l->next = NULL;
  if (e->log_tail)
    e->log_tail->next = l;
  else
    e->log_head = l;
  e->log_tail = l;
}

void engine_log_queued(engine *e, engine_log_level level, const char *fmt, ...) {
  if (!e->cfg.log)
    return;
  va_list ap;
  va_start(ap, fmt);
  queue_va(e, level, fmt, ap);
  va_end(ap);
}

/* An INFO line of a job (e->mu held). */
__attribute__((format(printf, 2, 3))) static void queue_line(engine *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  queue_va(e, ENGINE_LOG_INFO, fmt, ap);
  va_end(ap);
}

/* An id as it may be printed: control characters (which check_id refuses,
 * but a refused request may carry) as '?', at most ENGINE_ID_MAX - 1 bytes. */
static const char *printable(char out[ENGINE_ID_MAX], const char *id) {
  size_t i = 0;
  for (; id && id[i] && i < ENGINE_ID_MAX - 1; i++)
    out[i] = (unsigned char)id[i] < 0x20 || id[i] == 0x7f ? '?' : id[i];
  out[i] = 0;
  return out;
}

static const char *plural(size_t n) { return n == 1 ? "" : "s"; }

void joblog_accepted(engine *e, const ejob *j, const char *request_id, uint32_t ahead) {
  if (!e->cfg.log)
    return;
  char rid[ENGINE_ID_MAX];
  queue_line(e,
             "job %s accepted: circuit %s, %zu partition%s, priority %s, request id \"%s\", "
             "%llu witness bytes, %u job%s ahead",
             j->id, j->key->id, j->nparts, plural(j->nparts), engine_priority_name(j->pri),
             printable(rid, request_id), (unsigned long long)j->wit_bytes, ahead, plural(ahead));
}

void joblog_submitted(engine *e, const engine_request *rq, const engine_ticket *t,
                      cuzk_status st, const cuzk_err *err) {
  if (!e->cfg.log)
    return;
  if (st == CUZK_OK && !t->attached) {
    joblog_flush(e); /* its line was queued as it was accepted */
    return;
  }
  char circuit[ENGINE_ID_MAX], rid[ENGINE_ID_MAX];
  printable(circuit, rq ? rq->circuit_id : NULL);
  printable(rid, rq ? rq->request_id : NULL);
  size_t nparts = rq ? rq->nparts : 0;
  uint64_t bytes = 0;
  for (size_t i = 0; rq && rq->witness_len && i < nparts && i <= 1u << 16; i++)
    bytes += rq->witness_len[i];
  pthread_mutex_lock(&e->mu);
  if (st != CUZK_OK)
    queue_line(e,
               "submission refused: circuit %s, request id \"%s\", %zu partition%s, %llu "
               "witness bytes: %s: %s",
               circuit, rid, nparts, plural(nparts), (unsigned long long)bytes,
               cuzk_status_name(st), err ? err->msg : "");
  else
    queue_line(e,
               "job %s: request id \"%s\" is known: attached to that job (circuit %s), nothing "
               "proved again",
               t->job_id, rid, circuit);
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);
}

void joblog_started(engine *e, const eworker *w, const ejob *j, size_t p, double load_s) {
  if (!e->cfg.log)
    return;
  char where[48];
  if (w->gpu)
    snprintf(where, sizeof where, "gpu %d slot %u", w->ordinal, w->slot);
  else
    snprintf(where, sizeof where, "cpu worker %u", w->index);
  pthread_mutex_lock(&e->mu);
  queue_line(e, "job %s partition %zu of %zu started on %s (%.3f s in the queue, key load %.3f s)",
             j->id, p, j->nparts, where, (double)j->parts[p].tm.queue_wait_ms / 1000.0, load_s);
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);
}

void joblog_finished(engine *e, const ejob *j) {
  if (!e->cfg.log)
    return;
  uint64_t queue = 0, load = 0, prove = 0, verify = 0;
  for (size_t p = 0; p < j->nparts; p++) {
    const engine_timings *t = &j->parts[p].tm;
    queue += t->queue_wait_ms;
    load += t->key_load_ms;
    prove += t->prepare_ms + t->gpu_ms;
    verify += t->finalize_ms;
  }
  const bool done = j->state == ENGINE_JOB_DONE;
  queue_line(e,
             "job %s %s: circuit %s, %zu partition%s%s%s; queue %.3f s, key load %.3f s, "
             "prove %.3f s, verify %.3f s%s, total %.3f s",
             j->id, engine_job_state_name(j->state), j->key->id, j->nparts, plural(j->nparts),
             done ? "" : "; ", done ? "" : j->error, (double)queue / 1000.0,
             (double)load / 1000.0, (double)prove / 1000.0, (double)verify / 1000.0,
             j->nparts > 1 ? " (summed over partitions)" : "", j->t_finish - j->t_submit);
}

void joblog_flush(engine *e) {
  if (!e->cfg.log)
    return;
  pthread_mutex_lock(&e->log_mu);
  pthread_mutex_lock(&e->mu);
  struct joblog_line *l = e->log_head;
  e->log_head = e->log_tail = NULL;
  pthread_mutex_unlock(&e->mu);
  while (l) {
    struct joblog_line *next = l->next;
    e->cfg.log(e->cfg.log_ctx, l->level, l->text);
    free(l);
    l = next;
  }
  pthread_mutex_unlock(&e->log_mu);
}

void joblog_free(engine *e) {
  for (struct joblog_line *l = e->log_head, *next; l; l = next) {
    next = l->next;
    free(l);
  }
  e->log_head = e->log_tail = NULL;
}
