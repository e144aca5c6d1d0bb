/* The proving engine: jobs, priorities, key residency and the workers that
 * prove, in one process.  The daemon's gRPC service (server/) and the tests
 * drive it through this header only; it knows nothing of gRPC or TOML.
 *
 * DESIGN (docs/DESIGN.md §3-4)
 *   A job is one proof request: a circuit id, one witness (.wtns bytes) per
 *   partition, a priority and the caller's request id.  engine_submit checks
 *   what it can cheaply and at once (known circuit, each witness's header,
 *   prime and length against the key), copies the witnesses and queues the
 *   job; a repeated request id attaches to the job already known (done or
 *   in flight; a failed or cancelled one is replaced) instead of proving
 *   twice.  Partitions are the
 *   scheduling unit: a worker takes the next partition of the
 *   highest-priority, oldest job (CRITICAL > HIGH > NORMAL > LOW, then
 *   submission order), proves it through its own backend (backend.h: one
 *   per GPU slot, K slots per device, made by the device registry,
 *   backend/device.h; or a CPU backend) and
 *   verifies it; the job is done when all its partitions are, failed at the
 *   first partition that fails (the others are dropped), cancelled on
 *   request in any state.  Every proof returned has been verified.
 *
 *   States: QUEUED -> PREPARING (witness parsed, a, b computed) -> PROVING
 *   (quotient and MSMs) -> FINALIZING (verify, encode) -> DONE; or FAILED /
 *   CANCELLED from any state.  A job's state is its least advanced live
 *   partition's.
 *
 *   Keys: a circuit id names a snarkjs .zkey: registered in the config, or
 *   found as <param_dir>/<id>.zkey.  Each key sits in a tier: DISK (known,
 *   not open; only its header was read), MAPPED (the file read into the
 *   engine's own anonymous memory and fully checked there: the name is
 *   historical, nothing is mapped), PINNED (the same copy in page-locked
 *   host memory), DEVICE (bases resident on a GPU).  A key whose file
 *   changes is read and checked again at its next job (keys.c).  One byte budget for the
 *   host (mapped and pinned keys at their file size, plus the witnesses of
 *   unfinished jobs) and one per device; a key in use by a job
 *   is referenced and never evicted; an idle key (no references for at
 *   least eviction_min_idle_ms) is evicted least recently used first when
 *   a load needs room.  A load that cannot fit even after eviction fails
 *   the job with CUZK_EXHAUSTED, and the engine keeps serving.  PINNED on
 *   a GPU engine whose devices offer page-locked memory
 *   (BACKEND_CAP_HOST_PINNED; CUDA: cudaMallocHost) is that memory;
 *   otherwise it is an anonymous copy that is mlock'ed when RLIMIT_MEMLOCK
 *   allows (else just resident anonymous memory, no longer page cache
 *   that the kernel may drop).  DEVICE (keys_on_device, GPU slots of
 *   devices with BACKEND_CAP_RESIDENT only): a slot holds the key it last
 *   proved (backend hold_bases), and the slots of one GPU share one
 *   resident copy of it (the device's backend_store: uploaded by the
 *   first slot that needs it, freed when the last holder lets go); the
 *   key's file size (plus its coefficients' scratch on the GPU) counts
 *   once per device against that device's budget, whatever the number of
 *   its slots holding it; with no room a slot proves with streamed bases.
 *   A held key stays mapped; evicting it makes the idle slots drop their
 *   holds at once and the busy ones when their partition ends, so the
 *   device's copy goes when no slot of it proves with the key any more.
 *
 *   Back-pressure: queue_budget_bytes is charged, before the memory is
 *   made, with the witnesses of unfinished jobs (a partition's witness is
 *   freed when the partition ends), every known job with its results (the
 *   JSON at its largest) until the job is freed, each result copy an
 *   await hands out (until engine_result_free), and what the caller
 *   charges (engine_charge: the server's calls and messages); a
 *   submission over it fails with CUZK_EXHAUSTED (the client retries)
 *   rather than growing memory without bound, after dropping finished
 *   jobs whose result an await has had.  Keys and the GPU slots'
 *   page-locked vectors and staging (charged at slot start; a slot whose
 *   buffers do not fit is not started) get the host budget less the queue
 *   budget, so requests and keys never starve each other.  A load that needs room held by keys in use (or
 *   used less than eviction_min_idle_ms ago) waits for them; one that can
 *   never fit (a key larger than the keys' share) fails EXHAUSTED.
 *   Finished jobs are kept finished_ttl_ms and at most max_finished of
 *   them (expired lazily, on the engine's next call), then forgotten:
 *   NOT_FOUND, and their request ids prove afresh.
 *
 *   Lost GPUs: a GPU slot whose backend fails with CUZK_DEVICE_LOST (a
 *   sticky CUDA error: the device's context is unusable, every later call
 *   on it fails) takes its whole GPU out of service: none of its slots
 *   takes another partition, each lets go of its resident copies (the
 *   device's budget gets them back) and frees its backend on its own
 *   thread, where the CUDA frees on the dead context fail and are ignored,
 *   and its thread ends; no other CUDA call is made on that GPU (status
 *   skips its memory query).  The partition that met the loss (and any
 *   other partition of the GPU that fails while it is lost) goes back to
 *   the queue once, ahead of later submissions, for another worker:
 *   another GPU's slot, or, with device = AUTO, the cpu_workers CPU
 *   workers the engine starts when its last GPU is lost.  A partition
 *   that meets a second loss, or finds no worker left, fails its job with
 *   DEVICE_LOST and a message naming the GPU and the CUDA error.  The GPU
 *   stays listed in the status as FAILED with that reason
 *   (engine_gpu_status); the loss is logged once (engine_config.log, at
 *   ERROR).  When no worker is left at all (device = GPU, every GPU lost),
 *   queued jobs fail and submissions are refused at once with UNAVAILABLE
 *   saying why, rather than queueing for ever.  Nothing brings a lost GPU
 *   back short of a new process.
 *
 *   Threads: engine_* functions are safe to call from any thread
 *   concurrently.  Workers are started by engine_new and stopped by
 *   engine_shutdown.  engine_await blocks the calling thread only.
 *
 * Statuses returned (cuzk/status.h), which the server maps to gRPC codes:
 *   NOT_FOUND          unknown circuit id or job id
 *   INVALID_ARGUMENT   bad request (no partitions, empty id, too long id, a
 *                      request id already naming a different request)
 *   FORMAT             a witness that is not a valid .wtns for the key
 *   EXHAUSTED          over the queue or memory budget
 *   UNAVAILABLE        the engine is shutting down, or no worker is left (every
 *                      GPU lost and no CPU fallback)
 *   DEVICE_LOST        (a job's status) its partition met a lost GPU and could
 *                      not be retried
 *   TIMEOUT            engine_await's timeout passed (the job goes on)
 *   NO_MEMORY, IO, INTERNAL as usual. */
