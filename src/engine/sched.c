/* The scheduler: which partition a free worker proves next.
 *
 * DESIGN: one FIFO list of jobs per priority (LOW .. CRITICAL), each job
 * appended at submission, so a list's order is submission order and
 * "priority, then age" is: the head of the highest non-empty list.  A job
 * stays in its list while it has partitions no worker has taken; a worker
 * takes them one at a time, in index order, so the partitions of one job
 * spread over free workers while a job of higher priority submitted later
 * still goes first at the next take.  Running work is never preempted.
 * Removal is O(1) (doubly linked), which cancel and failure use.  A
 * partition whose GPU was lost under it is requeued (worker.c): it is taken
 * again before the job's untaken ones, and a job that had left its list
 * goes back at its submission-order place, so the retry is not sent behind
 * work submitted after it.  A GPU slot beside other GPUs ranks the jobs of
 * a priority by where their keys are resident (sched_take_ranked,
 * worker.c take_rank): the order within a priority then depends on the
 * slot, never the order between priorities.  A job is in its list exactly while it is
 * unfinished and has a partition to take (untaken or requeued).  The
 * witness read-ahead (readahead.c) walks the untaken partitions in the
 * order they will be taken (sched_each_untaken) and is woken when that
 * order gains one.  All functions run with engine.mu held. */
#include "engine/engine_impl.h"

void sched_push(engine *e, ejob *j) {
  elist_push(&e->queue[j->pri], j, offsetof(ejob, q));
  j->in_queue = true;
  pthread_cond_broadcast(&e->ra_cv); /* the read-ahead looks at the queue again */
}

void sched_remove(engine *e, ejob *j) {
  if (!j->in_queue)
    return;
  elist_remove(&e->queue[j->pri], j, offsetof(ejob, q));
  j->in_queue = false;
}

/* The next partition of queued job j (a requeued one first). */
static ejob *take_part(engine *e, ejob *j, size_t *part) {
  if (j->nrequeued) {
    size_t i = 0;
    while (!j->parts[i].requeued) i++; /* one is, below next_part */
    j->parts[i].requeued = false;
    j->nrequeued--;
    *part = i;
  } else {
    *part = j->next_part++;
  }
  if (j->next_part >= j->nparts && !j->nrequeued)
    sched_remove(e, j);
  return j;
}

ejob *sched_take_ranked(engine *e, size_t *part, int (*rank)(void *ctx, const ejob *j),
                        void *ctx) {
  for (int p = ENGINE_PRI_CRITICAL; p >= ENGINE_PRI_LOW; p--) {
    ejob *best = NULL;
    int best_r = 0;
    for (ejob *j = e->queue[p].head; j && best_r < SCHED_RANK_BEST; j = j->q.next) {
      const int r = rank(ctx, j);
      if (r > best_r)
        best = j, best_r = r;
    }
    if (best)
      return take_part(e, best, part);
  }
  return NULL;
}

static int rank_any(void *ctx, const ejob *j) {
  (void)ctx, (void)j;
  return SCHED_RANK_BEST;
}

ejob *sched_take(engine *e, size_t *part) { return sched_take_ranked(e, part, rank_any, NULL); }

ejob *sched_take_express(engine *e, size_t *part, unsigned max_lg) {
  for (int p = ENGINE_PRI_CRITICAL; p >= ENGINE_PRI_HIGH; p--)
    for (ejob *j = e->queue[p].head; j; j = j->q.next)
      if (j->key->lg_domain <= max_lg)
        return take_part(e, j, part);
  return NULL;
}

void sched_requeue(engine *e, ejob *j, size_t p) {
  epart *pt = &j->parts[p];
  pt->requeued = true;
  pt->state = ENGINE_JOB_QUEUED;
  j->nrequeued++;
  pthread_cond_broadcast(&e->ra_cv);
  if (j->in_queue)
    return;
  elist *l = &e->queue[j->pri];
  ejob *at = l->head;
  while (at && at->seq < j->seq) at = at->q.next;
  elist_insert_before(l, j, at, offsetof(ejob, q));
  j->in_queue = true;
}

bool sched_each_untaken(engine *e, bool (*fn)(void *ctx, ejob *j, size_t p), void *ctx) {
  for (int pri = ENGINE_PRI_CRITICAL; pri >= ENGINE_PRI_LOW; pri--)
    for (ejob *j = e->queue[pri].head; j; j = j->q.next) {
      for (size_t i = 0; j->nrequeued && i < j->next_part; i++) /* take_part's order */
        if (j->parts[i].requeued && fn(ctx, j, i))
          return true;
      for (size_t i = j->next_part; i < j->nparts; i++)
        if (fn(ctx, j, i))
          return true;
    }
  return false;
}

uint32_t sched_ahead(const engine *e, engine_priority pri) {
  size_t n = 0;
  for (int p = ENGINE_PRI_CRITICAL; p >= (int)pri && p >= ENGINE_PRI_LOW; p--)
    n += e->queue[p].n;
  return (uint32_t)n;
}
