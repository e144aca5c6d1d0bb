/* The engine's internal types, shared by its files (engine.h is the API):
 *   engine.c   config, start and shutdown, submit, await, cancel
 *   jobs.c     the job table (ids, request ids), job lifetime and expiry
 *   sched.c    the priority queues of partitions waiting for a worker
 *   keys.c     key residency: tiers, host budget, LRU eviction, preload/evict
 *   worker.c   the proving workers (CPU backends, GPU slots)
 *   status.c   status snapshots and the Prometheus text
 *   keycheck.c a loaded key's point check, once, when a proof with it fails
 *   joblog.c   the per-job log lines
 *
 * DESIGN: one mutex, engine.mu, guards every field below that is not
 * marked otherwise; three condition variables wait on it: work_cv
 * (workers: a partition to take, pause or shutdown), done_cv (awaiters and
 * shutdown: a job finished, a worker exited) and key_cv (loaders: a key
 * finished loading or was released, room was made).  The lock is never held
 * across a proof, a key load or unload, a witness parse or copy, the test
 * hook, or any backend call: those run on the calling or worker thread with
 * the lock dropped, on objects a reference keeps alive (a job's refs, a
 * key's refs) - except the CPU fallback's start after the last GPU is lost
 * (worker.c: an allocation and pthread_create), nor across a log line.
 * The one other lock, engine.log_mu, serializes the writing of the job
 * log (joblog.c); it is taken without mu and holds mu only briefly inside
 * (lock order: log_mu, then mu).
 *
 * Lifetimes: a job is owned by its references: the table's (from submit to
 * expiry), one per awaiter while it waits, one per worker while it proves
 * one of its partitions; the last unref frees it.  A key entry lives as
 * long as the engine; what it holds (its copy of the file) lives while
 * its tier is above DISK, and is never dropped while refs > 0 (partitions
 * proving with it) or while it is loading. */
#ifndef CUZK_ENGINE_ENGINE_IMPL_H
#define CUZK_ENGINE_ENGINE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "engine/engine.h"
#include "base/mapfile.h"
#include "groth16/key.h"
#include "groth16/proof.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

#define JOBS_DIGEST_BYTES 32  /* SHA-256: jobs_request_digest */
#define ENGINE_NPRI 5          /* priority lists, indexed by engine_priority (0 unused) */
#define ENGINE_SLOT_HOLDS 2    /* keys a GPU slot keeps resident at once (worker.c hold_take):
                                  a stream's and a CRITICAL job's */

/* ------------------------------------------------------------ keys */

/* A loaded key's point check (keycheck.c). */
typedef enum { KEY_POINTS_UNCHECKED, KEY_POINTS_CHECKING, KEY_POINTS_GOOD, KEY_POINTS_BAD } key_points;

typedef struct ekey ekey;
/* What a key is (engine_circuit): a snarkjs .zkey, or a bellperson
 * .params with its PCE (read from files, or given in memory). */
typedef enum { EKEY_ZKEY, EKEY_BP } ekey_kind;

struct ekey {
  char id[ENGINE_ID_MAX];
  char path[4096];
  ekey_kind kind;
  char pce_path[4096];  /* EKEY_BP: the PCE file */
  bool trusted;         /* EKEY_BP: .params read without point checks */
  bool in_memory;       /* EKEY_BP from engine_circuit.bp_mem: always loaded, never stale */
  bool registered;      /* from the config (else found in param_dir) */
  uint64_t file_bytes;  /* what it costs the host budget when above DISK */
  /* The key's shape, read once when the key became known. */
  uint64_t n_vars, n_public, domain_size;
  unsigned lg_domain;
  uint64_t n_aux, n_a, n_b; /* EKEY_BP: aux variables and the a and b queries' lengths (the
                               PCE's counts: what a GPU slot reserves for) */