#ifndef CUZK_ENGINE_ENGINE_H
#define CUZK_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "groth16/bp.h"
#include "groth16/pce.h"

struct backend_devices;

#define ENGINE_ID_MAX 128 /* job, request and circuit ids: at most 127 bytes + NUL */

/* Values equal those of cuzk.v1.Priority; 0 (unspecified) means NORMAL. */
typedef enum {
  ENGINE_PRI_UNSPECIFIED = 0,
  ENGINE_PRI_LOW = 1,
  ENGINE_PRI_NORMAL = 2,
  ENGINE_PRI_HIGH = 3,
  ENGINE_PRI_CRITICAL = 4
} engine_priority;

typedef enum {
  ENGINE_JOB_QUEUED,
  ENGINE_JOB_PREPARING,
  ENGINE_JOB_PROVING,
  ENGINE_JOB_FINALIZING,
  ENGINE_JOB_DONE,
  ENGINE_JOB_FAILED,
  ENGINE_JOB_CANCELLED
} engine_job_state;

typedef enum { ENGINE_TIER_DISK, ENGINE_TIER_MAPPED, ENGINE_TIER_PINNED, ENGINE_TIER_DEVICE } engine_tier;

/* Where workers prove. */
typedef enum {
  ENGINE_DEVICE_AUTO, /* GPUs when any is usable, else the CPU; and the CPU once
                         every GPU used has been lost */
  ENGINE_DEVICE_CPU,
  ENGINE_DEVICE_GPU /* an error at engine_new when no GPU is usable; no CPU
                       fallback when the GPUs are lost */
} engine_device_mode;

