/* The `cuzk` command's subcommands.  Each returns the process exit status:
 * 0 success, 1 a negative answer (e.g. INVALID proof), 2 bad usage or input. */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdio.h>

#include "base/err.h"

int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_vk(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* talking to a daemon (src/cli/cmd_remote.c; "built without gRPC" when so) */
int cmd_submit(int argc, char **argv);
int cmd_await(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_preload(int argc, char **argv);
int cmd_evict(int argc, char **argv);
/* `cuzk prove --remote ADDR --circuit ID`: the daemon proves wtns; writes
 * proof_json and public_json as a local prove does.  addr NULL: $CUZK_ADDR
 * or the default socket; priority 0-4; request_id NULL: the daemon's. */
int cli_remote_prove(const char *addr, const char *circuit, int priority, const char *request_id,
                     const char *wtns, const char *proof_json, const char *public_json, int quiet);
/* low, normal, high, critical or 1-4; prints an error and returns 0 otherwise. */
int cli_parse_priority(const char *v, int *out);

/* bench subcommands (src/cli/bench_*.c) */
int bench_ntt(int argc, char **argv);
int bench_msm(int argc, char **argv, int group); /* group 1 = G1, 2 = G2 */
int bench_prove(int argc, char **argv);
int bench_keygen(int argc, char **argv);
int bench_daemon(int argc, char **argv); /* load on a running daemon (bench_daemon.c) */

/* True if argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);
/* Parses a positive integer option value; prints an error and returns 0 on failure. */
int cli_parse_uint(const char *opt, const char *val, unsigned long *out);

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
/* auto's threshold, measured on the H200 host against its own 16 Xeon cores,
 * one `cuzk prove` command each, CUDA start-up included (bench/RESULTS.md):
 * 2^16 CPU 0.30 s, GPU 0.40 s; 2^18 CPU 0.92 s, GPU 0.45 s.  The GPU's
 * fixed cost is about 0.35 s, so the crossover is near 2^17; on a host
 * with fewer cores it comes earlier. */
#define CLI_AUTO_GPU_LG 17

/* Exit statuses. */
enum { CLI_OK = 0, CLI_NO = 1, CLI_USAGE = 2 };

#endif
