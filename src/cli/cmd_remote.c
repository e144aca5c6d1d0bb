/* cuzk submit / await / cancel / status / metrics / preload / evict, and
 * `cuzk prove --circuit`: the client side of the daemon's gRPC service
 * (proto/cuzk/v1/proving.proto) through src/server/rpc_client.h.
 *
 * Every command takes --addr A (default $CUZK_ADDR, else
 * unix:///run/cuzk/cuzk.sock) and the TLS options (cli_conn): TLS when A
 * is tls://host:port or a --tls-* option is given.  Exit status: 0 success; 1 a negative answer
 * (await: the job is still running at its timeout); 2 bad usage, an
 * unreachable daemon, a refused request or a failed job.  Output files are
 * written by fileio_write (base/fileio.h: a new file renamed into place, so
 * a failure never leaves a partial file; a device or FIFO written in place;
 * a symbolic link followed), and never over one another (cli_outputs_ok).
 * Built without gRPC, each command says so and exits 2. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/cli.h"

#define REMOTE_DEFAULT_ADDR "unix:///run/cuzk/cuzk.sock"

#define ADDR_HELP                                                                          \
  "  --addr A      the daemon: unix:///path, host:port, or tls://host:port for TLS\n"      \
  "                (default $CUZK_ADDR, else " REMOTE_DEFAULT_ADDR ")\n" CLI_TLS_HELP

static const char submit_help[] =
    "usage: cuzk submit [--addr A] [--priority P] [--request-id ID] [--witness-by W]\n"
    "                   CIRCUIT_ID witness.wtns...\n"
    "\n"
    "Queues a proof job on the daemon: one .wtns witness per partition of circuit\n"
    "CIRCUIT_ID (a key the daemon knows).  Prints the job id on stdout; `cuzk await`\n"
    "fetches the proof.\n"
    "\n"
    "options:\n" ADDR_HELP
    "  --priority P  low, normal (default), high or critical (or 1-4)\n"
    "  --request-id ID\n"
    "                the caller's id: submitting it again attaches to the same job\n"
    "                instead of proving twice (default: the daemon makes one)\n"
    "  --witness-by W  how the witnesses reach the daemon: bytes (in the message),\n"
    "                file (named in the daemon's witness directory, [srs] witness_dir:\n"
    "                a witness elsewhere is hard-linked or copied there for the submit)\n"
    "                or auto (default: file when one is 64 MiB or more and the daemon\n"
    "                has a witness directory, else bytes)\n"
    "  --json        accepted for older scripts: the job always carries snarkjs\n"
    "                proof.json / public.json for `cuzk await JOB_ID proof.json public.json`\n";

static const char await_help[] =
    "usage: cuzk await [--addr A] [--timeout-ms T] [--proof-out FILE] JOB_ID [proof.json public.json]\n"
    "\n"
    "Waits for a job and prints its outcome and timings on stderr.  With\n"
    "proof.json public.json it writes snarkjs's files (with several partitions part i\n"
    "goes to proof.i.json and public.i.json; a job another client submitted without\n"
    "want_json has only the bytes); for a bellperson key's job they are PROOF.bin (the\n"
    "proof bytes) and PUBLIC.json (the inputs, an array per partition), as `cuzk prove\n"
    "--pce` writes them; with --proof-out the raw proof bytes (192 per partition,\n"
    "compressed A||B||C).  No two outputs may be the same file.\n"
    "\n"
    "options:\n" ADDR_HELP
    "  --timeout-ms T  wait at most T ms (default 0: until the job ends)\n"
    "  --proof-out FILE\n"
    "\n"
    "exit status: 0 completed; 1 still running at the timeout; 2 failed, cancelled,\n"
    "unknown job, or the daemon could not be reached.\n";

static const char cancel_help[] =
    "usage: cuzk cancel [--addr A] JOB_ID\n"
    "\n"
    "Cancels a job that has not finished: its waiters get CANCELLED at once and its\n"
    "queued partitions are dropped; a partition already proving keeps its worker\n"
    "until the prover's step under way (a and b, the quotient, the MSMs, the\n"
    "verification) ends.  A finished job is left as it is.\n"
    "\n"
    "options:\n" ADDR_HELP;

static const char status_help[] =
    "usage: cuzk status [--addr A] [--json]\n"
    "\n"
    "Prints the daemon's state: workers and GPUs, keys and their tiers, jobs per\n"
    "circuit and state, budgets and counters; --json prints it as JSON (the\n"
    "field names of cuzk.v1.GetStatusResponse).\n"
    "\n"
    "options:\n" ADDR_HELP;

static const char metrics_help[] =
    "usage: cuzk metrics [--addr A]\n"
    "\n"
    "Prints the daemon's metrics in Prometheus text format.\n"
    "\n"
    "options:\n" ADDR_HELP;

static const char preload_help[] =
    "usage: cuzk preload [--addr A] CIRCUIT_ID\n"
    "\n"
    "Loads the circuit's key to its hot tier now, so that the first proof does\n"
    "not wait for it.\n"
    "\n"
    "options:\n" ADDR_HELP;

static const char evict_help[] =
    "usage: cuzk evict [--addr A] CIRCUIT_ID\n"
    "\n"
    "Drops the circuit's key back to disk (at once when idle, else when its last\n"
    "job lets go of it).\n"
    "\n"
    "options:\n" ADDR_HELP;

/* Prints help when asked; else 0. */
static int maybe_help(int argc, char **argv, const char *help) {
  if (!cli_wants_help(argc, argv))
    return 0;
  fputs(help, stdout);
  return 1;
}

int cli_parse_priority(const char *v, int *out) {
  static const char *const names[] = {"", "low", "normal", "high", "critical"};
  for (int p = 1; p <= 4; p++)
    if (v && (!strcmp(v, names[p]) || (v[0] == '0' + p && !v[1]))) {
      *out = p;
      return 1;
    }
  fprintf(stderr, "cuzk: --priority: '%s' is not low, normal, high or critical (or 1-4)\n", v ? v : "");
  return 0;
}