typedef enum { ENGINE_LOG_ERROR, ENGINE_LOG_WARN, ENGINE_LOG_INFO } engine_log_level;

/* A circuit's key: a snarkjs .zkey (path alone), or a bellperson key: a
 * .params file (path) with Curio's constraint file for the circuit (pce,
 * docs/FORMATS.md §5.5, §7), proven with the bellperson conventions
 * (groth16/bp_prove.h).  A bellperson key may also be given in memory,
 * already read and checked by the caller (bp_mem and pce_mem, kept alive
 * and unchanged until engine_free): a benchmark's generated key, or an
 * embedder's open handles; path and pce then only name it in messages and
 * status, and it is never unloaded. */
typedef struct {
  const char *id;   /* circuit id, e.g. "chain-64k" or "porep-32g" */
  const char *path; /* its .zkey, or its bellperson .params */
  const char *pce;  /* bellperson: the PCE file; NULL or "" for a .zkey */
  bool trusted;     /* bellperson: skip the .params points' on-curve and subgroup
                       checks at load (a file from a trusted source: minutes at 2^27) */
  const bp_params *bp_mem;  /* in memory: both set, or neither */
  const pce_file *pce_mem;
} engine_circuit;

/* What a GPU's planner keeps free beside its slots, and what device_budget
 * = auto leaves to the CUDA runtime and the MSM's fragmentation, in MiB
 * (a literal, so that the config's help text can spell it). */
#define ENGINE_DEVICE_MARGIN_MIB 512
/* About the time a PoRep-size resident copy takes to make (bench/RESULTS.md:
 * a 2^27 key's first partition, which makes it, against the next ones):
 * waiting longer than that for the GPU that holds the key costs more than
 * making a copy. */
#define ENGINE_PLACEMENT_WAIT_MS_DEFAULT 10000