  engine_tier tier; /* DISK, MAPPED or PINNED: the host tier (device holds aside) */
  bool loading;     /* a thread is loading it: its bytes are reserved */
  /* tier >= MAPPED: the key as the prover takes it (groth16/key.h), what
   * the workers and the point check use: an owning key over mem
   * (EKEY_ZKEY: groth16_key_open_zkey_mem) or over the .params and PCE read
   * by the load (EKEY_BP: groth16_key_read_bp), or a view of the caller's
   * in-memory key (in_memory). */
  groth16_key key;
  file_ident pce_ident; /* EKEY_BP: the PCE file as it was when read */
  void *mem;        /* tier >= MAPPED: the engine's own copy of the file's bytes */
  bool mem_dev;     /* mem came from backend_device_host_alloc (else mmap) */
  bool locked;      /* mem is mlock'ed */
  /* The file the copy was read from, as it was when read (tier >= MAPPED);
   * a key whose file no longer matches is stale: new users wait until the
   * old copy's users are done, then it is unloaded and read again.
   * stale_why says what changed (for the log and a failed reload). */
  file_ident ident;
  bool stale;
  char stale_why[192];
  uint32_t refs;    /* partitions proving with it now, plus one per hold */
  uint32_t holds;   /* GPU slots holding it (all devices; a device's slots share one copy) */
  uint64_t device_bytes; /* what its resident copy costs a device's budget (once per device) */
  /* EKEY_BP: what the copy's value tables save against the PCE's values
   * (keys_count_tables), valid while the PCE is the file tables_ident
   * names (tables_known); 0 otherwise: device_bytes then counts them whole. */
  uint64_t table_saving;
  bool tables_known;
  file_ident tables_ident;
  bool evict_pending;    /* engine_evict while in use: drop when released */
  double last_used;      /* monotonic seconds of the last release (or load) */
  /* Whether zk's points are valid: checked when a proof with it first
   * fails verification, then kept until the key is unloaded (a reload may
   * map another file).  BAD: points_msg names the point. */
  key_points points;
  char points_msg[CUZK_ERR_MSG_MAX];

  /* Counters for status and metrics. */
  uint64_t loads, evictions;
  double load_s;
  uint64_t done, failed, cancelled, parts_proved;
  double proof_s;            /* sum of job wall times (done jobs) */
  ekey *next;                /* the engine's key list */
};

/* ------------------------------------------------------------ jobs */

/* Intrusive doubly linked lists of jobs: a job holds one elink per list it
 * can be on, found at a byte offset (offsetof(ejob, member)). */
typedef struct ejob ejob;
typedef struct {
  ejob *prev, *next;
} elink;
typedef struct {
  ejob *head, *tail;
  size_t n;
} elist;

typedef struct {
  engine_job_state state; /* QUEUED, PREPARING, PROVING, FINALIZING, DONE; FAILED/CANCELLED when dropped */
  bool requeued;          /* back in the queue after its GPU was lost, not taken again yet */
  bool retried;           /* it was requeued once: a second loss fails the job */
  uint8_t *wit;           /* the copied .wtns image, freed when the partition ends */
  size_t wit_len;
  wtns_file w;            /* parsed over wit (bytes), or its header (a file: values NULL) */
  /* A witness file (engine_request.witness_file): its descriptor from
   * submit until the partition ends (-1 for none: parts_new), its
   * identity then and its name for messages; its values start at
   * w.values_at, and the worker reads them when it starts the partition. */
  int wfd;
  file_ident wident;
  char *wname;
  /* A witness file's values read by a worker without staging memory (a
   * CPU worker): the partition's working memory, like the prover's own
   * vectors, outside the budgets (at most one per worker at a time);
   * freed with the witness (jobs_drop_witness), kept for a retry. */
  uint8_t *wcopy;
  /* The read-ahead buffer holding or reading its values (readahead.c),
   * while it is untaken, or taken and not yet begun; ra_failed: the
   * reader could not read it (the worker reads it itself and says why). */
  struct ewbuf *ra;
  bool ra_failed;
  uint8_t proof[GROTH16_PROOF_BYTES];
  char *proof_json, *public_json;
  engine_timings tm;
} epart;

