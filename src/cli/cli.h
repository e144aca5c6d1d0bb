/* The `cuzk` command's subcommands.  Each returns the process exit status:
 * 0 success, 1 a negative answer (e.g. INVALID proof), 2 bad usage or input. */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_vk(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_circuit(int argc, char **argv);
/* `cuzk info` of a PCE .bin (src/cli/cmd_circuit.c). */
int cli_info_pce(const char *path);

/* talking to a daemon (src/cli/cmd_remote.c; "built without gRPC" when so) */
int cmd_submit(int argc, char **argv);
int cmd_await(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_preload(int argc, char **argv);
int cmd_evict(int argc, char **argv);
/* How a command reaches the daemon: --addr A and the TLS options, the
 * same for every remote command, `prove --circuit` and `bench daemon`.
 * Each field is an argument as given, or NULL (addr NULL: $CUZK_ADDR, else
 * the default socket).  TLS when addr is "tls://host:port" or any tls_*
 * field is set. */
typedef struct {
  const char *addr;
  const char *tls_ca;          /* PEM roots for the daemon's certificate; NULL: the system's */
  const char *tls_cert, *tls_key; /* the client's certificate and key (mutual TLS) */
  const char *tls_server_name; /* the name checked in the daemon's certificate; NULL: A's host */
} cli_conn;
/* Help lines of the TLS options, after --addr's. */
#define CLI_TLS_HELP                                                                       \
  "  --tls-ca FILE the PEM CA that signed the daemon's certificate (TLS; default: the\n"   \
  "                system's roots)\n"                                                      \
  "  --tls-cert FILE, --tls-key FILE\n"                                                   \
  "                the client's certificate and key, for a daemon that requires one\n"    \
  "                ([daemon] tls_client_ca)\n"                                             \
  "  --tls-server-name NAME\n"                                                            \
  "                the name the daemon's certificate must carry (default: A's host)\n"
/* Takes argv[*i] (and its value) into conn when it is --addr or a --tls-*
 * option: 1 then (*bad set, after a message, when the value is missing);
 * else 0. */
int cli_take_conn(int argc, char **argv, int *i, cli_conn *conn, int *bad);
/* A client of the daemon conn names (rpc_client.h; the TLS files read
 * here), or NULL after a message "cuzk CMD: ...".  Only with gRPC. */
struct rpc_client *cli_connect(const char *cmd, const cli_conn *conn);
/* `cuzk prove --circuit ID [--addr A]`: the daemon proves wtns; writes
 * proof_json and public_json as a local prove does.  priority 0-4;
 * request_id NULL: the daemon's. */
int cli_remote_prove(const cli_conn *conn, const char *circuit, int priority, const char *request_id,
                     const char *wtns, const char *proof_json, const char *public_json, int quiet);
/* low, normal, high, critical or 1-4; prints an error and returns 0 otherwise. */
int cli_parse_priority(const char *v, int *out);

/* bench subcommands (src/cli/bench_*.c) */
int bench_ntt(int argc, char **argv);
int bench_msm(int argc, char **argv, int group); /* group 1 = G1, 2 = G2 */
int bench_prove(int argc, char **argv);
int bench_bp(int argc, char **argv);     /* bellperson partitions of a generated circuit */
int bench_keygen(int argc, char **argv);
int bench_daemon(int argc, char **argv); /* load on a running daemon (bench_daemon.c) */

/* Files (cli_files.c). */
/* Whether writing the nout outputs can harm nothing: each is a name
 * fileio_out_check accepts (not a directory or socket), no output is one
 * of the nin inputs, and no two outputs are one file unless it is a
 * character device (/dev/null twice is fine).  "The same file" is the
 * same device and inode, or for a file not there yet the same path once
 * links are resolved.  (The temporary an output is written through is a
 * new file, base/fileio.h, so it cannot be an input.)  Prints why and
 * returns 0 otherwise. */
int cli_outputs_ok(const char *cmd, const char *const *in, size_t nin, const char *const *out, size_t nout);
/* A regular file read whole (at most CLI_TEXT_MAX bytes) by
 * fileio_read_all, NUL-terminated, malloc'd; NULL after a message naming
 * cmd and the file (none when cmd is NULL).  A FIFO or device is refused
 * at once, not waited on. */
#define CLI_TEXT_MAX ((size_t)64 << 20)
char *cli_read_text(const char *cmd, const char *path, size_t *len);
/* Which snarkjs JSON file text claims to be, from its first character and
 * its keys (the parser of that kind then checks it fully). */
typedef enum { CLI_JSON_NONE, CLI_JSON_OTHER, CLI_JSON_PROOF, CLI_JSON_VK, CLI_JSON_PUBLIC } cli_json_kind;
cli_json_kind cli_json_kind_of(const char *text, size_t len);
const char *cli_json_kind_name(cli_json_kind k); /* "a proof", "a verification key", ... */

/* True if argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);
/* Parses a positive integer option value; prints an error and returns 0 on failure. */
int cli_parse_uint(const char *opt, const char *val, unsigned long *out);
/* The median of v[0..n) (n >= 1; v is sorted in place), for the benchmarks. */
double cli_median(double *v, size_t n);

struct backend;
struct backend_device_opts;
/* The backend for --device NAME: "cpu", "gpu" (GPU 0 of the device
 * registry, backend/device.h; an error, in err, when there is no usable
 * GPU: never a silent fallback) or "auto" (the GPU for domains of
 * 2^CLI_AUTO_GPU_LG and more when one is usable, else the CPU).  o: the
 * threads (both) and the GPU options.  NULL with err set on failure or an
 * unknown name. */
struct backend *cli_backend(const char *device, const struct backend_device_opts *o,
                            unsigned lg_domain, cuzk_err *err);
/* auto's threshold: where one `cuzk prove` command, CUDA start-up included,
 * is as fast on the GPU as on the CPU of the H200 host (16 cores; the
 * measurements are in bench/RESULTS.md, "--device auto threshold"); the
 * GPU's fixed start-up cost makes it the slower one below.  README.md
 * states it (tests/malformed/cli.sh checks that it agrees). */
#define CLI_AUTO_GPU_LG 17

/* cuzk prove with a bellperson key (cmd_prove_bp.c): k witnesses, one per
 * partition, proven against key with the constraint file pce. */
typedef struct {
  const char *key, *pce;
  const char *const *wtns;
  size_t k;
  const char *proof_out, *public_out;
  unsigned threads;                  /* 0 = all online CPUs */
  const char *device;                /* as for cli_backend */
  const uint64_t *fixed_r, *fixed_s; /* TESTING ONLY (groth16_prove_opts) */
  int quiet, trusted;                /* trusted: no point checks on the key */
} cli_prove_bp_args;
int cli_prove_bp(const cli_prove_bp_args *a);
int cmd_setup(int argc, char **argv);

/* Exit statuses. */
enum { CLI_OK = 0, CLI_NO = 1, CLI_USAGE = 2 };

#endif