typedef struct {
  const engine_circuit *circuits; /* registered keys (may be NULL) */
  size_t ncircuits;
  const char *param_dir; /* where other ids are looked up: <id>.zkey, else <id>.params with
                            <id>.pce (NULL: nowhere) */
  /* Where a request's witness files are (engine_request.witness_file):
   * NULL or "": requests must carry their witness bytes. */
  const char *witness_dir;

  engine_device_mode device;
  const int *gpus; /* GPU ordinals to use; NULL or ngpus = 0: all */
  size_t ngpus;
  unsigned gpu_workers_per_device; /* K slots per GPU, >= 1 */
  /* One more slot per GPU, an express slot, that takes only HIGH and
   * CRITICAL partitions of keys of at most 2^express_max_lg rows and is
   * planned for those keys alone (little memory for a small circuit): a
   * WinningPoSt's proof starts at once while the K slots are inside a
   * PoRep's partitions, instead of at the next partition boundary, and its
   * kernels run on the high-priority stream.  0: none.  No express slot is
   * made when no registered key is that small. */
  unsigned express_max_lg;
  /* Key placement over several GPUs with keys_on_device (worker.c
   * take_rank): a free slot leaves a job whose key another GPU holds, when
   * making its copy here would cost this GPU its own copies, to that GPU
   * for this long after the job's submission; after it, the slot takes it
   * (the other GPU is behind).  0: ENGINE_PLACEMENT_WAIT_MS_DEFAULT. */
  unsigned placement_wait_ms;
  /* Witness files (engine_request.witness_file) read ahead: this many
   * page-locked buffers, each the size of the largest registered key's
   * witness, into which a reader thread reads the values of the partitions
   * next in the queue's order while the GPU slots prove, so that a slot
   * starts its next partition without waiting for the read (it takes the
   * buffer as its staging: backend host_staging_swap).  0: none; 1 by
   * engine_config_defaults.  Made only with a witness_dir (the only way a
   * request names files) and GPU slots on devices that give page-locked
   * memory; charged to the host budget's share for keys as the slots'
   * staging is, fewer buffers when it has no room for them all. */
  unsigned witness_readahead;
  unsigned cpu_workers;            /* proving workers when on the CPU, >= 1 */
  unsigned threads;                /* CPU threads per worker (0 = the cores / cpu_workers) */
  /* GPU slots' NTT plans with the pass-1 twiddle table
   * (backend_device_opts.ntt_pass1_table): more device memory per plan
   * for a faster forward transform. */
  bool ntt_pass1_table;

  uint64_t host_budget_bytes;   /* keys mapped or pinned + witnesses (0 = auto); keys get
                                   what the queue budget leaves */
  uint64_t device_budget_bytes; /* per GPU, for resident keys (each key counted once per
                                   GPU, at its file size plus its a/b scratch); 0 = auto:
                                   the GPU's free memory once its slots are planned, less
                                   ENGINE_DEVICE_MARGIN_MIB */
  uint64_t queue_budget_bytes;  /* witness bytes held by unfinished jobs (0 = host/4) */
  uint64_t eviction_min_idle_ms;
  bool pin_keys;      /* load keys to PINNED (page-locked) rather than MAPPED */
  bool keys_on_device;/* keep bases resident on the GPU (DEVICE tier) */

  uint64_t finished_ttl_ms; /* how long a finished job stays awaitable (0 = no limit) */
  size_t max_finished;      /* and at most this many of them, oldest dropped (>= 1) */
  bool cancel_on_shutdown;  /* engine_shutdown cancels running work instead of finishing it */

  /* TESTING ONLY (NULL in production): called by a worker, without the
   * engine's lock, each time a partition enters PREPARING (taken by the
   * worker, before its key is acquired), PROVING and FINALIZING.  A test
   * may block in it to hold a worker at a known point. */
  void (*test_hook)(void *ctx, const char *job_id, size_t part, engine_job_state state);
  void *test_hook_ctx;
  /* TESTING and benchmarks: GPU slots keep their backends' spans (uploads
   * and kernel stretches, engine_timeline). */
  bool record_timeline;
  /* The GPUs (backend/device.h): NULL in production, this build's
   * (backend_devices_system).  Tests give stand-ins, so that the GPU
   * executor's slots, DEVICE tier, VRAM plan and lost-GPU handling run
   * where there is no GPU (tests/unit/test_engine.c, tests/daemon). */
  const struct backend_devices *devices;
  /* Where the engine reports what an operator must know, one line each, no
   * newline: at ERROR a GPU lost, no worker left, a corrupt key; at WARN
   * the CPU fallback started, a partition retried after a GPU loss; at
   * INFO every job's course (joblog.c: accepted, attached or refused;
   * each partition started on which GPU slot or CPU worker; done, failed
   * or cancelled with the reason and its timings), with witnesses only as
   * byte counts.  Called from workers and from the threads calling
   * engine_submit, engine_cancel and engine_shutdown, never with the
   * engine's lock held, one call at a time for the job lines; it must not
   * call the engine.  NULL: not reported. */
  void (*log)(void *ctx, engine_log_level level, const char *msg);
  void *log_ctx;
} engine_config;

/* Defaults (documented values; the daemon prints them at start):
 * device AUTO, 1 GPU slot per device, 1 CPU worker, threads 0 (all cores,
 * shared among the CPU workers), host budget 0 = auto (physical memory less
 * 5 GiB, at least 1 GiB), device budget 0 = auto, queue budget 0 = auto
 * (a quarter of the host budget), eviction_min_idle 0 ms, keys MAPPED (not
 * pinned, not on the device), finished jobs kept 10 minutes and at most
 * 10,000, shutdown finishes the work in flight. */
void engine_config_defaults(engine_config *c);

typedef struct engine engine;

/* Starts the workers.  Checks the config (each registered key's file
 * exists and its header is a Groth16 BLS12-381 zkey; GPU ordinals exist
 * when device = GPU): INVALID_ARGUMENT for a bad value (a queue budget not
 * below the host budget, a duplicated id), the key reader's status for a
 * bad key, UNSUPPORTED for device = GPU without a usable GPU or with a
 * listed ordinal that is not usable (AUTO skips it).  GPUs: the listed
 * ordinals, or every usable GPU; each gets gpu_workers_per_device slots,
 * planned at start on the slot's own thread (worker.c): its streams, an
 * NTT plan per registered domain size, MSM contexts for the largest
 * registered key and its page-locked vectors.  With keys_on_device the
 * plan also keeps room for one resident copy per GPU of the largest
 * registered key (at most device_budget_bytes when that is set) beside the
 * slots' scratch: a slot after the first that would leave less free (plus
 * 512 MiB) is dropped.  A slot that does not fit is dropped (status notes
 * why); a GPU none of whose slots fit fails engine_new with the planner's
 * status (NO_MEMORY). */
