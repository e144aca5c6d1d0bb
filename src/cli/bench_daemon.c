/* cuzk bench daemon: load on a running daemon from concurrent clients.
 *
 * DESIGN: N jobs (each one witness per partition, the same for every job)
 * go out from J client threads, each with its own gRPC channel (or one
 * shared, --shared-channel); a client takes the next job index, submits it
 * (SubmitProof) and waits for its result (AwaitProof), so at most J jobs
 * are in the daemon at once and the priorities of the mix compete in its
 * queue.  Job i's priority is drawn from the --mix weights by a SplitMix64
 * stream of --seed: the same seed gives the same sequence of priorities.
 * --warmup W jobs (NORMAL) run first through the same clients and are not
 * counted.  A sampler thread asks GetStatus every 100 ms (its own channel)
 * for the GPUs' used memory and reads the daemon's VmRSS; GetStatus and
 * GetMetrics before and after the measured jobs give the daemon's counters
 * (completed proofs, each worker's busy seconds).  Proofs are checked with
 * --verify after the measured window, so that the checks do not take CPU
 * from the daemon while it is timed.
 *
 * Each job's record is written only by the client thread that ran it; the
 * shared state is the next index and the stop flag (atomics), and the
 * sampler's peaks (its own, read after it is joined). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: cuzk bench daemon [options] --circuit ID witness.wtns...\n"
          "\n"
          "Sends N jobs of circuit ID (one witness file per partition) to a running\n"
          "cuzk-daemon from J concurrent clients and reports proofs/s over the wall time\n"
          "from the first submission to the last result, the latency of each job\n"
          "(submission to result: p50, p90, p99, max) overall and per priority, failures\n"
          "by gRPC status, and from the daemon: the workers' busy fraction, the GPUs' peak\n"
          "used memory and its peak RSS.\n"
          "\n"
          "options:\n"
          "  --addr A       the daemon: unix:///path, host:port or tls://host:port (TLS)\n"
          "                 (default $CUZK_ADDR, else unix:///run/cuzk/cuzk.sock)\n" CLI_TLS_HELP
          "  -n N           jobs measured (default 20)\n"
          "  -j J           concurrent clients (default 4), each with its own channel\n"
          "  --shared-channel  the clients share one channel\n"
          "  --mix SPEC     priority weights, e.g. critical:1,high:2,normal:6,low:1\n"
          "                 (default: all normal)\n"
          "  --seed S       the priority sequence's seed (default 1)\n"
          "  --warmup W     jobs run first and not counted (default 0)\n"
          "  --verify VK    check every proof with this snarkjs verification_key.json\n"
          "                 (asks the daemon for snarkjs JSON)\n"
          "  --pid PID      the daemon's process, for its RSS (default: the peer of a unix\n"
          "                 socket address; none for TCP)\n"
          "  --json         print one JSON object instead of the table\n"
          "  --strict       exit 1 when a job failed or a proof did not verify\n"
          "\n"
          "exit status: 0 (failed jobs are reported, not fatal); 1 --strict and a failure;\n"
          "2 bad usage, an unreachable daemon, or submissions refused before any job\n"
          "completed (e.g. an unknown circuit id).\n");
}

#if CUZK_GRPC

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/clock.h"
#include "base/mapfile.h"
#include "groth16/json.h"
#include "groth16/verify.h"
#include "server/rpc_client.h"
#include "server/rpc_status.h"

#define NPRI 5 /* cuzk.v1.Priority values 1..4 (0 unused) */
static const char *const pri_name[NPRI] = {"", "low", "normal", "high", "critical"};

typedef struct {
  int pri;               /* 1..4 */
  double t_submit, t_end; /* cuzk_now_s() */
  bool done;             /* COMPLETED */
  int code;              /* failed: the gRPC code it stands for */
  char msg[160];         /* failed: the daemon's text (its start) */
  size_t nproofs;        /* done with JSON: the parts below */
  char **proof_json, **public_json;
} bjob;

typedef struct {
  /* the run, fixed before the clients start */
  const char *addr, *circuit;
  ProtobufCBinaryData *wit;
  size_t nparts;
  bool want_json;
  bjob *jobs;          /* warmup then measured */
  size_t first, end;   /* the phase running: jobs[first, end) */
  atomic_size_t next;  /* the next index to take */
  atomic_bool stop;    /* a refusal that every job would meet */
  atomic_size_t ndone; /* completed, over both phases */
  pthread_mutex_t mu;  /* guards stop_msg */
  char stop_msg[CUZK_ERR_MSG_MAX];
} bench;

typedef struct {
  bench *b;
  rpc_client *c;
} bclient;

/* ---- one job -------------------------------------------------------------- */