struct ejob {
  char id[ENGINE_ID_MAX];
  uint64_t seq;           /* submission order */
  engine_priority pri;    /* LOW .. CRITICAL */
  ekey *key;
  bool want_json;
  uint8_t digest[JOBS_DIGEST_BYTES]; /* jobs_request_digest: a repeated request id must match it */
  size_t nparts;
  epart *parts;
  size_t next_part;       /* first partition no worker has taken */
  size_t nrequeued;       /* partitions below next_part that are requeued */
  size_t nrunning, ndone; /* partitions on a worker now; proved */
  uint64_t wit_bytes;     /* witness bytes still held (count in queue_used) */
  uint64_t held_bytes;    /* the job itself, its partitions and their JSON at most
                             (jobs_held_bytes): in queue_used from submit until freed */

  bool finished;          /* DONE, FAILED or CANCELLED: final */
  engine_job_state state; /* the final state once finished */
  cuzk_stop stop;         /* set once: running partitions stop within a chunk of work */
  cuzk_status status;     /* FAILED: the failing partition's status */
  char error[CUZK_ERR_MSG_MAX];
  double t_submit, t_finish;

  bool collected;         /* an engine_await returned its final result (engine.uncollected) */
  uint32_t refs;
  bool in_table;
  ejob *hnext;               /* hash chain */
  elink q;                   /* priority list, while queued */
  bool in_queue;
  elink f;                   /* finished list (oldest first), for expiry */
  elink l;                   /* live list (unfinished), for status and shutdown */
};

static inline elink *elink_at(ejob *j, size_t off) { return (elink *)(void *)((char *)j + off); }

/* Links j before `at` (a member of l), or at the tail when at is NULL. */
static inline void elist_insert_before(elist *l, ejob *j, ejob *at, size_t off) {
  elink *k = elink_at(j, off);
  k->next = at;
  k->prev = at ? elink_at(at, off)->prev : l->tail;
  if (k->prev)
    elink_at(k->prev, off)->next = j;
  else
    l->head = j;
  if (at)
    elink_at(at, off)->prev = j;
  else
    l->tail = j;
  l->n++;
}

static inline void elist_push(elist *l, ejob *j, size_t off) { elist_insert_before(l, j, NULL, off); }

static inline void elist_remove(elist *l, ejob *j, size_t off) {
  elink *k = elink_at(j, off);
  if (k->prev)
    elink_at(k->prev, off)->next = k->next;
  else
    l->head = k->next;
  if (k->next)
    elink_at(k->next, off)->prev = k->prev;
  else
    l->tail = k->prev;
  k->prev = k->next = NULL;
  l->n--;
}

/* ------------------------------------------------------------ workers */

typedef struct {
  struct engine *e;
  unsigned index;
  bool gpu;
  int ordinal;          /* GPU ordinal, or -1 */
  unsigned slot;        /* GPU: its index among its device's slots */
  bool express;         /* GPU: the device's express slot (engine_config.express_max_lg) */
  backend *be;          /* GPU: made by the slot's own thread at start */
  uint64_t host_bytes;  /* GPU: its backend's page-locked vectors and staging, in keys_used
                           while the backend lives (slot_plan, slot_host_release) */
  pthread_t thread;
  bool started;
  /* GPU start-up handshake (worker.c): the slot thread binds its device,
   * makes its backend and plans its memory, then sets planned (and
   * plan_status, plan_msg on failure) and signals done_cv. */
  bool planned;
  cuzk_status plan_status;
  char plan_msg[CUZK_ERR_MSG_MAX];
  bool retired;         /* planning failed: the thread has exited, no proofs */
  bool lost;            /* its GPU was lost: it left its loop, freed its backend, ended */
  bool exited;          /* it left its loop (shutdown, or its GPU lost): takes no work */
  ejob *job;            /* the job of the partition it proves, or NULL */
  double busy_s;        /* seconds it held partitions, finished ones (metrics) */
  double busy_since;    /* engine_now() when it took the current partition */
  /* GPU: the keys whose bases its backend holds (written by the slot's
   * thread with the lock held, so others read them locked) */
  ekey *held[ENGINE_SLOT_HOLDS];
  unsigned nheld;
  engine_span *spans;   /* record_timeline: its backend's spans, oldest first */
  size_t nspans, spans_cap;
} eworker;