cuzk_status engine_new(engine **out, const engine_config *cfg, cuzk_err *err);

/* Stops accepting (submissions get UNAVAILABLE), then either finishes or
 * cancels (cfg.cancel_on_shutdown) the jobs in flight (finishing includes
 * the queued ones), wakes every waiter and joins the workers.  Finished
 * jobs stay awaitable until engine_free.  Idempotent; concurrent callers
 * all return once the workers are joined. */
void engine_shutdown(engine *e);
/* Refuses new submissions (UNAVAILABLE) from now on, as engine_shutdown's
 * first step, so that a caller that says "stopping" before it starts the
 * shutdown (on another thread) says it only once no submission can be
 * accepted any more. */
void engine_stop_accepting(engine *e);
/* Waits up to ms milliseconds (0: not at all) until every job known has
 * had its final result collected: returned by an engine_await at least
 * once (a job's DONE, FAILED or CANCELLED result; a TIMEOUT is not one).
 * Jobs forgotten (expired, or replaced by a retried request id) do not
 * count.  Returns how many are left.  After engine_shutdown, when every
 * job is final, this is the grace a daemon gives clients that submitted
 * and have not yet come back for the result. */
size_t engine_wait_collected(engine *e, uint64_t ms);
/* Shuts down if needed and frees everything. */
void engine_free(engine *e);

typedef struct {
  const char *request_id; /* NULL or "": the engine makes a fresh id */
  const char *circuit_id;
  engine_priority priority;
  size_t nparts;                  /* >= 1 */
  const uint8_t *const *witness;  /* nparts .wtns images; copied */
  const size_t *witness_len;
  /* Instead of witness bytes (witness and witness_len NULL): nparts .wtns
   * files named relative to engine_config.witness_dir (engine_submit says
   * how they are read). */
  const char *const *witness_file;
  bool want_json;                 /* also produce snarkjs proof.json / public.json text; for
                                     a bellperson key public.json only (its PUBLIC.json: the
                                     inputs without ONE), the proof being the bytes */
} engine_request;

typedef struct {
  char job_id[ENGINE_ID_MAX];
  uint32_t queue_position; /* jobs ahead of it in the queue at submission */
  bool attached;           /* the request id was already known: no new job */
} engine_ticket;

/* Request ids: the job id is the request id when one is given, else a
 * fresh "job-..." id.  A request id already known attaches (t->attached)
 * to that job when it is queued, running or DONE; it must carry the same
 * circuit, partition count and witness bytes (compared by SHA-256 of
 * them all; else INVALID_ARGUMENT: one id never names two different
 * proofs).  A FAILED or CANCELLED job under that id is replaced by a new
 * one (a retry proves again).  An empty witness is INVALID_ARGUMENT.  Witnesses are
 * parsed here in the caller's thread (every value checked < r): FORMAT
 * names the partition ("witness 2: ..."), for a bad .wtns image, another
 * field's prime or an nWitness other than the key's nVars. */
/* Witness files (rq->witness_file): each name is a relative path of
 * components of letters, digits, '.', '_' and '-' (none empty, "." or
 * ".."), opened under witness_dir without following a link in its last
 * component, and the file it opens must resolve inside witness_dir (a
 * link in the middle may not lead out); it must be a regular file.  The
 * engine keeps the descriptor from here (the file may be unlinked at
 * once: a witness directory on tmpfs, /dev/shm, is shared memory that the
 * engine frees when the partition ends) and reads the header now, the
 * checks above on it; the values are read when the partition starts, into
 * the GPU slot's staging memory (charged at the slot's start) or, on a
 * CPU worker, into the partition's working memory (outside the budgets,
 * as the prover's own vectors are: one witness per worker at most), so a
 * queued job holds no witness memory.  A file that changes after the submit
 * (size or mtime; links made and removed change only its ctime, which is
 * not compared) fails its partition with FORMAT naming it.  Open witness
 * files are bounded: at most half the process's open-file limit at
 * engine_new (the daemon raises its soft limit to the hard one first) are
 * held at once; past it a submit is refused EXHAUSTED.  For request ids,
 * such a request is the same request when it names the same files
 * (device and inode, whatever the names: a new link to one is the same)
 * unchanged (size, mtime).  NOT_FOUND when a file is missing,
 * INVALID_ARGUMENT for a bad name or no witness_dir. */