static void job_failed(bjob *j, int code, const char *msg) {
  j->code = code;
  snprintf(j->msg, sizeof j->msg, "%.*s", (int)sizeof j->msg - 1, msg); /* the start is enough */
  j->t_end = cuzk_now_s();
}

/* A refusal that no other job would escape (unknown circuit, bad witness,
 * unreachable daemon) stops the run while nothing has completed yet. */
static bool refusal_is_fatal(int code) {
  return code == RPC_CODE_NOT_FOUND || code == RPC_CODE_INVALID_ARGUMENT ||
         code == RPC_CODE_UNAVAILABLE || code == RPC_CODE_UNIMPLEMENTED;
}

static void run_job(bench *b, rpc_client *c, bjob *j) {
  Cuzk__V1__SubmitProofRequest rq = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  rq.priority = (Cuzk__V1__Priority)j->pri;
  rq.circuit_id = (char *)b->circuit;
  rq.n_witness = b->nparts;
  rq.witness = b->wit;
  rq.want_json = b->want_json;
  ProtobufCMessage *resp;
  cuzk_err err = {0};
  int code = RPC_CODE_OK;
  j->t_submit = cuzk_now_s();
  if (rpc_client_call(c, RPC_SUBMIT, &rq.base, &resp, 0, &code, &err) != CUZK_OK) {
    job_failed(j, code, err.msg);
    if (refusal_is_fatal(code) && atomic_load(&b->ndone) == 0) {
      pthread_mutex_lock(&b->mu);
      if (!atomic_exchange(&b->stop, true))
        snprintf(b->stop_msg, sizeof b->stop_msg, "%s", err.msg);
      pthread_mutex_unlock(&b->mu);
    }
    return;
  }
  Cuzk__V1__AwaitProofRequest aw = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
  aw.job_id = ((Cuzk__V1__SubmitProofResponse *)resp)->job_id;
  ProtobufCMessage *res;
  cuzk_status st = rpc_client_call(c, RPC_AWAIT, &aw.base, &res, 0, &code, &err);
  protobuf_c_message_free_unpacked(resp, NULL);
  if (st != CUZK_OK) {
    job_failed(j, code, err.msg);
    return;
  }
  j->t_end = cuzk_now_s();
  Cuzk__V1__AwaitProofResponse *r = (Cuzk__V1__AwaitProofResponse *)res;
  if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED &&
      r->proof.len != 192 * b->nparts) {
    job_failed(j, RPC_CODE_INTERNAL, "the daemon returned a proof of the wrong length");
  } else if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
    j->done = true;
    atomic_fetch_add(&b->ndone, 1);
    size_t n = r->n_proof_json == r->n_public_json ? r->n_proof_json : 0;
    j->proof_json = n ? calloc(n, sizeof *j->proof_json) : NULL;
    j->public_json = n ? calloc(n, sizeof *j->public_json) : NULL;
    for (size_t i = 0; j->proof_json && j->public_json && i < n; i++, j->nproofs++) {
      j->proof_json[i] = strdup(r->proof_json[i]);
      j->public_json[i] = strdup(r->public_json[i]);
    }
  } else {
    /* a job that ran and failed: the gRPC code of its cuzk status */
    int c2 = r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED ? RPC_CODE_CANCELLED
                                                                           : RPC_CODE_INTERNAL;
    for (int s = 0; s < CUZK_STATUS_COUNT; s++)
      if (!strcmp(r->error_code, cuzk_status_name((cuzk_status)s)))
        c2 = rpc_status_code((cuzk_status)s);
    job_failed(j, c2, *r->error_message ? r->error_message : "failed");
  }
  protobuf_c_message_free_unpacked(res, NULL);
}

static void *client_main(void *arg) {
  bclient *bc = arg;
  bench *b = bc->b;
  for (size_t i; !atomic_load(&b->stop) && (i = atomic_fetch_add(&b->next, 1)) < b->end;)
    run_job(b, bc->c, &b->jobs[i]);
  return NULL;
}

/* Runs jobs[first, end) through the clients; false when a thread did not start. */
static bool run_phase(bench *b, bclient *cl, size_t nclients, size_t first, size_t end) {
  b->first = first, b->end = end;
  atomic_store(&b->next, first);
  pthread_t *th = calloc(nclients, sizeof *th);
  size_t started = 0;
  while (th && started < nclients && pthread_create(&th[started], NULL, client_main, &cl[started]) == 0)
    started++;
  for (size_t i = 0; i < started; i++) pthread_join(th[i], NULL);
  free(th);
  return th && started == nclients;
}

/* ---- the daemon's side ------------------------------------------------------ */

/* The pid of the process listening on a unix socket address (SO_PEERCRED),
 * or 0. */