typedef struct {
  int ordinal;
  char name[64];
  uint64_t vram_total, budget;
  uint64_t used;                     /* device_bytes of each key its slots hold, once each */
  uint64_t vram_free_planned;        /* free memory after its slots were planned */
  uint64_t copy_reserve;             /* room planned for one resident copy (keys_on_device) */
  bool resident;                     /* keys_on_device and BACKEND_CAP_RESIDENT: slots hold keys */
  backend_store *store;              /* the resident copies its slots share (made before
                                        them, freed after them: engine_free) */
  unsigned slots;                    /* slots planned (K, or fewer when K did not fit) */
  bool express;                      /* and its express slot planned */
  char note[160];                    /* why it has fewer slots than asked, or "" */
  bool lost;                         /* a sticky CUDA error: out of service for good */
  char lost_reason[CUZK_ERR_MSG_MAX]; /* the error that lost it */
  unsigned lost_live;                /* its slots that have not freed their backends yet */
} edevice;

/* ------------------------------------------------------------ read-ahead */

/* A read-ahead buffer (readahead.c): FREE in the pool; READING the
 * values of the partition whose epart.ra it is, by the reader, which holds
 * a reference on its job; READY holding them, checked; TAKEN by the worker
 * that begins the partition, until it gives a buffer back (its old
 * staging, or this one).  abandoned: the partition's witness was dropped
 * while READING, so the reader frees it. */
typedef enum { EWBUF_FREE, EWBUF_READING, EWBUF_READY, EWBUF_TAKEN } ewbuf_state;
typedef struct ewbuf {
  uint8_t *p;
  size_t bytes;
  ewbuf_state state;
  bool abandoned;
} ewbuf;

/* Threads that read one witness file's values (a GPU slot's own read and
 * the read-ahead's): enough to keep a tmpfs or an NVMe file streaming. */
#define WITNESS_READ_THREADS 8

/* ------------------------------------------------------------ the engine */

struct engine {
  engine_config cfg;
  char *param_dir;
  char *witness_dir; /* the real path of cfg.witness_dir, or NULL */
  pthread_mutex_t mu;
  pthread_cond_t work_cv, done_cv, key_cv;
  double t_start;

  /* Jobs. */
  ejob **table;           /* hash of ids, chained */
  size_t table_size, njobs;
  elist queue[ENGINE_NPRI]; /* by priority: jobs with partitions not taken */
  elist fin;               /* finished jobs, oldest first */
  elist live;              /* unfinished jobs */
  uint64_t next_seq;
  uint64_t id_salt;
  size_t uncollected;      /* jobs in the table whose final result no await returned */

  /* Keys and budgets. */
  ekey *keys;
  uint64_t keys_budget; /* host budget less the queue budget */
  uint64_t keys_used;   /* bytes of keys above DISK or loading, and the GPU slots'
                           page-locked buffers (eworker.host_bytes) */
  uint64_t queue_used;  /* the queue budget's charges: witnesses of unfinished jobs,
                           every job's held_bytes, result copies handed out
                           (engine_result.charged) and the caller's engine_charge */
  uint64_t witness_used; /* of queue_used: the witnesses */
  /* Witness files held open (from submit until their partitions end) and
   * the most that may be: half the process's open-file limit at start.
   * Atomic: counted where the descriptors are opened and closed, with or
   * without the lock. */
  _Atomic unsigned long wfiles_open;
  unsigned long wfiles_cap;

  /* Workers. */
  eworker *workers;
  size_t nworkers, workers_cap; /* cap: room for the CPU fallback's workers (AUTO) */
  unsigned busy;
  const backend_devices *devs; /* cfg.devices, or backend_devices_system() */
  bool host_pinned;             /* PINNED keys in the devices' page-locked memory
                                   (BACKEND_CAP_HOST_PINNED of the devices used) */
  edevice *devices;
  size_t ndevices;
  bool accepting;  /* submissions allowed */
  bool paused;     /* engine_set_paused */
  bool draining;   /* shutdown: workers exit when nothing is left */
  bool shutting;   /* shutdown began (one caller joins) */
  bool joined;     /* the workers are joined */
  unsigned ngpus_lost; /* devices out of service (edevice.lost) */
  bool fallback;   /* AUTO: the CPU workers started after the last GPU was lost */
  char unavailable[CUZK_ERR_MSG_MAX]; /* why no worker is left ("" while one is) */

