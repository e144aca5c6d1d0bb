/* rpc_serve: the smallest daemon: one engine and the gRPC server in one
 * process, configured from the command line.  The daemon tests start it as
 * a helper process to test the gRPC service apart from cuzk-daemon's
 * config and HTTP; it serves until SIGTERM or SIGINT, then shuts the server
 * and the engine down (cancelling what is in flight) and exits 0.  SIGUSR1
 * pauses the engine's workers, SIGUSR2 resumes them.
 *
 * usage: rpc_serve --listen ADDR [--circuit ID=PATH]... [--param-dir DIR]
 *                  [--cpu-workers N] [--threads N] [--max-message BYTES]
 *                  [--host-budget BYTES] [--queue-budget BYTES] [--finished-ttl-ms MS]
 *                  [--test-gpus N [--lose-gpu ORDINAL]]
 *
 * --test-gpus N: N GPUs stood in for by CPU backends (a device provider
 * given as engine_config.devices), one slot each, so that GetStatus and the GPU paths of
 * the service are tested without a GPU; --lose-gpu: every MSM on that one
 * fails with DEVICE_LOST, as a sticky CUDA error would. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/device.h"
#include "engine/engine.h"
#include "server/rpc_server.h"

static int usage(void) {
  fprintf(stderr, "usage: rpc_serve --listen ADDR [--circuit ID=PATH]... [--param-dir DIR] [--cpu-workers N]\n"
                  "                 [--threads N] [--max-message BYTES] [--host-budget BYTES] [--queue-budget BYTES]\n"
                  "                 [--finished-ttl-ms MS] [--test-gpus N [--lose-gpu ORDINAL]]\n");
  return 2;
}

/* ---- stand-in GPUs: a CPU backend, forwarded to, except MSMs on the lost one ---- */

static int lost_gpu = -1;
static unsigned n_standins;

typedef struct {
  backend *cpu;
  int ordinal;
} standin;

static backend *cpu_of(backend *b) { return ((standin *)b->impl)->cpu; }
static bool si_supports(const backend *b, cuzk_curve curve, backend_op op) {
  const backend *c = ((const standin *)b->impl)->cpu;
  return c->ops->supports(c, curve, op);
}
static cuzk_status si_zkey_ab(backend *b, bls12_381_fr *a, bls12_381_fr *bv, size_t n,
                              const void *entries, size_t n_entries, const void *witness,
                              size_t n_witness, cuzk_err *err) {
  backend *c = cpu_of(b);
  return c->ops->zkey_ab(c, a, bv, n, entries, n_entries, witness, n_witness, err);
}
static cuzk_status si_quotient(backend *b, void *h, bls12_381_fr *a, bls12_381_fr *bv,
                               bls12_381_fr *cc, unsigned lg_n, cuzk_err *err) {
  backend *c = cpu_of(b);
  return c->ops->quotient(c, h, a, bv, cc, lg_n, err);
}
static cuzk_status lost(backend *b, cuzk_err *err) {
  return cuzk_err_set(err, CUZK_DEVICE_LOST, "stand-in GPU %d: lost (rpc_serve --lose-gpu)",
                      ((standin *)b->impl)->ordinal);
}
static cuzk_status si_msm_g1(backend *b, bls12_381_g1_jac *out, const msm_part *parts,
                             size_t nparts, cuzk_err *err) {
  backend *c = cpu_of(b);
  if (((standin *)b->impl)->ordinal == lost_gpu)
    return lost(b, err);
  return c->ops->msm_g1(c, out, parts, nparts, err);
}
static cuzk_status si_msm_g2(backend *b, bls12_381_g2_jac *out, const msm_part *parts,
                             size_t nparts, cuzk_err *err) {
  backend *c = cpu_of(b);
  if (((standin *)b->impl)->ordinal == lost_gpu)
    return lost(b, err);
  return c->ops->msm_g2(c, out, parts, nparts, err);
}
static void si_destroy(backend *b) {
  backend_free(cpu_of(b));
  free(b->impl);
  free(b);
}
static const backend_ops standin_ops = {
    .name = "stand-in-gpu",
    .supports = si_supports,
    .zkey_ab = si_zkey_ab,
    .quotient = si_quotient,
    .msm_g1 = si_msm_g1,
    .msm_g2 = si_msm_g2,
    .destroy = si_destroy,
};
static backend *standin_new(const backend_devices *d, int ordinal, const backend_device_opts *o,
                            cuzk_err *err) {
  (void)d, (void)o;
  backend *b = calloc(1, sizeof *b);
  standin *im = calloc(1, sizeof *im);
  if (!b || !im || !(im->cpu = backend_cpu_new(1))) {
    free(b);
    free(im);
    cuzk_err_set(err, CUZK_NO_MEMORY, "rpc_serve: a stand-in GPU backend");
    return NULL;
  }
  im->ordinal = ordinal;
  b->ops = &standin_ops, b->threads = 1, b->impl = im;
  return b;
}
static cuzk_status standin_mem(const backend_devices *d, int ordinal, uint64_t *free_bytes,
                               uint64_t *total_bytes, cuzk_err *err) {
  (void)d, (void)ordinal, (void)err;
  *total_bytes = (uint64_t)16 << 30;
  *free_bytes = (uint64_t)15 << 30;
  return CUZK_OK;
}
static int standin_count(const backend_devices *d, char *why, size_t n) {
  (void)d;
  snprintf(why, n, "no stand-in GPU (rpc_serve --test-gpus 0)");
  return (int)n_standins;
}
static bool standin_supports(const backend_devices *d, int ordinal, cuzk_curve curve,
                             backend_op op) {
  (void)d, (void)ordinal, (void)op;
  return curve == CUZK_CURVE_BLS12_381;
}
static const backend_devices_ops standin_devices_ops = {
    .kind = "stand-in",
    .count = standin_count,
    .mem_info = standin_mem,
    .supports = standin_supports,
    .backend_new = standin_new,
};