static long peer_pid(const char *addr) {
  const char *path = !strncmp(addr, "unix://", 7) ? addr + 7 : addr[0] == '/' ? addr : NULL;
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (!path || strlen(path) >= sizeof sa.sun_path)
    return 0;
  memcpy(sa.sun_path, path, strlen(path) + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct ucred cr = {0};
  socklen_t len = sizeof cr;
  bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
            getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0;
  if (fd >= 0)
    close(fd);
  return ok ? (long)cr.pid : 0;
}

/* /proc/PID/status's "KEY:   N kB" in bytes, or 0. */
static uint64_t proc_kb(long pid, const char *key) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%ld/status", pid);
  FILE *f = pid > 0 ? fopen(path, "r") : NULL;
  uint64_t v = 0;
  size_t kl = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, kl) && line[kl] == ':') {
      v = strtoull(line + kl + 1, NULL, 10) * 1024;
      break;
    }
  if (f)
    fclose(f);
  return v;
}

#define MAX_GPUS 16
#define MAX_DEVS 17 /* busy groups: "cpu" and up to 16 GPUs */

typedef struct {
  char dev[16];   /* "cpu" or "gpu<ordinal>" */
  unsigned workers;
  double busy_s;
} busy_group;

/* Sums cuzk_worker_busy_seconds_total by device; the number of groups, or
 * -1 when the daemon does not report it. */
static int parse_busy(const char *text, busy_group *g) {
  static const char name[] = "cuzk_worker_busy_seconds_total{";
  int n = 0;
  bool seen = false;
  for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
    if (p != text && p[-1] != '\n')
      continue;
    const char *d = strstr(p, "device=\""), *v = strstr(p, "} ");
    const char *eol = strchr(p, '\n');
    if (!d || !v || (eol && (d > eol || v > eol)))
      continue;
    seen = true;
    d += 8;
    size_t dl = strcspn(d, "\"");
    int k = 0;
    while (k < n && (strlen(g[k].dev) != dl || strncmp(g[k].dev, d, dl)))
      k++;
    if (k == n) {
      if (n == MAX_DEVS || dl >= sizeof g[k].dev)
        continue;
      memset(&g[k], 0, sizeof g[k]);
      memcpy(g[k].dev, d, dl);
      n++;
    }
    g[k].workers++;
    g[k].busy_s += strtod(v + 2, NULL);
  }
  return seen ? n : -1;
}

typedef struct {
  rpc_client *c;
  long pid;
  atomic_bool stop;
  /* the sampler's own until it is joined */
  size_t ngpus, samples;
  int ordinal[MAX_GPUS];
  uint64_t vram_total[MAX_GPUS], vram_peak[MAX_GPUS];
  uint64_t rss_peak;
} sampler;

static void sample_once(sampler *s) {
  Cuzk__V1__GetStatusRequest rq = CUZK__V1__GET_STATUS_REQUEST__INIT;
  ProtobufCMessage *resp;
  cuzk_err err = {0};
  if (rpc_client_call(s->c, RPC_STATUS, &rq.base, &resp, 5000, NULL, &err) == CUZK_OK) {
    const Cuzk__V1__GetStatusResponse *r = (const Cuzk__V1__GetStatusResponse *)resp;
    for (size_t i = 0; i < r->n_gpus && i < MAX_GPUS; i++) {
      const Cuzk__V1__GPUStatus *g = r->gpus[i];
      uint64_t used = g->vram_total_bytes > g->vram_free_bytes ? g->vram_total_bytes - g->vram_free_bytes : 0;
      s->ordinal[i] = (int)g->ordinal;
      s->vram_total[i] = g->vram_total_bytes;
      if (used > s->vram_peak[i])
        s->vram_peak[i] = used;
    }
    if (r->n_gpus > s->ngpus)
      s->ngpus = r->n_gpus < MAX_GPUS ? r->n_gpus : MAX_GPUS;
    protobuf_c_message_free_unpacked(resp, NULL);
  }
  uint64_t rss = proc_kb(s->pid, "VmRSS");
  if (rss > s->rss_peak)
    s->rss_peak = rss;
  s->samples++;
}