  /* Witness read-ahead (readahead.c; cfg.witness_readahead): its buffers,
   * each ra_bytes (charged to keys_used), its thread (woken by ra_cv, which
   * workers also wait on for a buffer being read). */
  ewbuf *ra;
  unsigned nra;
  size_t ra_bytes;
  pthread_t ra_thread;
  bool ra_started, ra_stop;
  pthread_cond_t ra_cv;
  uint64_t ra_used; /* partitions begun from a buffer read ahead */

  /* Log lines queued with the lock held (the job lines, engine_log_queued),
   * in event order; written by joblog_flush under log_mu (which guards
   * nothing else). */
  struct joblog_line *log_head, *log_tail;
  pthread_mutex_t log_mu;

  /* Counters. */
  uint64_t completed, failed, cancelled, attached, refused_exhausted, expired, retried;
  uint64_t errors[CUZK_STATUS_COUNT];
  double stage_s[5]; /* queue wait, key load, prepare, gpu, finalize: sums over partitions */
};

/* ---- jobs.c (all with e->mu held unless said otherwise) */
ejob *jobs_find(engine *e, const char *id);
cuzk_status jobs_insert(engine *e, ejob *j, cuzk_err *err);
/* Out of the table (expiry, or a retried request id), dropping its reference. */
void jobs_forget(engine *e, ejob *j);
void jobs_ref(ejob *j);
void jobs_unref(engine *e, ejob *j);
/* Ends an unfinished job: drops its queued partitions and their
 * witnesses, asks running ones to stop, counts it, wakes its awaiters. */
void jobs_finish(engine *e, ejob *j, engine_job_state state, cuzk_status st, const char *msg);
/* Closes partition pt's witness file, if it has one open, and counts it
 * (with or without the lock). */
void jobs_close_witness_file(engine *e, epart *pt);
/* Frees the witness of partition p (wit and parse) and its queue bytes. */
void jobs_drop_witness(engine *e, ejob *j, size_t p);
/* Drops finished jobs older than the TTL, then the oldest over max_finished. */
void jobs_expire(engine *e);
/* Drops collected finished jobs, oldest first, until the queue budget has
 * `need` bytes of room or none is left (their charges go back as their
 * last references go). */
void jobs_reclaim(engine *e, uint64_t need);
/* The job's state: final when finished, else its least advanced partition's. */
engine_job_state jobs_state(const ejob *j);
void jobs_free_all(engine *e);
/* Without the lock: frees a job no one references. */
void jobs_free(engine *e, ejob *j);
/* Without the lock: a SHA-256 digest (two-level, its witness chunks
 * hashed on par_threads() threads: jobs.c) of what defines the job: the
 * circuit id, the partition count and each witness's length and bytes (not the priority,
 * the request id or want_json), each length-prefixed so that no two
 * requests share an encoding.  A repeated request id attaches only when
 * the digests are equal, so a different request cannot be handed another's
 * proof short of a SHA-256 collision.  CUZK_NO_MEMORY when libcrypto
 * cannot make its context. */
cuzk_status jobs_request_digest(const engine_request *rq, uint8_t out[JOBS_DIGEST_BYTES],
                                cuzk_err *err);
/* The same for a request naming witness files (rq->witness_file), opened
 * as parts: the files (device, inode), their sizes and mtimes
 * (parts[i].wident), not their names or bytes: a file rewritten since is
 * another request; the same file under another name (a client's new hard
 * link to it) is the same request. */
cuzk_status jobs_files_digest(const engine_request *rq, const epart *parts,
                              uint8_t out[JOBS_DIGEST_BYTES], cuzk_err *err);
/* What a job of nparts partitions of key k costs while it is known: the
 * job, its partitions, and with want_json the largest proof.json and
 * public.json each partition can get.  Charged before the job is made. */
uint64_t jobs_held_bytes(const ekey *k, size_t nparts, bool want_json);
/* Room left in the queue budget: 0 when charges with slack passed it. */
static inline uint64_t queue_room(const engine *e) {
  return e->queue_used >= e->cfg.queue_budget_bytes ? 0 : e->cfg.queue_budget_bytes - e->queue_used;
}