int cli_take_conn(int argc, char **argv, int *i, cli_conn *conn, int *bad) {
  static const struct {
    const char *opt, *what;
    size_t off;
  } opts[] = {
      {"--addr", "an address (unix:///path, host:port or tls://host:port)", offsetof(cli_conn, addr)},
      {"--tls-ca", "a PEM file", offsetof(cli_conn, tls_ca)},
      {"--tls-cert", "a PEM file", offsetof(cli_conn, tls_cert)},
      {"--tls-key", "a PEM file", offsetof(cli_conn, tls_key)},
      {"--tls-server-name", "a host name", offsetof(cli_conn, tls_server_name)},
  };
  for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
    if (strcmp(argv[*i], opts[k].opt))
      continue;
    if (*i + 1 >= argc || !*argv[*i + 1]) {
      fprintf(stderr, "cuzk: %s needs %s\n", opts[k].opt, opts[k].what);
      *bad = 1;
    } else {
      *(const char **)((char *)conn + opts[k].off) = argv[++*i];
    }
    return 1;
  }
  return 0;
}

#if CUZK_GRPC

#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/bytes.h"
#include "base/fileio.h"
#include "base/mapfile.h"
#include "groth16/json.h"
#include "server/rpc_client.h"
#include "server/rpc_status.h"

static const char *default_addr(void) {
  const char *a = getenv("CUZK_ADDR");
  return a && *a ? a : REMOTE_DEFAULT_ADDR;
}

/* ---- small helpers ------------------------------------------------------------ */

/* path for partition i of n: path itself when n == 1, else "x.json" ->
 * "x.<i>.json" (or "path.<i>" without a .json suffix). */
static void part_path(char *out, size_t cap, const char *path, size_t i, size_t n) {
  size_t len = strlen(path);
  if (n == 1)
    snprintf(out, cap, "%s", path);
  else if (len > 5 && !strcmp(path + len - 5, ".json"))
    snprintf(out, cap, "%.*s.%zu.json", (int)(len - 5), path, i);
  else
    snprintf(out, cap, "%s.%zu", path, i);
}

static cuzk_status status_by_name(const char *name) {
  for (int s = 0; s < CUZK_STATUS_COUNT; s++)
    if (name && !strcmp(name, cuzk_status_name((cuzk_status)s)))
      return (cuzk_status)s;
  return CUZK_INTERNAL;
}

struct rpc_client *cli_connect(const char *cmd, const cli_conn *conn) {
  const char *addr = conn->addr && *conn->addr ? conn->addr : default_addr();
  bool tls = conn->tls_ca || conn->tls_cert || conn->tls_key || conn->tls_server_name;
  char *pem[3] = {NULL, NULL, NULL};
  size_t len;
  const char *files[3] = {conn->tls_ca, conn->tls_cert, conn->tls_key};
  rpc_client *c = NULL;
  for (int i = 0; i < 3; i++)
    if (files[i] && !(pem[i] = cli_read_text(cmd, files[i], &len)))
      goto done;
  rpc_client_tls t = {pem[0], pem[1], pem[2], conn->tls_server_name};
  cuzk_err err = {0};
  if (rpc_client_new_tls(&c, addr, tls ? &t : NULL, 0, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk %s: %s\n", cmd, err.msg);
    c = NULL;
  }
done:
  for (int i = 0; i < 3; i++)
    free(pem[i]);
  return c;
}

/* One call; prints the error and returns its exit status, or 0. */
static int call(const char *cmd, rpc_client *c, rpc_method m, const ProtobufCMessage *req,
                ProtobufCMessage **resp, uint64_t timeout_ms) {
  cuzk_err err = {0};
  cuzk_status st = rpc_client_call(c, m, req, resp, timeout_ms, NULL, &err);
  if (st == CUZK_OK)
    return CLI_OK;
  fprintf(stderr, "cuzk %s: %s\n", cmd, err.msg);
  return rpc_status_exit(st) ? rpc_status_exit(st) : CLI_USAGE;
}

static void fmt_bytes(char *out, size_t cap, uint64_t b) {
  static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)b;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  if (u == 0)
    snprintf(out, cap, "%llu B", (unsigned long long)b);
  else
    snprintf(out, cap, "%.1f %s", v, unit[u]);
}

/* "queue 1 ms, key load 0 ms, ..." */
static void print_timings(FILE *f, const Cuzk__V1__AwaitProofResponse *r) {
  fprintf(f, "total %llu ms (queue %llu, key load %llu, prepare %llu, prove %llu, finalize %llu)",
          (unsigned long long)r->total_ms, (unsigned long long)r->queue_wait_ms,
          (unsigned long long)r->srs_load_ms, (unsigned long long)r->prepare_ms,
          (unsigned long long)r->gpu_compute_ms, (unsigned long long)r->finalize_ms);
}

/* Writes one output file; prints and returns the exit status. */
static int put_file(const char *cmd, const char *path, const void *data, size_t len) {
  cuzk_err err = {0};
  if (fileio_write(path, data, len, &err) == CUZK_OK)
    return CLI_OK;
  fprintf(stderr, "cuzk %s: %s\n", cmd, err.msg);
  return CLI_USAGE;
}

#define PATH_CAP 4096

/* Writes a completed result's outputs (proof_out, then proof.json and
 * public.json per partition), after checking that no two are one file;
 * prints and returns the exit status. */
/* A bellperson key's job (public_json without proof_json: the daemon's
 * answer for such a key): the proof bytes to proof_path (PROOF.bin, k x 192
 * bytes) and the public inputs to public_path as `cuzk prove --pce` writes
 * PUBLIC.json (an array per partition when k > 1). */