cuzk_status engine_submit(engine *e, const engine_request *rq, engine_ticket *t, cuzk_err *err);

typedef struct {
  uint64_t queue_wait_ms, key_load_ms, prepare_ms, gpu_ms, finalize_ms, total_ms;
} engine_timings;
/* sum's stage times += t's (queue wait, key load, prepare, gpu, finalize;
 * total_ms, a wall time, is not a sum and stays). */
void engine_timings_add(engine_timings *sum, const engine_timings *t);

typedef struct {
  char job_id[ENGINE_ID_MAX];
  engine_job_state state; /* DONE, FAILED or CANCELLED (or the current state with TIMEOUT) */
  uint8_t *proof;         /* DONE: nparts x 192 bytes, compressed A||B||C per partition */
  size_t proof_len;
  size_t nparts;
  char **proof_json, **public_json; /* DONE and want_json: nparts strings each, else NULL
                                       (proof_json NULL for a bellperson key's job) */
  char error[CUZK_ERR_MSG_MAX];     /* FAILED: why (status name and message) */
  cuzk_status job_status;           /* FAILED: the failing partition's status */
  engine_timings timings;           /* sums over partitions, total = wall time of the job */
  struct engine *owner;             /* the copies' charge to owner's queue budget, */
  uint64_t charged;                 /* given back by engine_result_free */
} engine_result;

/* Waits until the job is finished or timeout_ms passes (0 = forever,
 * ENGINE_NO_WAIT = not at all: the job's state now).  CUZK_OK with the
 * result; CUZK_TIMEOUT with r->state the current state; CUZK_NOT_FOUND for
 * an unknown (or expired) job id. */
#define ENGINE_NO_WAIT UINT64_MAX
cuzk_status engine_await(engine *e, const char *job_id, uint64_t timeout_ms, engine_result *r,
                         cuzk_err *err);

/* Memory the caller is about to allocate on behalf of a request (the
 * server's calls, received messages and replies), charged to the queue
 * budget before it is allocated, beside the witnesses and results the
 * engine charges itself: CUZK_EXHAUSTED, nothing charged, unless the
 * queue's charges stay within queue_budget_bytes + slack (slack lets small
 * control calls through when witnesses fill the queue; the caller bounds
 * what it charges with slack).  engine_uncharge gives bytes back. */
cuzk_status engine_charge(engine *e, uint64_t bytes, uint64_t slack, cuzk_err *err);
void engine_uncharge(engine *e, uint64_t bytes);
/* queue_budget_bytes as resolved by engine_new. */
uint64_t engine_queue_budget(const engine *e);
/* Frees r's copies and gives their charge back (an await's result is
 * charged to the queue budget until then: EXHAUSTED when it does not fit). */
void engine_result_free(engine_result *r);

/* Cancels a job in any state: queued partitions are dropped, a running one
 * stops within one chunk of its backend's work (backend.h: the stop hook),
 * its memory and key references are released, and waiters get
 * CANCELLED.  *was_running: some partition was past QUEUED.  A finished
 * job is left as it is (was_running false).  NOT_FOUND for unknown ids. */
cuzk_status engine_cancel(engine *e, const char *job_id, bool *was_running, cuzk_err *err);

/* Loads the key to the configured host tier now (PreloadSRS), in the
 * caller's thread, evicting idle keys if it must: EXHAUSTED when that does
 * not make room.  The DEVICE tier is reached on a key's first proof on a
 * GPU (its first slot to prove it uploads the copy that the GPU's other
 * slots then use). */
cuzk_status engine_preload(engine *e, const char *circuit_id, bool *already_loaded,
                           uint64_t *load_ms, cuzk_err *err);
/* Drops a key back to DISK (EvictSRS): at once when idle (*freed_bytes is
 * what that released), else when its last job lets go of it (*freed_bytes
 * 0).  *was_loaded: it was above DISK.  NOT_FOUND for an unknown id. */
cuzk_status engine_evict(engine *e, const char *circuit_id, bool *was_loaded,
                         uint64_t *freed_bytes, cuzk_err *err);

