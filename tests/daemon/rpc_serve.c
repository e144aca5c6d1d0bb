/* rpc_serve: the smallest daemon: one engine and the gRPC server in one
 * process, configured from the command line.  The daemon tests start it as
 * a helper process to test the gRPC service apart from cuzk-daemon's
 * config and HTTP; it serves until SIGTERM or SIGINT, then shuts the server
 * and the engine down (cancelling what is in flight) and exits 0.  SIGUSR1
 * pauses the engine's workers, SIGUSR2 resumes them.
 *
 * usage: rpc_serve --listen ADDR [--circuit ID=PATH]... [--param-dir DIR]
 *                  [--cpu-workers N] [--threads N] [--max-message BYTES]
 *                  [--queue-budget BYTES] [--finished-ttl-ms MS] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "server/rpc_server.h"

static int usage(void) {
  fprintf(stderr, "usage: rpc_serve --listen ADDR [--circuit ID=PATH]... [--param-dir DIR] [--cpu-workers N]\n"
                  "                 [--threads N] [--max-message BYTES] [--queue-budget BYTES]\n"
                  "                 [--finished-ttl-ms MS]\n");
  return 2;
}

int main(int argc, char **argv) {
  engine_config cfg;
  engine_config_defaults(&cfg);
  cfg.device = ENGINE_DEVICE_CPU;
  cfg.cancel_on_shutdown = true; /* a prompt stop, whatever is queued */
  const char *listen = NULL;
  size_t max_message = 0;
  engine_circuit *circuits = calloc((size_t)argc, sizeof *circuits);
  size_t nc = 0;
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
    } else if (!strcmp(argv[i], "--queue-budget")) {
      cfg.queue_budget_bytes = strtoull(v, NULL, 10);
    } else if (!strcmp(argv[i], "--finished-ttl-ms")) {
      cfg.finished_ttl_ms = strtoull(v, NULL, 10);
    } else {
      return usage();
    }
    i++;
  }
  if (!listen)
    return usage();
  cfg.circuits = circuits;
  cfg.ncircuits = nc;

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