/* ---- sched.c (e->mu held) */
void sched_push(engine *e, ejob *j);
void sched_remove(engine *e, ejob *j);
/* The next partition to prove: the oldest job of the highest priority that
 * has one left (a requeued one first); NULL when none.  *part receives its
 * index. */
ejob *sched_take(engine *e, size_t *part);
/* The same for a slot that ranks the jobs (a GPU slot beside other GPUs,
 * worker.c take_rank): per priority, from the highest, the oldest job of
 * the highest rank above 0 (the first of rank SCHED_RANK_BEST ends the
 * search); jobs of rank 0 are left to other workers; NULL when no job
 * ranks above 0.  sched_take is this with every job ranked best. */
#define SCHED_RANK_BEST 3
ejob *sched_take_ranked(engine *e, size_t *part, int (*rank)(void *ctx, const ejob *j),
                        void *ctx);
/* The same for an express slot (engine_config.express_max_lg): the oldest
 * CRITICAL, else HIGH, job whose key has at most 2^max_lg rows; NULL when
 * none (it leaves everything else to the other slots). */
ejob *sched_take_express(engine *e, size_t *part, unsigned max_lg);
/* Puts taken partition p of unfinished job j back to be taken again (its
 * GPU was lost), the job at its submission-order place in its list. */
void sched_requeue(engine *e, ejob *j, size_t p);
/* Calls fn for each partition no worker has taken, in the order sched_take
 * takes them, until fn returns true (then true). */
bool sched_each_untaken(engine *e, bool (*fn)(void *ctx, ejob *j, size_t p), void *ctx);
/* Jobs queued ahead of a job of priority p submitted now. */
uint32_t sched_ahead(const engine *e, engine_priority p);

/* ---- readahead.c (e->mu held unless said otherwise) */
/* Without the lock: partition pt's witness values read from fd into dst
 * (on nthreads threads), then checked: the file is still the one
 * submitted (size and mtime) and, with check_values, every value is below
 * r.  CUZK_FORMAT or CUZK_IO naming the file otherwise. */
cuzk_status witness_read_values(const epart *pt, int fd, bool check_values, uint8_t *dst,
                                unsigned nthreads, cuzk_err *err);
/* Without the lock, from workers_start once the slots are planned: makes
 * cfg.witness_readahead buffers of `bytes` (as fit the host budget) and
 * starts the reader; nothing without GPU slots or page-locked memory. */
void readahead_start(engine *e, size_t bytes);
/* Without the lock: stops the reader (workers_join). */
void readahead_join(engine *e);
/* Without the lock, at engine_free after every job: frees the buffers. */
void readahead_free(engine *e);
/* A worker begins partition pt: its buffer, now TAKEN (its read awaited
 * first), or NULL when none holds its values. */
ewbuf *readahead_take(engine *e, epart *pt);
/* A TAKEN buffer back to the pool (p and bytes: what it holds now). */
void readahead_give(engine *e, ewbuf *b);
/* Partition pt's witness is dropped: its buffer goes back to the pool. */
void readahead_drop(engine *e, epart *pt);

/* ---- keys.c */
/* Registers the config's keys (engine_new, no lock needed yet). */
cuzk_status keys_init(engine *e, cuzk_err *err);
/* Counts the value tables of each registered bellperson key's circuit
 * (pce_table_sizes: its PCE read once), so that device_bytes is what the
 * GPU's resident copy takes, not the PCE's whole values: engine_new, for
 * the plan of GPU slots with keys_on_device, before any slot starts.  A
 * PCE that cannot be counted keeps the whole values' figure (logged). */
void keys_count_tables(engine *e);
/* The key for a circuit id: registered, or <param_dir>/<id>.zkey found and
 * its header read now.  Takes and drops the lock itself. */
cuzk_status keys_lookup(engine *e, const char *id, ekey **out, cuzk_err *err);
/* Makes the key usable (loads it when at DISK, evicting idle keys LRU
 * first, waiting for keys in use to be released when that makes room;
 * reloads it when its file changed since it was loaded - keys.c) and
 * takes a reference.  Called without the lock.  `job`, when non-NULL, is
 * watched: its stop flag ends the wait with CUZK_CANCELLED.  *load_s: time
 * spent loading (0 when it was loaded already). */