/* A GPU's service state: UP proves; FAILED was lost (a sticky CUDA error)
 * and takes no more work until the process is restarted. */
typedef enum { ENGINE_GPU_UP, ENGINE_GPU_FAILED } engine_gpu_state;

typedef struct {
  int ordinal;
  char name[64];
  engine_gpu_state state;
  char reason[CUZK_ERR_MSG_MAX]; /* FAILED: the CUDA error that lost it, else "" */
  uint64_t vram_total, vram_free; /* cudaMemGetInfo at the call (FAILED: not asked, 0) */
  uint64_t budget, used; /* for resident keys; used: what each key its slots hold costs
                            (file size plus a/b scratch), counted once per device */
  uint64_t resident;     /* device bytes of the resident copies its slots share now */
  char current_job[ENGINE_ID_MAX]; /* "" when idle (one of its slots' jobs) */
  unsigned slots, busy_slots; /* slots: the K planned (the express slot not counted);
                                 busy_slots: those proving, the express slot included */
  bool express;               /* its express slot was planned */
  char note[160]; /* why it has fewer slots than configured, or "" */
} engine_gpu_status;

typedef struct {
  char id[ENGINE_ID_MAX];
  engine_tier tier;
  uint64_t size_bytes;
  uint32_t refcount;
  uint64_t idle_ms;
} engine_key_status;

typedef struct {
  char circuit_id[ENGINE_ID_MAX];
  uint32_t queued, preparing, proving, finalizing; /* jobs per state */
} engine_queue_status;

typedef struct {
  engine_gpu_status *gpus;
  size_t ngpus;
  engine_key_status *keys;
  size_t nkeys;
  engine_queue_status *queues;
  size_t nqueues;
  uint64_t completed, failed, cancelled; /* jobs */
  uint64_t uptime_s;
  uint64_t host_budget, host_used, queue_budget, queue_used;
  uint64_t queue_witness; /* of queue_used: witnesses of unfinished jobs (the rest: jobs
                             known and their results, copies handed out, engine_charge) */
  unsigned cpu_workers, busy_workers;
  unsigned serving_workers; /* workers that can take a partition (0: submissions
                               fail with UNAVAILABLE) */
  uint64_t retried;         /* partitions sent to another worker after a GPU loss */
  unsigned readahead_buffers; /* witness_readahead's buffers made */
  unsigned readahead_filled;  /* of them: holding or reading a queued partition's values */
  uint64_t readahead_used;    /* partitions begun from a witness read ahead */
  const char *witness_dir;  /* the real path of the witness directory (the engine's, valid
                               until engine_free), or NULL */
} engine_status;

/* A consistent snapshot (taken under the engine's lock). */
cuzk_status engine_status_get(engine *e, engine_status *s, cuzk_err *err);
void engine_status_free(engine_status *s);

/* Prometheus text exposition format (malloc'd, NUL-terminated): counters
 * of proofs by outcome, queue depths, key tiers and sizes, budgets, proof
 * duration sums and counts by circuit, uptime, each GPU's state
 * (cuzk_gpu_up{device="gpu0"} 1 or 0).  NULL on allocation failure. */
char *engine_metrics_text(engine *e);

/* A stretch of one GPU slot's device work (record_timeline): host
 * monotonic seconds, the clock of engine_now (CLOCK_MONOTONIC). */
typedef struct {
  int ordinal;   /* the GPU */
  unsigned slot; /* the slot on it */
  bool upload;   /* a host-to-device copy of a proof's vectors; else kernels */
  double t0, t1;
} engine_span;

/* TESTING and benchmarks: moves every span recorded so far (all slots,
 * sorted by t0) into a malloc'd array (*out, free() it; NULL when none).
 * Spans of a partition are collected when it ends. */
cuzk_status engine_timeline(engine *e, engine_span **out, size_t *n, cuzk_err *err);

/* TESTING and operations: while paused, workers take no new partition
 * (running ones go on); submissions still queue.  Shutdown unpauses. */
void engine_set_paused(engine *e, bool paused);

const char *engine_job_state_name(engine_job_state s); /* "queued", ... */
const char *engine_tier_name(engine_tier t);           /* "disk", ... */
const char *engine_priority_name(engine_priority p);   /* "low", ... */
const char *engine_gpu_state_name(engine_gpu_state s); /* "up", "failed" */

#endif