static void *sampler_main(void *arg) {
  sampler *s = arg;
  while (!atomic_load(&s->stop)) {
    sample_once(s);
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  sample_once(s);
  return NULL;
}

/* The daemon's counters at one moment. */
typedef struct {
  double t;
  uint64_t completed;
  int ngroups; /* -1: no busy metric */
  busy_group g[MAX_DEVS];
} snapshot;

static cuzk_status take_snapshot(rpc_client *c, snapshot *s, cuzk_err *err) {
  Cuzk__V1__GetStatusRequest sq = CUZK__V1__GET_STATUS_REQUEST__INIT;
  Cuzk__V1__GetMetricsRequest mq = CUZK__V1__GET_METRICS_REQUEST__INIT;
  ProtobufCMessage *sr, *mr;
  cuzk_status st = rpc_client_call(c, RPC_STATUS, &sq.base, &sr, 60000, NULL, err);
  if (st != CUZK_OK)
    return st;
  s->completed = ((Cuzk__V1__GetStatusResponse *)sr)->total_proofs_completed;
  protobuf_c_message_free_unpacked(sr, NULL);
  if ((st = rpc_client_call(c, RPC_METRICS, &mq.base, &mr, 60000, NULL, err)) != CUZK_OK)
    return st;
  s->t = cuzk_now_s();
  s->ngroups = parse_busy(((Cuzk__V1__GetMetricsResponse *)mr)->prometheus_text, s->g);
  protobuf_c_message_free_unpacked(mr, NULL);
  return CUZK_OK;
}

/* ---- options ----------------------------------------------------------------- */

/* "critical:1,normal:3" into weights by priority; 0 on a bad spec. */
static int parse_mix(const char *spec, unsigned w[NPRI]) {
  memset(w, 0, NPRI * sizeof *w);
  char buf[256];
  if (!spec || strlen(spec) >= sizeof buf)
    return 0;
  strcpy(buf, spec);
  unsigned total = 0;
  for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *colon = strchr(tok, ':'), *end;
    if (!colon)
      return 0;
    *colon = 0;
    int p = 1;
    while (p < NPRI && strcmp(tok, pri_name[p])) p++;
    unsigned long v = strtoul(colon + 1, &end, 10);
    if (p == NPRI || end == colon + 1 || *end || v > 1000000 || w[p])
      return 0;
    w[p] = (unsigned)v;
    total += (unsigned)v;
  }
  return total > 0;
}

/* A non-negative integer option value; prints an error and returns 0 otherwise. */
static int parse_count(const char *opt, const char *val, unsigned long *out) {
  char *end = NULL;
  if (val && *val >= '0' && *val <= '9') {
    *out = strtoul(val, &end, 10);
    if (!*end)
      return 1;
  }
  fprintf(stderr, "cuzk bench daemon: %s: '%s' is not a non-negative integer\n", opt, val ? val : "");
  return 0;
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---- the report ---------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  size_t n;
  double p50, p90, p99, max, mean; /* ms */
} lat_stats;

/* Nearest-rank percentiles of the done jobs of priority pri (0: all). */
static lat_stats latency(const bjob *jobs, size_t n, int pri, double *scratch) {
  lat_stats s = {0};
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    if (jobs[i].done && (!pri || jobs[i].pri == pri))
      sum += scratch[s.n++] = (jobs[i].t_end - jobs[i].t_submit) * 1e3;
  if (!s.n)
    return s;
  qsort(scratch, s.n, sizeof *scratch, cmp_double);
#define RANK(q) scratch[(size_t)ceil((q) * (double)s.n) - 1]
  s.p50 = RANK(0.50), s.p90 = RANK(0.90), s.p99 = RANK(0.99);
#undef RANK
  s.max = scratch[s.n - 1];
  s.mean = sum / (double)s.n;
  return s;
}

static cJSON *lat_json(lat_stats s) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "n", (double)s.n);
  const char *k[5] = {"p50", "p90", "p99", "max", "mean"};
  double v[5] = {s.p50, s.p90, s.p99, s.max, s.mean};
  for (int i = 0; i < 5; i++) {
    if (s.n)
      cJSON_AddNumberToObject(o, k[i], round(v[i] * 1e3) / 1e3);
    else
      cJSON_AddNullToObject(o, k[i]);
  }
  return o;
}

static void fmt_mib(char *out, size_t cap, uint64_t b) {
  if (b)
    snprintf(out, cap, "%.1f MiB", (double)b / (1 << 20));
  else
    snprintf(out, cap, "-");
}

/* Verifies every part of every done job; *checked the parts checked.
 * Returns the failures (a part missing its JSON counts as one). */