static int write_bp_result(const char *cmd, const Cuzk__V1__AwaitProofResponse *r,
                           const char *proof_path, const char *public_path) {
  const size_t k = r->n_public_json;
  const char *outs[2] = {proof_path, public_path};
  if (!cli_outputs_ok(cmd, NULL, 0, outs, 2))
    return CLI_USAGE;
  int rc = put_file(cmd, proof_path, r->proof.data, r->proof.len);
  if (rc != CLI_OK || k == 1)
    return rc == CLI_OK ? put_file(cmd, public_path, r->public_json[0], strlen(r->public_json[0]))
                        : rc;
  uint8_t *sig = NULL;
  size_t m = 0;
  cuzk_err err = {0};
  for (size_t i = 0; i < k && rc == CLI_OK; i++) {
    limb_t(*v)[4] = NULL;
    size_t n = 0;
    if (json_parse_public(r->public_json[i], strlen(r->public_json[i]), "the daemon's public_json",
                          &v, &n, &err) != CUZK_OK ||
        (i && n != m)) {
      fprintf(stderr, "cuzk %s: job %s: partition %zu's public inputs: %s\n", cmd, r->job_id, i,
              err.msg[0] ? err.msg : "another count than partition 0's");
      rc = CLI_USAGE;
    } else if (!i && !(sig = malloc((n ? n : 1) * k * 32))) {
      fprintf(stderr, "cuzk %s: out of memory\n", cmd);
      rc = CLI_USAGE;
    } else {
      m = n;
      for (size_t j = 0; j < n; j++) limbs_to_le(sig + 32 * (i * m + j), v[j], 4);
    }
    free(v);
  }
  if (rc == CLI_OK && json_write_public_parts(public_path, sig, k, m, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk %s: %s\n", cmd, err.msg);
    rc = CLI_USAGE;
  }
  free(sig);
  return rc;
}

static int write_result(const char *cmd, const Cuzk__V1__AwaitProofResponse *r, const char *proof_json,
                        const char *public_json, const char *proof_out) {
  if (proof_json && r->n_proof_json == 0 && r->n_public_json > 0 &&
      r->proof.len == r->n_public_json * 192) {
    if (proof_out && !strcmp(proof_out, proof_json))
      return write_bp_result(cmd, r, proof_json, public_json);
    int rc = write_bp_result(cmd, r, proof_json, public_json);
    return rc == CLI_OK && proof_out ? put_file(cmd, proof_out, r->proof.data, r->proof.len) : rc;
  }
  size_t nparts = proof_json ? r->n_proof_json : 0;
  if (proof_json && (nparts == 0 || nparts != r->n_public_json)) {
    fprintf(stderr,
            "cuzk %s: job %s has no proof.json: its client submitted it without want_json (use --proof-out "
            "FILE for the proof bytes)\n",
            cmd, r->job_id);
    return CLI_USAGE;
  }
  size_t n = 2 * nparts + (proof_out ? 1 : 0);
  char(*paths)[PATH_CAP] = malloc((n ? n : 1) * sizeof *paths);
  const char **names = malloc((n ? n : 1) * sizeof *names);
  if (!paths || !names) {
    free(paths);
    free(names);
    fprintf(stderr, "cuzk %s: out of memory\n", cmd);
    return CLI_USAGE;
  }
  size_t k = 0;
  if (proof_out)
    snprintf(paths[k++], PATH_CAP, "%s", proof_out);
  for (size_t i = 0; i < nparts; i++) {
    part_path(paths[k++], PATH_CAP, proof_json, i, nparts);
    part_path(paths[k++], PATH_CAP, public_json, i, nparts);
  }
  for (k = 0; k < n; k++)
    names[k] = paths[k];
  int rc = cli_outputs_ok(cmd, NULL, 0, names, n) ? CLI_OK : CLI_USAGE;
  k = 0;
  if (rc == CLI_OK && proof_out)
    rc = put_file(cmd, paths[k++], r->proof.data, r->proof.len);
  for (size_t i = 0; rc == CLI_OK && i < nparts; i++) {
    rc = put_file(cmd, paths[k++], r->proof_json[i], strlen(r->proof_json[i]));
    if (rc == CLI_OK)
      rc = put_file(cmd, paths[k++], r->public_json[i], strlen(r->public_json[i]));
  }
  free(names);
  free(paths);
  return rc;
}

/* The exit status for a finished (or timed-out) job's result, after
 * printing what happened. */
static int report_result(const char *cmd, const Cuzk__V1__AwaitProofResponse *r, int quiet) {
  switch (r->status) {
  case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED:
    if (!quiet) {
      fprintf(stderr, "cuzk %s: job %s completed: %zu bytes, ", cmd, r->job_id, r->proof.len);
      print_timings(stderr, r);
      fputc('\n', stderr);
    }
    return CLI_OK;
  case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT:
    fprintf(stderr, "cuzk %s: job %s is still %s at the timeout\n", cmd, r->job_id,
            *r->state ? r->state : "running");
    return CLI_NO;
  case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED:
    fprintf(stderr, "cuzk %s: job %s failed: %s\n", cmd, r->job_id, r->error_message);
    return rpc_status_exit(status_by_name(r->error_code));
  case CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED:
    /* the daemon's reason, e.g. "cancelled: the engine is shutting down" */
    if (*r->error_message)
      fprintf(stderr, "cuzk %s: job %s was %s\n", cmd, r->job_id, r->error_message);
    else
      fprintf(stderr, "cuzk %s: job %s was cancelled\n", cmd, r->job_id);
    return CLI_USAGE;
  default:
    fprintf(stderr, "cuzk %s: job %s: the daemon answered status %d\n", cmd, r->job_id, (int)r->status);
    return CLI_USAGE;
  }
}

/* ---- commands ----------------------------------------------------------------- */

#define SHORT_CALL_MS 60000 /* status, metrics, cancel */


static int unknown_option(const char *cmd, const char *opt, const char *help) {
  fprintf(stderr, "cuzk %s: unknown option '%s'\n\n", cmd, opt);
  fputs(help, stderr);
  return CLI_USAGE;
}

/* Witness files (SubmitProofRequest.witness_file) instead of bytes, for
 * witnesses too large to send well in a message: when one of a request's
 * witnesses has at least WREF_MIN bytes and the daemon has a witness
 * directory (GetStatus), every witness of the request is named: one
 * already inside the directory by its path there; another by a hard link
 * made there, or a copy where no link can be made (another file system),
 * under a name of this process's, which wrefs_free unlinks once the
 * submit has answered (the daemon keeps the files it accepted open).  A
 * daemon without a witness directory gets the bytes. */
#define WREF_MIN ((uint64_t)64 << 20)

typedef struct {
  char **names;  /* NULL: send the bytes */
  char **made;   /* the links and copies made (full paths), to unlink */
  size_t n;
} wrefs;

static void wrefs_free(wrefs *r) {
  for (size_t i = 0; r->made && i < r->n; i++) {
    if (r->made[i])
      unlink(r->made[i]);
    free(r->made[i]);
  }
  for (size_t i = 0; r->names && i < r->n; i++) free(r->names[i]);
  free(r->names), free(r->made);
  memset(r, 0, sizeof *r);
}

/* Copies src to a new file dst (O_EXCL); false with errno on failure. */
static bool copy_file(const char *src, const char *dst) {
  int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
  bool ok = in >= 0 && (out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0;
  while (ok) {
    ssize_t k = copy_file_range(in, NULL, out, NULL, (size_t)1 << 30, 0);
    if (k == 0)
      break;
    if (k < 0 && errno == EINTR)
      continue;
    ok = k > 0;
  }
  int e = errno;
  if (out >= 0 && close(out) != 0)
    ok = false;
  if (in >= 0)
    close(in);
  if (!ok && out >= 0)
    unlink(dst);
  errno = e;
  return ok;
}

typedef enum { WBY_AUTO, WBY_FILE, WBY_BYTES } witness_by;

static int witness_refs(const char *cmd, rpc_client *c, const char *const *paths,
                        const mapfile *mf, size_t n, witness_by by, wrefs *out) {
  memset(out, 0, sizeof *out);
  bool large = false;
  for (size_t i = 0; i < n; i++) large |= mf[i].size >= WREF_MIN;
  if (by == WBY_BYTES || (by == WBY_AUTO && !large))
    return CLI_OK;
  Cuzk__V1__GetStatusRequest st = CUZK__V1__GET_STATUS_REQUEST__INIT;
  ProtobufCMessage *resp;
  int rc = call(cmd, c, RPC_STATUS, &st.base, &resp, SHORT_CALL_MS);
  if (rc != CLI_OK)
    return rc;
  const char *wd = ((Cuzk__V1__GetStatusResponse *)resp)->witness_dir;
  char dir[PATH_MAX] = "";
  if (wd)
    snprintf(dir, sizeof dir, "%s", wd);
  protobuf_c_message_free_unpacked(resp, NULL);
  if (!dir[0] && by == WBY_FILE) {
    fprintf(stderr, "cuzk %s: --witness-by file: the daemon at %s has no witness directory "
                    "([srs] witness_dir)\n", cmd, rpc_client_addr(c));
    return CLI_USAGE;
  }
  if (!dir[0])
    return CLI_OK; /* the bytes: the daemon takes no files */
  out->n = n;
  out->names = calloc(n, sizeof *out->names);
  out->made = calloc(n, sizeof *out->made);
  if (!out->names || !out->made) {
    wrefs_free(out);
    fprintf(stderr, "cuzk %s: out of memory\n", cmd);
    return CLI_USAGE;
  }
  const size_t dl = strlen(dir);
  for (size_t i = 0; i < n; i++) {
    char real[PATH_MAX];
    if (realpath(paths[i], real) && !strncmp(real, dir, dl) && real[dl] == '/') {
      out->names[i] = strdup(real + dl + 1);
    } else {
      char name[96], full[PATH_MAX + 96];
      snprintf(name, sizeof name, ".cuzk-%ld-%zu-%llx.wtns", (long)getpid(), i,
               (unsigned long long)(cuzk_now_s() * 1e6));
      snprintf(full, sizeof full, "%s/%s", dir, name);
      if (link(paths[i], full) != 0 && !copy_file(paths[i], full)) {
        fprintf(stderr,
                "cuzk %s: %s (%llu bytes): cannot place it in the daemon's witness directory "
                "%s: %s\n",
                cmd, paths[i], (unsigned long long)mf[i].size, dir, strerror(errno));
        wrefs_free(out);
        return CLI_USAGE;
      }
      out->made[i] = strdup(full);
      out->names[i] = strdup(name);
      if (!out->made[i]) /* not to be unlinked is worse than a message */
        unlink(full);
    }
    if (!out->names[i]) {
      fprintf(stderr, "cuzk %s: out of memory\n", cmd);
      wrefs_free(out);
      return CLI_USAGE;
    }
  }
  return CLI_OK;
}

int cmd_submit(int argc, char **argv) {
  if (maybe_help(argc, argv, submit_help))
    return CLI_OK;
  cli_conn conn = {0};
  const char *request_id = "";
  int priority = 0, bad = 0;
  witness_by by = WBY_AUTO;
  const char **pos = calloc((size_t)argc, sizeof *pos);
  size_t npos = 0;
  if (!pos)
    return CLI_USAGE;
  for (int i = 1; i < argc && !bad; i++) {
    if (cli_take_conn(argc, argv, &i, &conn, &bad))
      continue;
    if (!strcmp(argv[i], "--priority"))
      bad = !cli_parse_priority(i + 1 < argc ? argv[++i] : NULL, &priority);
    else if (!strcmp(argv[i], "--request-id"))
      request_id = i + 1 < argc ? argv[++i] : "";
    else if (!strcmp(argv[i], "--json"))
      continue; /* the JSON is always asked for */
    else if (!strcmp(argv[i], "--witness-by")) {
      const char *v = i + 1 < argc ? argv[++i] : "";
      by = !strcmp(v, "file") ? WBY_FILE : !strcmp(v, "bytes") ? WBY_BYTES : WBY_AUTO;
      if (strcmp(v, "auto") && by == WBY_AUTO) {
        fprintf(stderr, "cuzk submit: --witness-by '%s': expected auto, file or bytes\n", v);
        bad = 1;
      }
    }
    else if (argv[i][0] == '-' && argv[i][1]) {
      free(pos);
      return unknown_option("submit", argv[i], submit_help);
    } else
      pos[npos++] = argv[i];
  }
  if (bad || npos < 2) {
    if (!bad)
      fprintf(stderr, "cuzk submit: expected CIRCUIT_ID and at least one witness file\n\n%s", submit_help);
    free(pos);
    return CLI_USAGE;
  }
  size_t nw = npos - 1;
  ProtobufCBinaryData *w = calloc(nw, sizeof *w);
  mapfile *mf = calloc(nw, sizeof *mf);
  size_t nmapped = 0;
  int rc = CLI_USAGE;
  cuzk_err err = {0};
  rpc_client *c = NULL;
  wrefs refs = {0};
  for (; w && mf && nmapped < nw; nmapped++) {
    if (mapfile_open(&mf[nmapped], pos[1 + nmapped], &err) != CUZK_OK) {
      fprintf(stderr, "cuzk submit: %s\n", err.msg);
      goto done;
    }
    w[nmapped].data = (uint8_t *)mf[nmapped].data;
    w[nmapped].len = mf[nmapped].size;
  }
  if (!w || !mf || !(c = cli_connect("submit", &conn)) ||
      (rc = witness_refs("submit", c, pos + 1, mf, nw, by, &refs)) != CLI_OK)
    goto done;
  Cuzk__V1__SubmitProofRequest rq = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  rq.request_id = (char *)request_id;
  rq.priority = (Cuzk__V1__Priority)priority;
  rq.circuit_id = (char *)pos[0];
  if (refs.names) {
    rq.n_witness_file = nw;
    rq.witness_file = refs.names;
  } else {
    rq.n_witness = nw;
    rq.witness = w;
  }
  /* The JSON travels with the job, so that a later `cuzk await JOB
   * proof.json public.json` finds it (about 1 KB per partition). */
  rq.want_json = 1;
  ProtobufCMessage *resp;
  rc = call("submit", c, RPC_SUBMIT, &rq.base, &resp, 0);
  /* A witness changed while it was read and sent (mapfile.h): the job
   * has bytes that are not the file's; say so, and fail.  (A named file is
   * the daemon's to check: it compares its identity with the submit's.) */
  for (size_t i = 0; rc == CLI_OK && !refs.names && i < nmapped; i++)
    if (mapfile_check(&mf[i], &err) != CUZK_OK) {
      Cuzk__V1__SubmitProofResponse *r = (Cuzk__V1__SubmitProofResponse *)resp;
      fprintf(stderr, "cuzk submit: %s: cancel job %s, which was sent what was read\n", err.msg,
              r->job_id);
      protobuf_c_message_free_unpacked(resp, NULL);
      rc = CLI_USAGE;
    }
  if (rc == CLI_OK) {
    Cuzk__V1__SubmitProofResponse *r = (Cuzk__V1__SubmitProofResponse *)resp;
    printf("%s\n", r->job_id);
    if (r->attached)
      fprintf(stderr, "cuzk submit: request id '%s' was already known: attached to job %s\n", request_id,
              r->job_id);
    else
      fprintf(stderr, "cuzk submit: job %s queued behind %u job(s)\n", r->job_id, r->queue_position);
    protobuf_c_message_free_unpacked(resp, NULL);
  }
done:
  wrefs_free(&refs);
  for (size_t i = 0; i < nmapped; i++)
    mapfile_close(&mf[i]);
  free(mf);
  free(w);
  free(pos);
  rpc_client_free(c);
  return rc;
}

int cmd_await(int argc, char **argv) {
  if (maybe_help(argc, argv, await_help))
    return CLI_OK;
  cli_conn conn = {0};
  const char *proof_out = NULL, *pos[3];
  unsigned long timeout_ms = 0;
  int npos = 0, bad = 0;
  for (int i = 1; i < argc && !bad; i++) {
    if (cli_take_conn(argc, argv, &i, &conn, &bad))
      continue;
    if (!strcmp(argv[i], "--timeout-ms"))
      bad = !cli_parse_uint("--timeout-ms", i + 1 < argc ? argv[++i] : NULL, &timeout_ms);
    else if (!strcmp(argv[i], "--proof-out"))
      proof_out = i + 1 < argc ? argv[++i] : NULL, bad = !proof_out;
    else if (argv[i][0] == '-' && argv[i][1])
      return unknown_option("await", argv[i], await_help);
    else if (npos < 3)
      pos[npos++] = argv[i];
    else
      npos++;
  }
  if (bad)
    return CLI_USAGE;
  if (npos != 1 && npos != 3) {
    fprintf(stderr, "cuzk await: expected JOB_ID [proof.json public.json]\n\n%s", await_help);
    return CLI_USAGE;
  }
  /* The names given, checked before the wait; write_result checks the
   * partitions' names too. */
  const char *outs[3];
  size_t nouts = 0;
  if (proof_out)
    outs[nouts++] = proof_out;
  if (npos == 3)
    outs[nouts++] = pos[1], outs[nouts++] = pos[2];
  if (!cli_outputs_ok("await", NULL, 0, outs, nouts))
    return CLI_USAGE;
  rpc_client *c = cli_connect("await", &conn);
  if (!c)
    return CLI_USAGE;
  Cuzk__V1__AwaitProofRequest rq = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
  rq.job_id = (char *)pos[0];
  rq.timeout_ms = timeout_ms;
  ProtobufCMessage *resp;
  /* the call's deadline: the wait plus a minute for the reply */
  int rc = call("await", c, RPC_AWAIT, &rq.base, &resp, timeout_ms ? timeout_ms + 60000 : 0);
  if (rc == CLI_OK) {
    Cuzk__V1__AwaitProofResponse *r = (Cuzk__V1__AwaitProofResponse *)resp;
    rc = report_result("await", r, 0);
    if (rc == CLI_OK)
      rc = write_result("await", r, npos == 3 ? pos[1] : NULL, npos == 3 ? pos[2] : NULL, proof_out);
    protobuf_c_message_free_unpacked(resp, NULL);
  }
  rpc_client_free(c);
  return rc;
}

int cli_remote_prove(const cli_conn *conn, const char *circuit, int priority, const char *request_id,
                     const char *wtns, const char *proof_json, const char *public_json, int quiet) {
  cuzk_err err = {0};
  mapfile mf;
  if (mapfile_open(&mf, wtns, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk prove: %s\n", err.msg);
    return CLI_USAGE;
  }
  ProtobufCBinaryData w = {mf.size, (uint8_t *)mf.data};
  rpc_client *c = cli_connect("prove", conn);
  if (!c) {
    mapfile_close(&mf);
    return CLI_USAGE;
  }
  wrefs refs;
  int rc = witness_refs("prove", c, &wtns, &mf, 1, WBY_AUTO, &refs);
  if (rc != CLI_OK) {
    mapfile_close(&mf);
    rpc_client_free(c);
    return rc;
  }
  Cuzk__V1__SubmitProofRequest sub = CUZK__V1__SUBMIT_PROOF_REQUEST__INIT;
  sub.request_id = (char *)(request_id ? request_id : "");
  sub.priority = (Cuzk__V1__Priority)priority;
  sub.circuit_id = (char *)circuit;
  if (refs.names) {
    sub.n_witness_file = 1;
    sub.witness_file = refs.names;
  } else {
    sub.n_witness = 1;
    sub.witness = &w;
  }
  sub.want_json = 1;
  Cuzk__V1__ProveRequest rq = CUZK__V1__PROVE_REQUEST__INIT;
  rq.submit = &sub;
  ProtobufCMessage *resp;
  /* Prove answers when the proof is done: a link or copy made for it is
   * unlinked then (wrefs_free), long after the daemon opened it. */
  rc = call("prove", c, RPC_PROVE, &rq.base, &resp, 0);
  /* A named file is the daemon's to check (it compares the file's
   * identity with the one at submit); a link made to it changed its ctime. */
  const bool sent_bytes = !refs.names;
  wrefs_free(&refs);
  if (rc == CLI_OK && sent_bytes && mapfile_check(&mf, &err) != CUZK_OK) { /* changed as sent */
    fprintf(stderr, "cuzk prove: %s; no proof written\n", err.msg);
    protobuf_c_message_free_unpacked(resp, NULL);
    rc = CLI_USAGE;
  }
  mapfile_close(&mf);
  if (rc == CLI_OK) {
    Cuzk__V1__ProveResponse *pr = (Cuzk__V1__ProveResponse *)resp;
    if (!pr->result) {
      fprintf(stderr, "cuzk prove: the daemon at %s answered without a result\n", rpc_client_addr(c));
      rc = CLI_USAGE;
    } else {
      rc = report_result("prove", pr->result, quiet || pr->result->total_ms < 2000); /* as a local prove */
      if (rc == CLI_OK)
        rc = write_result("prove", pr->result, proof_json, public_json, NULL);
    }
    protobuf_c_message_free_unpacked(resp, NULL);
  }
  rpc_client_free(c);
  return rc;
}

/* cancel, preload and evict: [--addr A] and one id. */
static int one_id_command(int argc, char **argv, rpc_method m) {
  const char *cmd = m == RPC_CANCEL ? "cancel" : m == RPC_PRELOAD ? "preload" : "evict";
  const char *help = m == RPC_CANCEL ? cancel_help : m == RPC_PRELOAD ? preload_help : evict_help;
  if (maybe_help(argc, argv, help))
    return CLI_OK;
  cli_conn conn = {0};
  const char *id = NULL;
  int bad = 0, n = 0;
  for (int i = 1; i < argc && !bad; i++) {
    if (cli_take_conn(argc, argv, &i, &conn, &bad))
      continue;
    if (argv[i][0] == '-' && argv[i][1])
      return unknown_option(cmd, argv[i], help);
    if (n++ == 0)
      id = argv[i];
  }
  if (!bad && n != 1)
    fprintf(stderr, "cuzk %s: expected one %s\n\n%s", cmd, m == RPC_CANCEL ? "JOB_ID" : "CIRCUIT_ID", help);
  rpc_client *c = bad || n != 1 ? NULL : cli_connect(cmd, &conn);
  if (!c)
    return CLI_USAGE;
  Cuzk__V1__CancelProofRequest cancel = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
  Cuzk__V1__PreloadSrsRequest preload = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
  Cuzk__V1__EvictSrsRequest evict = CUZK__V1__EVICT_SRS_REQUEST__INIT;
  cancel.job_id = preload.circuit_id = evict.circuit_id = (char *)id;
  const ProtobufCMessage *rq = m == RPC_CANCEL ? &cancel.base : m == RPC_PRELOAD ? &preload.base : &evict.base;
  ProtobufCMessage *resp;
  /* loading a key may take minutes: no deadline but for cancel */
  int rc = call(cmd, c, m, rq, &resp, m == RPC_CANCEL ? SHORT_CALL_MS : 0);
  if (rc == CLI_OK && m == RPC_CANCEL) {
    printf("job %s: %s\n", id,
           ((Cuzk__V1__CancelProofResponse *)resp)->was_running
               ? "cancelled (it was running)"
               : "cancelled unless it had already finished (it was not running)");
  } else if (rc == CLI_OK && m == RPC_PRELOAD) {
    Cuzk__V1__PreloadSrsResponse *r = (Cuzk__V1__PreloadSrsResponse *)resp;
    if (r->already_loaded)
      printf("key %s: already loaded\n", id);
    else
      printf("key %s: loaded in %llu ms\n", id, (unsigned long long)r->load_time_ms);
  } else if (rc == CLI_OK) {
    Cuzk__V1__EvictSrsResponse *r = (Cuzk__V1__EvictSrsResponse *)resp;
    char b[32];
    fmt_bytes(b, sizeof b, r->freed_bytes);
    if (!r->was_loaded)
      printf("key %s: was not loaded\n", id);
    else if (r->freed_bytes)
      printf("key %s: evicted, %s freed\n", id, b);
    else
      printf("key %s: in use; evicted when its last job lets go of it\n", id);
  }
  if (rc == CLI_OK)
    protobuf_c_message_free_unpacked(resp, NULL);
  rpc_client_free(c);
  return rc;
}

int cmd_cancel(int argc, char **argv) { return one_id_command(argc, argv, RPC_CANCEL); }
int cmd_preload(int argc, char **argv) { return one_id_command(argc, argv, RPC_PRELOAD); }
int cmd_evict(int argc, char **argv) { return one_id_command(argc, argv, RPC_EVICT); }

/* A reply as JSON, walked through protobuf-c's descriptors: the proto's
 * field names, enums by name, numbers as JSON numbers (exact below 2^53:
 * counts, bytes and milliseconds).  Bytes and floating fields, which no
 * reply printed here has, come out null. */
static cJSON *message_json(const ProtobufCMessage *m);

static cJSON *field_json(const ProtobufCFieldDescriptor *f, const void *p) {
  switch (f->type) {
  case PROTOBUF_C_TYPE_UINT32: return cJSON_CreateNumber(*(const uint32_t *)p);
  case PROTOBUF_C_TYPE_INT32: return cJSON_CreateNumber(*(const int32_t *)p);
  case PROTOBUF_C_TYPE_UINT64: return cJSON_CreateNumber((double)*(const uint64_t *)p);
  case PROTOBUF_C_TYPE_INT64: return cJSON_CreateNumber((double)*(const int64_t *)p);
  case PROTOBUF_C_TYPE_BOOL: return cJSON_CreateBool(*(const protobuf_c_boolean *)p);
  case PROTOBUF_C_TYPE_STRING: return cJSON_CreateString(*(char *const *)p);
  case PROTOBUF_C_TYPE_ENUM: {
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(f->descriptor, *(const int *)p);
    return v ? cJSON_CreateString(v->name) : cJSON_CreateNumber(*(const int *)p);
  }
  case PROTOBUF_C_TYPE_MESSAGE: {
    const ProtobufCMessage *sub = *(const ProtobufCMessage *const *)p;
    return sub ? message_json(sub) : cJSON_CreateNull();
  }
  default: return cJSON_CreateNull();
  }
}

static size_t field_size(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_UINT32:
  case PROTOBUF_C_TYPE_INT32: return 4;
  case PROTOBUF_C_TYPE_UINT64:
  case PROTOBUF_C_TYPE_INT64: return 8;
  case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
  case PROTOBUF_C_TYPE_ENUM: return sizeof(int);
  case PROTOBUF_C_TYPE_STRING:
  case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
  default: return 0;
  }
}

static cJSON *message_json(const ProtobufCMessage *m) {
  cJSON *o = cJSON_CreateObject();
  for (unsigned i = 0; o && i < m->descriptor->n_fields; i++) {
    const ProtobufCFieldDescriptor *f = &m->descriptor->fields[i];
    const char *at = (const char *)m + f->offset;
    if (f->label != PROTOBUF_C_LABEL_REPEATED) {
      cJSON_AddItemToObject(o, f->name, field_json(f, at));
      continue;
    }
    size_t n = *(const size_t *)((const char *)m + f->quantifier_offset), sz = field_size(f->type);
    const char *elems = *(const char *const *)at;
    cJSON *arr = cJSON_AddArrayToObject(o, f->name);
    for (size_t j = 0; arr && sz && j < n; j++)
      cJSON_AddItemToArray(arr, field_json(f, elems + j * sz));
  }
  return o;
}

static void print_json(const ProtobufCMessage *m) {
  cJSON *o = message_json(m);
  char *text = o ? cJSON_Print(o) : NULL;
  if (text)
    printf("%s\n", text);
  free(text);
  cJSON_Delete(o);
}

static void print_status_table(const char *addr, const Cuzk__V1__GetStatusResponse *r) {
  char a[32], b[32];
  uint64_t up = r->uptime_seconds;
  printf("cuzk daemon at %s: up %llud %02llu:%02llu:%02llu\n", addr, (unsigned long long)(up / 86400),
         (unsigned long long)(up / 3600 % 24), (unsigned long long)(up / 60 % 60), (unsigned long long)(up % 60));
  printf("proofs:  %llu completed, %llu failed, %llu cancelled\n", (unsigned long long)r->total_proofs_completed,
         (unsigned long long)r->total_proofs_failed, (unsigned long long)r->total_proofs_cancelled);
  printf("workers: %u CPU (%u busy)\n", r->cpu_workers, r->busy_workers);
  fmt_bytes(a, sizeof a, r->host_used_bytes);
  fmt_bytes(b, sizeof b, r->host_budget_bytes);
  printf("memory:  host %s of %s", a, b);
  fmt_bytes(a, sizeof a, r->queue_used_bytes);
  fmt_bytes(b, sizeof b, r->queue_budget_bytes);
  printf(", queue %s of %s\n", a, b);
  if (r->witness_dir && *r->witness_dir)
    printf("witness files: under %s\n", r->witness_dir);
  if (r->n_gpus) {
    printf("\n%-4s %-24s %-6s %12s %12s %7s  %s\n", "GPU", "name", "state", "VRAM free",
           "VRAM total", "slots", "current job");
    for (size_t i = 0; i < r->n_gpus; i++) {
      const Cuzk__V1__GPUStatus *g = r->gpus[i];
      char slots[24];
      fmt_bytes(a, sizeof a, g->vram_free_bytes);
      fmt_bytes(b, sizeof b, g->vram_total_bytes);
      snprintf(slots, sizeof slots, "%u/%u%s", g->busy_slots, g->slots, g->express ? "+x" : "");
      printf("%-4u %-24.24s %-6s %12s %12s %7s  %s\n", g->ordinal, g->name,
             *g->state ? g->state : "?", a, b, slots, *g->current_job_id ? g->current_job_id : "-");
    }
    for (size_t i = 0; i < r->n_gpus; i++) { /* why a GPU is down, or has fewer slots */
      const Cuzk__V1__GPUStatus *g = r->gpus[i];
      if (*g->state_reason)
        printf("GPU %u %s: %s\n", g->ordinal, g->state, g->state_reason);
      if (*g->note)
        printf("GPU %u: %s\n", g->ordinal, g->note);
    }
  }
  if (r->n_loaded_srs) {
    printf("\n%-32s %-8s %12s %5s %10s\n", "key", "tier", "size", "refs", "idle");
    for (size_t i = 0; i < r->n_loaded_srs; i++) {
      const Cuzk__V1__SRSStatus *k = r->loaded_srs[i];
      char idle[32];
      fmt_bytes(a, sizeof a, k->size_bytes);
      snprintf(idle, sizeof idle, "%.1f s", (double)k->idle_ms / 1e3);
      printf("%-32s %-8s %12s %5u %10s\n", k->circuit_id, k->cuzk_tier, a, k->ref_count, idle);
    }
  }
  if (r->n_queues) {
    printf("\n%-32s %8s %9s %8s %10s\n", "jobs of circuit", "queued", "preparing", "proving", "finalizing");
    for (size_t i = 0; i < r->n_queues; i++) {
      const Cuzk__V1__QueueStatus *q = r->queues[i];
      printf("%-32s %8u %9u %8u %10u\n", q->proof_kind, q->pending, q->preparing, q->proving, q->finalizing);
    }
  }
}

/* status and metrics: [--addr A] (and for status --json). */
static int show_command(int argc, char **argv, rpc_method m) {
  const char *cmd = m == RPC_STATUS ? "status" : "metrics";
  const char *help = m == RPC_STATUS ? status_help : metrics_help;
  if (maybe_help(argc, argv, help))
    return CLI_OK;
  cli_conn conn = {0};
  int bad = 0, json = 0;
  for (int i = 1; i < argc && !bad; i++) {
    if (cli_take_conn(argc, argv, &i, &conn, &bad))
      continue;
    if (m == RPC_STATUS && !strcmp(argv[i], "--json"))
      json = 1;
    else
      return unknown_option(cmd, argv[i], help);
  }
  rpc_client *c = bad ? NULL : cli_connect(cmd, &conn);
  if (!c)
    return CLI_USAGE;
  Cuzk__V1__GetStatusRequest status = CUZK__V1__GET_STATUS_REQUEST__INIT;
  Cuzk__V1__GetMetricsRequest metrics = CUZK__V1__GET_METRICS_REQUEST__INIT;
  ProtobufCMessage *resp;
  int rc = call(cmd, c, m, m == RPC_STATUS ? &status.base : &metrics.base, &resp, SHORT_CALL_MS);
  if (rc == CLI_OK) {
    if (m == RPC_METRICS)
      fputs(((Cuzk__V1__GetMetricsResponse *)resp)->prometheus_text, stdout);
    else if (json)
      print_json(resp);
    else
      print_status_table(rpc_client_addr(c), (Cuzk__V1__GetStatusResponse *)resp);
    protobuf_c_message_free_unpacked(resp, NULL);
  }
  rpc_client_free(c);
  return rc;
}

int cmd_status(int argc, char **argv) { return show_command(argc, argv, RPC_STATUS); }
int cmd_metrics(int argc, char **argv) { return show_command(argc, argv, RPC_METRICS); }

#else /* built without gRPC */

static int no_grpc(const char *cmd) {
  fprintf(stderr,
          "cuzk %s: built without gRPC, so it cannot talk to a daemon (rebuild with make GRPC=1 after "
          "installing libgrpc-dev, libprotobuf-c-dev and protobuf-c-compiler)\n",
          cmd);
  return CLI_USAGE;
}

#define NO_GRPC_CMD(fn, name, help)                                                                \
  int fn(int argc, char **argv) { return maybe_help(argc, argv, help) ? CLI_OK : no_grpc(name); }
NO_GRPC_CMD(cmd_submit, "submit", submit_help)
NO_GRPC_CMD(cmd_await, "await", await_help)
NO_GRPC_CMD(cmd_cancel, "cancel", cancel_help)
NO_GRPC_CMD(cmd_status, "status", status_help)
NO_GRPC_CMD(cmd_metrics, "metrics", metrics_help)
NO_GRPC_CMD(cmd_preload, "preload", preload_help)
NO_GRPC_CMD(cmd_evict, "evict", evict_help)

int cli_remote_prove(const cli_conn *conn, const char *circuit, int priority, const char *request_id,
                     const char *wtns, const char *proof_json, const char *public_json, int quiet) {
  return no_grpc("prove --circuit");
}

#endif
