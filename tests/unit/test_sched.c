/* engine/sched.c: the order sched_each_untaken walks (what the witness
 * read-ahead reads first) is the order sched_take takes, through random
 * submissions of every priority, takes, requeues of taken partitions and
 * removals; and the walk visits exactly the partitions no worker holds.
 * sched_take_ranked (a GPU slot's take beside other GPUs) against its
 * definition. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine_impl.h"

#define NJOBS 24
#define MAXP 5

typedef struct {
  size_t n;
  ejob *j[NJOBS * MAXP];
  size_t p[NJOBS * MAXP];
} walk;

static bool record(void *ctx, ejob *j, size_t p) {
  walk *w = ctx;
  w->j[w->n] = j, w->p[w->n] = p;
  w->n++;
  return false; /* the whole order */
}

static uint64_t rng_next(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* An engine of empty queues with room for NJOBS jobs of MAXP parts. */
static engine *world(ejob **jobs, epart **parts) {
  engine *e = calloc(1, sizeof *e);
  *jobs = calloc(NJOBS, sizeof **jobs);
  *parts = calloc(NJOBS * MAXP, sizeof **parts);
  CHECK(e && *jobs && *parts);
  pthread_cond_init(&e->ra_cv, NULL);
  return e;
}

static void world_free(engine *e, ejob *jobs, epart *parts) {
  pthread_cond_destroy(&e->ra_cv);
  free(e), free(jobs), free(parts);
}

TEST(walk_is_take_order) {
  for (uint64_t seed = 1; seed <= 200; seed++) {
    ejob *jobs;
    epart *parts;
    engine *e = world(&jobs, &parts);
    bool taken[NJOBS][MAXP] = {{false}};
    size_t njobs = 0;
    uint64_t s = seed;
    for (int step = 0; step < 120; step++) {
      const unsigned op = (unsigned)(rng_next(&s) % 4);
      if (op == 0 && njobs < NJOBS) { /* submit */
        ejob *j = &jobs[njobs];
        j->seq = njobs;
        j->pri = (engine_priority)(ENGINE_PRI_LOW + rng_next(&s) % (ENGINE_NPRI - 1));
        j->nparts = 1 + rng_next(&s) % MAXP;
        j->parts = &parts[njobs * MAXP];
        njobs++;
        sched_push(e, j);
      } else if (op == 1) { /* a worker takes the next: the walk's first */
        walk w = {0};
        sched_each_untaken(e, record, &w);
        size_t p = 0;
        ejob *j = sched_take(e, &p);
        CHECK((j == NULL) == (w.n == 0));
        if (!j)
          continue;
        CHECK_MSG(w.j[0] == j && w.p[0] == p, "seed %llu: walk starts at job %llu part %zu, "
                  "take gave job %llu part %zu", (unsigned long long)seed,
                  (unsigned long long)w.j[0]->seq, w.p[0], (unsigned long long)j->seq, p);
        CHECK(!taken[j->seq][p]);
        taken[j->seq][p] = true;
      } else if (op == 2) { /* a lost GPU hands a taken partition back */
        for (size_t k = 0; k < njobs; k++) {
          ejob *j = &jobs[(k + rng_next(&s)) % njobs];
          size_t p = rng_next(&s) % j->nparts;
          if (taken[j->seq][p] && !j->finished) {
            taken[j->seq][p] = false;
            sched_requeue(e, j, p);
            break;
          }
        }
      } else if (njobs && rng_next(&s) % 4 == 0) { /* a job ends (cancel) */
        ejob *j = &jobs[rng_next(&s) % njobs];
        if (!j->finished) {
          sched_remove(e, j);
          j->finished = true;
          for (size_t p = 0; p < j->nparts; p++) {
            j->parts[p].requeued = false;
            taken[j->seq][p] = true; /* never taken again */
          }
          j->nrequeued = 0;
          j->next_part = j->nparts;
        }
      }
      /* the walk: every partition neither taken nor ended, once each */
      walk w = {0};
      sched_each_untaken(e, record, &w);
      size_t want = 0;
      for (size_t k = 0; k < njobs; k++)
        for (size_t p = 0; p < jobs[k].nparts; p++) want += !taken[k][p];
      CHECK_MSG(w.n == want, "seed %llu step %d: the walk visits %zu partitions, %zu untaken",
                (unsigned long long)seed, step, w.n, want);
      for (size_t i = 0; i < w.n; i++) CHECK(!taken[w.j[i]->seq][w.p[i]]);
    }
    /* draining by takes follows the walk to the end */
    walk w = {0};
    sched_each_untaken(e, record, &w);
    for (size_t i = 0; i < w.n; i++) {
      size_t p = 0;
      ejob *j = sched_take(e, &p);
      CHECK(j == w.j[i] && p == w.p[i]);
    }
    size_t p;
    CHECK(sched_take(e, &p) == NULL);
    world_free(e, jobs, parts);
  }
}

/* The walk stops where fn says so. */
static bool stop_at_third(void *ctx, ejob *j, size_t p) {
  (void)j, (void)p;
  return ++*(unsigned *)ctx == 3;
}

TEST(walk_stops) {
  engine *e = calloc(1, sizeof *e);
  ejob j = {.pri = ENGINE_PRI_NORMAL, .nparts = 5};
  epart parts[5];
  memset(parts, 0, sizeof parts);
  j.parts = parts;
  CHECK(e);
  pthread_cond_init(&e->ra_cv, NULL);
  sched_push(e, &j);
  unsigned seen = 0;
  CHECK(sched_each_untaken(e, stop_at_third, &seen));
  CHECK_EQ_INT(seen, 3);
  seen = 0;
  size_t p;
  for (int i = 0; i < 3; i++) CHECK(sched_take(e, &p) == &j);
  CHECK(!sched_each_untaken(e, stop_at_third, &seen)); /* two left: never told to stop */
  CHECK_EQ_INT(seen, 2);
  pthread_cond_destroy(&e->ra_cv);
  free(e);
}

/* sched_take_ranked against its definition: per priority from the
 * highest, the oldest job of the highest rank above 0 (random ranks per
 * job), rank-0 jobs never; the taken job's next partition. */
static int rank_of(void *ctx, const ejob *j) { return ((const int *)ctx)[j->seq]; }

TEST(ranked_take) {
  for (uint64_t seed = 1; seed <= 200; seed++) {
    ejob *jobs;
    epart *parts;
    engine *e = world(&jobs, &parts);
    uint64_t s = seed;
    int rank[NJOBS];
    for (size_t i = 0; i < NJOBS; i++) {
      ejob *j = &jobs[i];
      j->seq = i;
      j->pri = (engine_priority)(ENGINE_PRI_LOW + rng_next(&s) % (ENGINE_NPRI - 1));
      j->nparts = 1 + rng_next(&s) % MAXP;
      j->parts = &parts[i * MAXP];
      sched_push(e, j);
    }
    for (int step = 0; step < 200; step++) {
      for (size_t i = 0; i < NJOBS; i++) rank[i] = (int)(rng_next(&s) % 4);
      /* the reference: the best (priority, rank, -seq) among queued jobs */
      const ejob *want = NULL;
      int want_r = 0;
      for (int p = ENGINE_PRI_CRITICAL; p >= ENGINE_PRI_LOW && !want; p--)
        for (size_t i = 0; i < NJOBS; i++) {
          const ejob *j = &jobs[i];
          if (j->in_queue && (int)j->pri == p && rank[i] > want_r)
            want = j, want_r = rank[i];
        }
      const size_t next = want ? want->next_part : 0;
      size_t part = 99;
      ejob *got = sched_take_ranked(e, &part, rank_of, rank);
      CHECK_MSG(got == want, "seed %llu step %d: took job %lld, the definition says %lld",
                (unsigned long long)seed, step, got ? (long long)got->seq : -1LL,
                want ? (long long)want->seq : -1LL);
      if (got)
        CHECK_EQ_INT(part, next);
    }
    world_free(e, jobs, parts);
  }
}