static size_t verify_all(const groth16_vk *vk, const bjob *jobs, size_t n, size_t nparts,
                         size_t *checked, char *first, size_t cap) {
  size_t bad = 0;
  *checked = 0;
  for (size_t i = 0; i < n; i++) {
    if (!jobs[i].done)
      continue;
    for (size_t p = 0; p < nparts; p++) {
      cuzk_err err = {0};
      groth16_proof proof;
      limb_t(*pub)[4] = NULL;
      size_t npub = 0;
      cuzk_status st = CUZK_FORMAT;
      snprintf(err.msg, sizeof err.msg, "the daemon sent no proof.json");
      if (p < jobs[i].nproofs &&
          json_parse_proof(jobs[i].proof_json[p], strlen(jobs[i].proof_json[p]), "proof", &proof,
                           &err) == CUZK_OK &&
          json_parse_public(jobs[i].public_json[p], strlen(jobs[i].public_json[p]), "public",
                            &pub, &npub, &err) == CUZK_OK)
        st = groth16_verify(vk, (const limb_t(*)[4])pub, npub, &proof, &err);
      free(pub);
      ++*checked;
      if (st != CUZK_OK && bad++ == 0)
        snprintf(first, cap, "job %zu part %zu: %s", i, p, err.msg);
    }
  }
  return bad;
}