int main(int argc, char **argv) {
  engine_config cfg;
  engine_config_defaults(&cfg);
  cfg.device = ENGINE_DEVICE_CPU;
  cfg.cancel_on_shutdown = true; /* a prompt stop, whatever is queued */
  const char *listen = NULL;
  size_t max_message = 0;
  engine_circuit *circuits = calloc((size_t)argc, sizeof *circuits);
  size_t nc = 0;
  const backend_devices gpus = {.ops = &standin_devices_ops};
  for (int i = 1; i < argc; i++) {
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v)
      return usage();
    if (!strcmp(argv[i], "--listen")) {
      listen = v;
    } else if (!strcmp(argv[i], "--circuit")) {
      char *eq = strchr(argv[i + 1], '=');
      if (!eq)
        return usage();
      *eq = 0;
      circuits[nc].id = argv[i + 1];
      circuits[nc++].path = eq + 1;
    } else if (!strcmp(argv[i], "--param-dir")) {
      cfg.param_dir = v;
    } else if (!strcmp(argv[i], "--cpu-workers")) {
      cfg.cpu_workers = (unsigned)strtoul(v, NULL, 10);
    } else if (!strcmp(argv[i], "--threads")) {
      cfg.threads = (unsigned)strtoul(v, NULL, 10);
    } else if (!strcmp(argv[i], "--max-message")) {
      max_message = strtoull(v, NULL, 10);
    } else if (!strcmp(argv[i], "--host-budget")) {
      cfg.host_budget_bytes = strtoull(v, NULL, 10);
    } else if (!strcmp(argv[i], "--queue-budget")) {
      cfg.queue_budget_bytes = strtoull(v, NULL, 10);
    } else if (!strcmp(argv[i], "--finished-ttl-ms")) {
      cfg.finished_ttl_ms = strtoull(v, NULL, 10);
    } else if (!strcmp(argv[i], "--test-gpus")) {
      n_standins = (unsigned)strtoul(v, NULL, 10);
    } else if (!strcmp(argv[i], "--lose-gpu")) {
      lost_gpu = atoi(v);
    } else {
      return usage();
    }
    i++;
  }
  if (!listen)
    return usage();
  cfg.circuits = circuits;
  cfg.ncircuits = nc;
  if (n_standins) {
    cfg.device = ENGINE_DEVICE_GPU;
    cfg.gpu_workers_per_device = 1;
    cfg.devices = &gpus;
  }

  /* The signals are taken by sigwait below, in this thread only. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN);

  cuzk_err err = {0};
  engine *e;
  if (engine_new(&e, &cfg, &err) != CUZK_OK) {
    fprintf(stderr, "rpc_serve: engine: %s\n", err.msg);
    return 1;
  }
  rpc_server *s;
  if (rpc_server_start(&s, e, listen, max_message, &err) != CUZK_OK) {
    fprintf(stderr, "rpc_serve: %s\n", err.msg);
    engine_free(e);
    return 1;
  }
  if (rpc_server_port(s))
    fprintf(stderr, "rpc_serve: listening on %s (port %d)\n", listen, rpc_server_port(s));
  else
    fprintf(stderr, "rpc_serve: listening on %s\n", listen);
  /* SIGUSR1 pauses the engine's workers (jobs still queue), SIGUSR2
   * resumes them: the tests order a queue that way. */
  int sig = 0;
  for (;;) {
    sigwait(&set, &sig);
    if (sig == SIGUSR1 || sig == SIGUSR2) {
      engine_set_paused(e, sig == SIGUSR1);
      fprintf(stderr, "rpc_serve: %s\n", sig == SIGUSR1 ? "paused" : "resumed");
      continue;
    }
    break;
  }
  fprintf(stderr, "rpc_serve: signal %d: shutting down\n", sig);
  rpc_server_shutdown(s);
  engine_free(e);
  free(circuits);
  fprintf(stderr, "rpc_serve: stopped\n");
  return 0;
}