cuzk_status keys_acquire(engine *e, ekey *k, ejob *job, bool wait, bool held, double *load_s,
                         cuzk_err *err);
/* Whether k's file no longer matches its loaded copy (stat of its path,
 * without the lock; marks k stale when so).  A GPU slot that holds k asks
 * this before it proves with k again, and drops its hold when true, so that
 * the stale copy can be unloaded; it then calls keys_acquire with held =
 * false.  held = true (the slot holds k and was just told its file is
 * unchanged): k's copy is taken as it is, stale or not (the change raced
 * with the job's start), since the slot's own hold would keep a reload
 * waiting for ever. */
bool keys_stale(engine *e, ekey *k);
/* Drops the reference (without the lock); an evict_pending key is unloaded
 * when its last reference goes. */
void keys_release(engine *e, ekey *k);
/* Unloads every key (engine_free). */
void keys_free_all(engine *e);
/* Host bytes the key's loaded form costs (its file size when loaded). */
static inline uint64_t keys_bytes(const ekey *k) { return k->file_bytes; }

/* ---- worker.c */
cuzk_status workers_start(engine *e, cuzk_err *err);
void workers_join(engine *e);
/* After workers_join: frees the devices' stores and the device list. */
void workers_free_devices(engine *e);
/* Free and total memory of GPU `ordinal` (backend_device_mem_info); zeros
 * when unknown.  Without the lock. */
void workers_gpu_mem_info(engine *e, int ordinal, uint64_t *free_bytes, uint64_t *total_bytes);
/* Workers that can take a partition now: started, not retired, not on a
 * lost GPU, not gone (e->mu held). */
unsigned workers_serving(const engine *e);

/* The GPU whose slot runs on the calling thread, or -1 (another thread):
 * page-locked memory is made there, whose context the thread has current
 * already (backend_device_host_alloc makes its ordinal current). */
int workers_thread_gpu(void);

/* ---- keycheck.c */
/* groth16_prove_opts.check_key for a referenced key: its points checked
 * once while it stays loaded (concurrent askers wait for the first one's
 * answer, key_cv), the first bad answer logged at ERROR.  ctx: a
 * keycheck_ctx.  Called without the lock. */
typedef struct {
  engine *e;
  ekey *k;
} keycheck_ctx;
cuzk_status keys_check_points(void *ctx, cuzk_err *err);

/* ---- joblog.c: the per-job lines at INFO (engine_config.log): ids, sizes,
 * devices, timings and reasons; never witness bytes.  Each does nothing
 * without cfg.log. */
/* Job j is queued (e->mu held, before a worker can see it). */
void joblog_accepted(engine *e, const ejob *j, const char *request_id, uint32_t ahead);
/* After a submission (without the lock): the attached or refused line,
 * and the flush of the accepted one. */
void joblog_submitted(engine *e, const engine_request *rq, const engine_ticket *t,
                      cuzk_status st, const cuzk_err *err);
/* A worker starts proving partition p of j, which it references (without
 * the lock; flushes). */
void joblog_started(engine *e, const eworker *w, const ejob *j, size_t p, double load_s);
/* jobs_finish (e->mu held): the job's last line, queued for joblog_flush. */
void joblog_finished(engine *e, const ejob *j);
/* A line at any level queued like the job lines (e->mu held; written by
 * the next joblog_flush, in event order with them). */
__attribute__((format(printf, 3, 4))) void engine_log_queued(engine *e, engine_log_level level,
                                                             const char *fmt, ...);
/* Writes the queued lines in order; every site that may have finished a
 * job calls it after dropping the lock (takes log_mu, then mu briefly). */
void joblog_flush(engine *e);
/* engine_free: drops lines never written. */
void joblog_free(engine *e);

/* ---- engine.c */
double engine_now(void);
/* Reports a line through cfg.log (without the lock). */
void engine_log(engine *e, engine_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fills a timespec deadline `ms` milliseconds from now (CLOCK_MONOTONIC). */
void engine_deadline(struct timespec *ts, double seconds_from_now);

#endif