int bench_daemon(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  const char *env = getenv("CUZK_ADDR");
  const char *addr = env && *env ? env : "unix:///run/cuzk/cuzk.sock";
  const char *circuit = NULL, *vk_path = NULL, *mix = NULL;
  cli_conn conn = {0};
  unsigned long njobs = 20, nclients = 4, warmup = 0, seed = 1, pid = 0;
  bool json = false, strict = false, shared = false;
  const char **wfiles = calloc((size_t)argc, sizeof *wfiles);
  size_t nw = 0;
  int bad = !wfiles;
  for (int i = 1; i < argc && !bad; i++) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "-n") || !strcmp(o, "--jobs"))
      bad = !cli_parse_uint(o, v, &njobs), i++;
    else if (!strcmp(o, "-j") || !strcmp(o, "--clients"))
      bad = !cli_parse_uint(o, v, &nclients), i++;
    else if (!strcmp(o, "--warmup"))
      bad = !parse_count(o, v, &warmup), i++;
    else if (!strcmp(o, "--seed"))
      bad = !parse_count(o, v, &seed), i++;
    else if (!strcmp(o, "--pid"))
      bad = !cli_parse_uint(o, v, &pid), i++;
    else if (!strncmp(o, "--tls-", 6) && cli_take_conn(argc, argv, &i, &conn, &bad))
      continue;
    else if (!strcmp(o, "--addr") || !strcmp(o, "--circuit") || !strcmp(o, "--verify") ||
             !strcmp(o, "--mix")) {
      if (!v || !*v) {
        fprintf(stderr, "cuzk bench daemon: %s needs a value\n", o);
        bad = 1;
      }
      *(!strcmp(o, "--addr") ? &addr : !strcmp(o, "--circuit") ? &circuit : !strcmp(o, "--verify") ? &vk_path : &mix) = v;
      i++;
    } else if (!strcmp(o, "--json"))
      json = true;
    else if (!strcmp(o, "--strict"))
      strict = true;
    else if (!strcmp(o, "--shared-channel"))
      shared = true;
    else if (o[0] == '-' && o[1]) {
      fprintf(stderr, "cuzk bench daemon: unknown option '%s'\n", o);
      bad = 1;
    } else
      wfiles[nw++] = o;
  }
  unsigned weight[NPRI] = {0, 0, 1, 0, 0};
  if (!bad && mix && !parse_mix(mix, weight)) {
    fprintf(stderr, "cuzk bench daemon: --mix '%s': expected PRIORITY:WEIGHT,... with priorities "
                    "low, normal, high, critical and a positive total\n", mix);
    bad = 1;
  }
  if (!bad && (!circuit || !nw || njobs == 0 || nclients == 0 || nclients > 1024 ||
               njobs > 10000000 || warmup > 10000000)) {
    fprintf(stderr, "cuzk bench daemon: %s\n",
            !circuit ? "--circuit ID is required" : !nw ? "expected at least one witness file"
                                                        : "-n and -j must be positive (-j at most 1024)");
    bad = 1;
  }
  if (bad) {
    free(wfiles);
    usage(stderr);
    return CLI_USAGE;
  }

  int rc = CLI_USAGE;
  cuzk_err err = {0};
  groth16_vk vk = {0};
  bool have_vk = false;
  mapfile *mf = calloc(nw, sizeof *mf);
  size_t nmapped = 0;
  bench b = {.addr = addr, .circuit = circuit, .nparts = nw, .want_json = vk_path != NULL};
  pthread_mutex_init(&b.mu, NULL);
  b.wit = calloc(nw, sizeof *b.wit);
  size_t total = warmup + njobs;
  b.jobs = calloc(total, sizeof *b.jobs);
  bclient *cl = calloc(nclients, sizeof *cl);
  double *scratch = calloc(njobs, sizeof *scratch);
  rpc_client *ctl = NULL;
  sampler smp = {0};
  pthread_t smp_th;
  bool smp_started = false;
  if (!mf || !b.wit || !b.jobs || !cl || !scratch) {
    fprintf(stderr, "cuzk bench daemon: out of memory\n");
    goto done;
  }
  for (; nmapped < nw; nmapped++) {
    if (mapfile_open(&mf[nmapped], wfiles[nmapped], &err) != CUZK_OK) {
      fprintf(stderr, "cuzk bench daemon: %s\n", err.msg);
      goto done;
    }
    b.wit[nmapped] = (ProtobufCBinaryData){mf[nmapped].size, (uint8_t *)mf[nmapped].data};
  }
  if (vk_path) {
    if (json_read_vk(vk_path, &vk, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk bench daemon: %s\n", err.msg);
      goto done;
    }
    have_vk = true;
  }
  /* Priorities: warmup jobs NORMAL, then the mix's draw for each job. */
  unsigned wsum = 0;
  for (int p = 1; p < NPRI; p++) wsum += weight[p];
  uint64_t rng = seed;
  for (size_t i = 0; i < total; i++) {
    b.jobs[i].pri = 2;
    if (i < warmup)
      continue;
    unsigned r = (unsigned)(splitmix64(&rng) % wsum);
    int p = 1;
    while (r >= weight[p]) r -= weight[p++];
    b.jobs[i].pri = p;
  }
  /* Channels: the control one (snapshots), the sampler's, the clients'. */
  conn.addr = addr;
  if (!(ctl = cli_connect("bench daemon", &conn)) || !(smp.c = cli_connect("bench daemon", &conn)))
    goto done;
  for (size_t i = 0; i < nclients; i++) {
    cl[i].b = &b;
    if (shared && i > 0)
      cl[i].c = cl[0].c;
    else if (!(cl[i].c = cli_connect("bench daemon", &conn)))
      goto done;
  }
  snapshot before, after;
  if (take_snapshot(ctl, &before, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk bench daemon: %s\n", err.msg);
    goto done;
  }
  smp.pid = pid ? (long)pid : peer_pid(addr);

  if (warmup && !run_phase(&b, cl, nclients, 0, warmup)) {
    fprintf(stderr, "cuzk bench daemon: cannot start the client threads\n");
    goto done;
  }
  if (!atomic_load(&b.stop)) {
    if (take_snapshot(ctl, &before, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk bench daemon: %s\n", err.msg);
      goto done;
    }
    smp_started = pthread_create(&smp_th, NULL, sampler_main, &smp) == 0;
    bool ok = run_phase(&b, cl, nclients, warmup, total);
    atomic_store(&smp.stop, true);
    if (smp_started)
      pthread_join(smp_th, NULL);
    smp_started = false;
    if (!ok) {
      fprintf(stderr, "cuzk bench daemon: cannot start the client threads\n");
      goto done;
    }
  }
  if (atomic_load(&b.stop)) {
    fprintf(stderr, "cuzk bench daemon: submissions refused before any job completed: %s\n", b.stop_msg);
    goto done;
  }
  if (take_snapshot(ctl, &after, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk bench daemon: after the run: %s\n", err.msg);
    goto done;
  }

  /* ---- figures */
  const bjob *jobs = b.jobs + warmup;
  size_t ndone = 0, nfailed = 0;
  double t0 = INFINITY, t1 = -INFINITY;
  int fail_count[RPC_CODE_UNAUTHENTICATED + 2] = {0}; /* by gRPC code; the last: unlisted */
  const char *fail_first[RPC_CODE_UNAUTHENTICATED + 2] = {0};
  for (size_t i = 0; i < njobs; i++) {
    const bjob *j = &jobs[i];
    if (j->t_submit < t0)
      t0 = j->t_submit;
    if (j->t_end > t1)
      t1 = j->t_end;
    if (j->done) {
      ndone++;
      continue;
    }
    nfailed++;
    int k = j->code >= 0 && j->code <= RPC_CODE_UNAUTHENTICATED ? j->code : RPC_CODE_UNAUTHENTICATED + 1;
    if (fail_count[k]++ == 0)
      fail_first[k] = j->msg;
  }
  double wall = t1 > t0 ? t1 - t0 : 0;
  double pps = wall > 0 ? (double)ndone / wall : 0;
  size_t nchecked = 0, nbad = 0;
  char bad_first[CUZK_ERR_MSG_MAX + 64] = "";
  if (have_vk)
    nbad = verify_all(&vk, jobs, njobs, nw, &nchecked, bad_first, sizeof bad_first);
  lat_stats lat_all = latency(jobs, njobs, 0, scratch);
  lat_stats lat_p[NPRI];
  for (int p = 1; p < NPRI; p++) lat_p[p] = latency(jobs, njobs, p, scratch);
  /* Busy fraction per device over the snapshots' window. */
  double win = after.t - before.t;
  int ngroups = before.ngroups >= 0 && after.ngroups >= 0 ? after.ngroups : -1;
  double frac[MAX_DEVS] = {0}, dbusy[MAX_DEVS] = {0};
  for (int k = 0; k < ngroups; k++) {
    double b0 = 0;
    for (int q = 0; q < before.ngroups; q++)
      if (!strcmp(before.g[q].dev, after.g[k].dev))
        b0 = before.g[q].busy_s;
    dbusy[k] = after.g[k].busy_s - b0;
    frac[k] = win > 0 && after.g[k].workers ? dbusy[k] / (win * after.g[k].workers) : 0;
  }
  uint64_t hwm = proc_kb(smp.pid, "VmHWM");

  if (json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "addr", addr);
    cJSON_AddStringToObject(o, "circuit", circuit);
    cJSON_AddNumberToObject(o, "partitions", (double)nw);
    cJSON_AddNumberToObject(o, "jobs", (double)njobs);
    cJSON_AddNumberToObject(o, "clients", (double)nclients);
    cJSON_AddBoolToObject(o, "shared_channel", shared);
    cJSON_AddNumberToObject(o, "warmup", (double)warmup);
    cJSON_AddNumberToObject(o, "seed", (double)seed);
    cJSON *m = cJSON_AddObjectToObject(o, "mix");
    for (int p = NPRI - 1; p >= 1; p--)
      if (weight[p])
        cJSON_AddNumberToObject(m, pri_name[p], weight[p]);
    cJSON_AddNumberToObject(o, "done", (double)ndone);
    cJSON_AddNumberToObject(o, "failed", (double)nfailed);
    cJSON *fl = cJSON_AddObjectToObject(o, "failures");
    for (int k = 0; k <= RPC_CODE_UNAUTHENTICATED + 1; k++)
      if (fail_count[k])
        cJSON_AddNumberToObject(fl, rpc_code_name(k), fail_count[k]);
    if (have_vk) {
      cJSON_AddNumberToObject(o, "verified", (double)(nchecked - nbad));
      cJSON_AddNumberToObject(o, "verify_failures", (double)nbad);
    } else {
      cJSON_AddNullToObject(o, "verified");
      cJSON_AddNullToObject(o, "verify_failures");
    }
    cJSON_AddNumberToObject(o, "wall_s", round(wall * 1e6) / 1e6);
    cJSON_AddNumberToObject(o, "proofs_per_s", round(pps * 1e4) / 1e4);
    cJSON_AddNumberToObject(o, "partitions_per_s", round(pps * (double)nw * 1e4) / 1e4);
    cJSON *lat = cJSON_AddObjectToObject(o, "latency_ms");
    cJSON_AddItemToObject(lat, "all", lat_json(lat_all));
    for (int p = NPRI - 1; p >= 1; p--)
      if (weight[p])
        cJSON_AddItemToObject(lat, pri_name[p], lat_json(lat_p[p]));
    cJSON *d = cJSON_AddObjectToObject(o, "daemon");
    if (smp.pid)
      cJSON_AddNumberToObject(d, "pid", (double)smp.pid);
    else
      cJSON_AddNullToObject(d, "pid");
    cJSON_AddNumberToObject(d, "completed", (double)(after.completed - before.completed));
    cJSON_AddNumberToObject(d, "window_s", round(win * 1e6) / 1e6);
    if (ngroups < 0) {
      cJSON_AddNullToObject(d, "busy");
    } else {
      cJSON *bs = cJSON_AddArrayToObject(d, "busy");
      for (int k = 0; k < ngroups; k++) {
        cJSON *g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "device", after.g[k].dev);
        cJSON_AddNumberToObject(g, "workers", after.g[k].workers);
        cJSON_AddNumberToObject(g, "busy_s", round(dbusy[k] * 1e6) / 1e6);
        cJSON_AddNumberToObject(g, "fraction", round(frac[k] * 1e4) / 1e4);
        cJSON_AddItemToArray(bs, g);
      }
    }
    cJSON *vr = cJSON_AddArrayToObject(d, "vram");
    for (size_t k = 0; k < smp.ngpus; k++) {
      cJSON *g = cJSON_CreateObject();
      cJSON_AddNumberToObject(g, "ordinal", smp.ordinal[k]);
      cJSON_AddNumberToObject(g, "peak_used_bytes", (double)smp.vram_peak[k]);
      cJSON_AddNumberToObject(g, "total_bytes", (double)smp.vram_total[k]);
      cJSON_AddItemToArray(vr, g);
    }
    cJSON_AddNumberToObject(d, "samples", (double)smp.samples);
    if (smp.rss_peak)
      cJSON_AddNumberToObject(d, "rss_peak_bytes", (double)smp.rss_peak);
    else
      cJSON_AddNullToObject(d, "rss_peak_bytes");
    if (hwm)
      cJSON_AddNumberToObject(d, "vm_hwm_bytes", (double)hwm);
    else
      cJSON_AddNullToObject(d, "vm_hwm_bytes");
    char *text = cJSON_Print(o);
    if (text)
      printf("%s\n", text);
    free(text);
    cJSON_Delete(o);
  } else {
    printf("bench daemon %s: circuit %s, %zu partition(s), %lu jobs from %lu clients (%s), "
           "warmup %lu, mix %s, seed %lu\n",
           addr, circuit, nw, njobs, nclients, shared ? "one shared channel" : "a channel each",
           warmup, mix ? mix : "normal", seed);
    printf("done %zu, failed %zu", ndone, nfailed);
    if (have_vk)
      printf("; verified %zu of %zu proofs, %zu failed", nchecked - nbad, nchecked, nbad);
    printf("\nwall %.3f s (first submission to last result): %.3f proofs/s, %.3f partitions/s\n",
           wall, pps, pps * (double)nw);
    printf("\n%-10s %6s %10s %10s %10s %10s %10s\n", "latency ms", "n", "p50", "p90", "p99", "max",
           "mean");
    for (int p = 0; p < NPRI; p++) {
      lat_stats s = p ? lat_p[NPRI - p] : lat_all;
      if (p && !weight[NPRI - p])
        continue;
      printf("%-10s %6zu %10.1f %10.1f %10.1f %10.1f %10.1f\n", p ? pri_name[NPRI - p] : "all", s.n,
             s.p50, s.p90, s.p99, s.max, s.mean);
    }
    printf("\ndaemon: %llu proofs completed in the window of %.3f s\n",
           (unsigned long long)(after.completed - before.completed), win);
    if (ngroups < 0)
      printf("busy: the daemon does not report its workers' busy time\n");
    for (int k = 0; k < ngroups; k++)
      printf("busy %-6s %u worker(s): %.1f%% (%.3f s busy)\n", after.g[k].dev, after.g[k].workers,
             100 * frac[k], dbusy[k]);
    for (size_t k = 0; k < smp.ngpus; k++) {
      char a[32], t[32];
      fmt_mib(a, sizeof a, smp.vram_peak[k]);
      fmt_mib(t, sizeof t, smp.vram_total[k]);
      printf("GPU %d: peak VRAM used %s of %s\n", smp.ordinal[k], a, t);
    }
    char r1[32], r2[32];
    fmt_mib(r1, sizeof r1, smp.rss_peak);
    fmt_mib(r2, sizeof r2, hwm);
    if (smp.pid)
      printf("pid %ld: peak RSS %s over %zu samples, VmHWM %s\n", smp.pid, r1, smp.samples, r2);
    else
      printf("RSS: unknown (a TCP address: give --pid)\n");
    for (int k = 0; k <= RPC_CODE_UNAUTHENTICATED + 1; k++)
      if (fail_count[k])
        printf("failures %s: %d (first: %s)\n", rpc_code_name(k), fail_count[k], fail_first[k]);
  }
  if (nbad)
    fprintf(stderr, "cuzk bench daemon: %zu proof(s) did not verify; first: %s\n", nbad, bad_first);
  rc = strict && (nfailed || nbad) ? CLI_NO : CLI_OK;
done:
  atomic_store(&smp.stop, true);
  if (smp_started)
    pthread_join(smp_th, NULL);
  for (size_t i = 0; b.jobs && i < total; i++) {
    for (size_t p = 0; p < b.jobs[i].nproofs; p++) {
      free(b.jobs[i].proof_json[p]);
      free(b.jobs[i].public_json[p]);
    }
    free(b.jobs[i].proof_json);
    free(b.jobs[i].public_json);
  }
  for (size_t i = 0; cl && i < nclients; i++)
    if (!shared || i == 0)
      rpc_client_free(cl[i].c);
  rpc_client_free(smp.c);
  rpc_client_free(ctl);
  if (have_vk)
    groth16_vk_fini(&vk);
  for (size_t i = 0; i < nmapped; i++) mapfile_close(&mf[i]);
  pthread_mutex_destroy(&b.mu);
  free(mf);
  free(b.wit);
  free(b.jobs);
  free(cl);
  free(scratch);
  free(wfiles);
  return rc;
}

#else /* built without gRPC */

int bench_daemon(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  fprintf(stderr, "cuzk bench daemon: built without gRPC, so it cannot talk to a daemon (rebuild with "
                  "make GRPC=1)\n");
  return CLI_USAGE;
}

#endif
