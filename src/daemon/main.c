/* cuzk-daemon: the proving engine as a service.  Reads the TOML config,
 * starts the engine (engine/engine.h), the gRPC service
 * (server/rpc_server.h) and, when status_listen is set, the HTTP status
 * endpoint (server/http.h); stops gracefully on SIGTERM or SIGINT.
 *
 * DESIGN
 *   Signals: SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGUSR1 are blocked in
 *   every thread (the mask is set before the first thread starts) and
 *   taken by the main thread with sigwaitinfo, so no work runs in a signal
 *   handler.  SIGPIPE is ignored (a client that goes away is an error on
 *   its socket, not the daemon's death).
 *
 *   Stop (first SIGTERM/SIGINT): a stopper thread shuts the engine down
 *   first: submissions are refused with UNAVAILABLE while the jobs in
 *   flight finish (or are cancelled, [shutdown] cancel_running), and the
 *   clients waiting on them get their results over the still-open gRPC
 *   service; then, for up to [shutdown] grace, the service stays up until
 *   every job's result has been collected once (engine_wait_collected),
 *   for the clients that submitted and come back later; then it stops the
 *   gRPC service (which sends the replies in hand before it cancels what
 *   is left) and the HTTP endpoint.  The
 *   main thread meanwhile logs the drain's progress and stays ready for a
 *   second SIGTERM/SIGINT, which exits at once (status 1) after removing
 *   the socket files.  The stopper wakes the main thread with SIGUSR1.
 *
 *   A GPU lost to a sticky CUDA error is the engine's to handle (it takes
 *   the GPU out of service and retries its work elsewhere: engine.h); the
 *   daemon logs what the engine reports (engine_config.log) and keeps
 *   serving, answering UNAVAILABLE once no worker is left.
 *
 *   Access: unix sockets are born 0600 and then get [daemon] socket_mode
 *   and socket_group (listen.h); gRPC on TCP is TLS when tls_cert is set,
 *   mutual TLS with tls_client_ca.  Plaintext TCP, or TLS without client
 *   certificates, on an address other machines can reach is allowed but
 *   logged at start as a warning, every time: anyone who can connect
 *   there can submit, cancel and evict.
 *
 *   Exit status: 0 stopped cleanly; 1 could not start (address in use,
 *   another daemon on the socket) or a second signal; 2 bad usage or
 *   config, including a key file that is missing, unreadable or not a
 *   BLS12-381 Groth16 zkey (daemon_config_check_circuits, which --check
 *   runs too) and a config the engine refuses (device = "gpu" without a
 *   GPU). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/version.h"
#include "daemon/log.h"
#include "engine/engine.h"
#include "server/config.h"
#include "server/http.h"
#include "server/listen.h"
#include "server/rpc_server.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

static void usage(FILE *f) {
  fprintf(f,
          "usage: cuzk-daemon [--config FILE] [--listen ADDR] [--status-listen ADDR] [--log-level L]\n"
          "                   [--check]\n"
          "       cuzk-daemon --version\n"
          "\n"
          "Runs the cuzk proving engine as a service: the gRPC API cuzk.v1.ProvingEngine on the\n"
          "listen address, HTTP GET /status (JSON) and /metrics (Prometheus) on the status address,\n"
          "keys, devices, budgets and jobs as the config says (docs/daemon.md describes every key).\n"
          "\n"
          "options:\n"
          "  --config FILE         the TOML config; a missing file is an error (without --config:\n"
          "                        the defaults)\n"
          "  --listen ADDR         gRPC address, \"unix:///path/to.sock\" or \"host:port\"\n"
          "                        (overrides [daemon] listen; default %s)\n"
          "  --status-listen ADDR  HTTP status address, \"host:port\" or \"unix:///path\"; \"\" = off\n"
          "                        (overrides [daemon] status_listen)\n"
          "  --log-level L         error, warn, info or debug (overrides [logging] level)\n"
          "  --check               check the config and open each [[circuits]] key's header (it\n"
          "                        exists, is readable, is a BLS12-381 Groth16 zkey), as the start\n"
          "                        does; print the effective config on stdout, exit\n"
          "  --version             print the version, exit\n"
          "  -h, --help            this text\n"
          "\n"
          "access: unix sockets are made 0600 whatever the umask ([daemon] socket_mode and\n"
          "socket_group share them with a group); gRPC on TCP is plaintext unless [daemon]\n"
          "tls_cert and tls_key are set (TLS), and tls_client_ca requires client certificates;\n"
          "plaintext TCP on an address other machines can reach is logged as a warning.\n"
          "\n"
          "The effective config (every key, defaults included) is printed on stderr at start; log\n"
          "lines go to stderr with a UTC timestamp and a level.\n"
          "\n"
          "signals: SIGTERM or SIGINT stops gracefully: new submissions are refused (UNAVAILABLE),\n"
          "the jobs in flight finish (or are cancelled: [shutdown] cancel_running = true), waiting\n"
          "clients get their results, results not yet collected stay awaitable for up to\n"
          "[shutdown] grace (default 10s; it ends once all are collected), then the daemon exits 0\n"
          "and removes its socket file.  A second SIGTERM/SIGINT exits at once with status 1.\n"
          "SIGHUP is logged and ignored.\n"
          "\n"
          "exit status: 0 stopped cleanly; 1 failed to start (address in use, another daemon on\n"
          "the socket) or stopped by a second signal; 2 bad usage or config (the message names the\n"
          "file, line, key and what was expected).\n",
          DAEMON_DEFAULT_LISTEN);
}

typedef struct {
  engine *e;
  rpc_server *rpc;
  http_server *http;
  uint64_t grace_ms; /* [shutdown] grace */
  pthread_t main_thread;
  atomic_bool done;
} stopper;

/* The stop: the engine drains (or cancels) with the service up, so that
 * every accepted job's client can get its result or its CANCELLED status,
 * and a submission is answered UNAVAILABLE; then the grace, for clients
 * that submitted and come back later; only then does the service close
 * (a call reaching it after that is refused or reset by gRPC itself). */
static void *stop_thread(void *arg) {
  stopper *st = arg;
  engine_shutdown(st->e);
  size_t left = engine_wait_collected(st->e, 0);
  if (left && st->grace_ms) {
    char g[32];
    config_format_duration_ms(st->grace_ms, g, sizeof g);
    dlog_info("stopping: every job is finished; %zu result%s not yet collected, served for up to %s "
              "([shutdown] grace)",
              left, left == 1 ? "" : "s", g);
    left = engine_wait_collected(st->e, st->grace_ms);
  }
  if (left)
    dlog_warn("stopping: %zu result%s never collected", left, left == 1 ? " was" : "s were");
  else
    dlog_info("stopping: every result collected");
  rpc_server_shutdown(st->rpc); /* sends the replies in hand (up to 2 s), then cancels */
  st->rpc = NULL;
  http_server_stop(st->http);
  st->http = NULL;
  atomic_store(&st->done, true);
  pthread_kill(st->main_thread, SIGUSR1);
  return NULL;
}

static char *rpc_metrics(void *ctx) { return rpc_server_metrics_text(ctx); }

/* The engine's reports as log lines at their level (engine.h,
 * engine_config.log: GPUs lost, the CPU fallback, a corrupt key, and each
 * job's course at info), filtered by [logging] level like the daemon's own. */
static void engine_log_line(void *ctx, engine_log_level level, const char *msg) {
  (void)ctx;
  dlog(level == ENGINE_LOG_ERROR  ? DAEMON_LOG_ERROR
       : level == ENGINE_LOG_WARN ? DAEMON_LOG_WARN
                                  : DAEMON_LOG_INFO,
       "%s", msg);
}

/* Jobs not yet finished, for the drain's progress lines. */
static unsigned jobs_in_flight(engine *e) {
  engine_status s;
  if (engine_status_get(e, &s, NULL) != CUZK_OK)
    return 0;
  unsigned n = 0;
  for (size_t i = 0; i < s.nqueues; i++)
    n += s.queues[i].queued + s.queues[i].preparing + s.queues[i].proving + s.queues[i].finalizing;
  engine_status_free(&s);
  return n;
}

/* The socket files this daemon made (the gRPC one when rpc, the HTTP one
 * when http), removed at exit; never another process's. */
static void remove_sockets(const daemon_config *cfg, bool rpc, bool http) {
  listen_addr a;
  if (rpc && listen_addr_parse(&a, cfg->listen, NULL) == CUZK_OK && a.is_unix)
    listen_unix_remove(a.path);
  if (http && *cfg->status_listen && listen_addr_parse(&a, cfg->status_listen, NULL) == CUZK_OK && a.is_unix)
    listen_unix_remove(a.path);
}

/* The start-up warning for a gRPC address other machines can reach
 * without client authentication: plaintext (anyone on the network can
 * submit, cancel and evict, and read every witness and proof on the wire)
 * or TLS without tls_client_ca (private, but anyone can connect). */
static void warn_exposed(const daemon_config *cfg, const listen_addr *la) {
  if (la->is_unix || *cfg->tls_client_ca || listen_addr_is_loopback(la))
    return;
  if (!*cfg->tls_cert) {
    dlog_warn("**************************************************************************************");
    dlog_warn("listen %s: PLAINTEXT gRPC ON AN ADDRESS OTHER MACHINES CAN REACH, WITHOUT AUTHENTICATION.",
              cfg->listen);
    dlog_warn("Anyone who can connect can submit, cancel and evict anything, and read the witnesses and");
    dlog_warn("proofs on the wire.  Listen on a unix socket or 127.0.0.1, or set [daemon] tls_cert,");
    dlog_warn("tls_key and tls_client_ca (docs/daemon.md, \"Access\").");
    dlog_warn("**************************************************************************************");
  } else {
    dlog_warn("listen %s: TLS without client certificates on an address other machines can reach: anyone "
              "who can connect can submit, cancel and evict; set [daemon] tls_client_ca to require them",
              cfg->listen);
  }
}

static int engine_exit_code(cuzk_status s) {
  return s == CUZK_NO_MEMORY || s == CUZK_INTERNAL ? EXIT_RUNTIME : EXIT_USAGE;
}

int main(int argc, char **argv) {
  const char *config_path = NULL, *opt_listen = NULL, *opt_status = NULL, *opt_level = NULL;
  int check_only = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = !strcmp(a, "--config")          ? &config_path
                        : !strcmp(a, "--listen")        ? &opt_listen
                        : !strcmp(a, "--status-listen") ? &opt_status
                        : !strcmp(a, "--log-level")     ? &opt_level
                                                        : NULL;
    if (slot) {
      if (i + 1 >= argc) {
        fprintf(stderr, "cuzk-daemon: %s needs a value\n", a);
        return EXIT_USAGE;
      }
      *slot = argv[++i];
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return EXIT_OK;
    } else if (!strcmp(a, "--version")) {
      printf("cuzk-daemon %s%s%s%s\n", CUZK_VERSION_ARGS);
      return EXIT_OK;
    } else if (!strcmp(a, "--check")) {
      check_only = 1;
    } else {
      fprintf(stderr, "cuzk-daemon: unknown %s '%s'\n\n", a[0] == '-' ? "option" : "argument", a);
      usage(stderr);
      return EXIT_USAGE;
    }
  }

  /* The config: file (if given), then the command line, then the checks. */
  daemon_config cfg;
  daemon_tls tls = {0};
  cuzk_err err = {0};
  if (daemon_config_init(&cfg, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk-daemon: %s\n", err.msg);
    return EXIT_RUNTIME;
  }
  int rc = EXIT_USAGE;
  if ((config_path && daemon_config_load(&cfg, config_path, &err) != CUZK_OK) ||
      (opt_listen && daemon_config_set(&cfg, "daemon", "listen", opt_listen, "--listen", &err) != CUZK_OK) ||
      (opt_status &&
       daemon_config_set(&cfg, "daemon", "status_listen", opt_status, "--status-listen", &err) != CUZK_OK) ||
      (opt_level && daemon_config_set(&cfg, "logging", "level", opt_level, "--log-level", &err) != CUZK_OK) ||
      daemon_config_finish(&cfg, &err) != CUZK_OK || daemon_config_check_circuits(&cfg, &err) != CUZK_OK ||
      daemon_config_read_tls(&cfg, &tls, &err) != CUZK_OK) {
    fprintf(stderr, "cuzk-daemon: %s\n", err.msg);
    goto out;
  }
  if (*cfg.status_listen && !http_server_supported()) {
    http_server *none;
    http_server_start(&none, NULL, cfg.status_listen, &err);
    fprintf(stderr, "cuzk-daemon: %s\n", err.msg);
    goto out;
  }
  if (check_only) {
    daemon_config_print(&cfg, stdout);
    rc = EXIT_OK;
    goto out;
  }

  /* Signals: blocked here, before any thread exists, so every thread
   * inherits the mask and only sigwaitinfo below takes them. */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGHUP);
  sigaddset(&sigs, SIGQUIT);
  sigaddset(&sigs, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);

  dlog_set_level(cfg.log_level);
  dlog_info("cuzk-daemon starting: version %s%s%s%s, pid %ld", CUZK_VERSION_ARGS, (long)getpid());
  if (cfg.log_level >= DAEMON_LOG_INFO)
    daemon_config_print(&cfg, stderr);

  rc = EXIT_RUNTIME;
  listen_addr la;
  listen_addr_parse(&la, cfg.listen, NULL); /* checked by the config */
  if (la.is_unix && listen_unix_prepare(la.path, &err) != CUZK_OK) {
    dlog_error("listen %s: %s", cfg.listen, err.msg);
    goto out;
  }

  stopper st = {0};
  st.main_thread = pthread_self();
  st.grace_ms = cfg.shutdown_grace_ms;
  cfg.engine.log = engine_log_line;
  /* Queued jobs' witness files hold descriptors (engine.h): the soft
   * open-file limit raised to the hard one, of which the engine lets them
   * take half. */
  struct rlimit nofile;
  if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
    nofile.rlim_cur = nofile.rlim_max;
    setrlimit(RLIMIT_NOFILE, &nofile);
  }
  struct timespec ts0, ts1;
  clock_gettime(CLOCK_MONOTONIC, &ts0);
  cuzk_status s = engine_new(&st.e, &cfg.engine, &err);
  if (s != CUZK_OK) {
    dlog_error("cannot start the engine: %s", err.msg);
    rc = engine_exit_code(s);
    goto out;
  }
  clock_gettime(CLOCK_MONOTONIC, &ts1);
  dlog_info("engine started in %.2f s: %zu circuit%s registered, device %s",
            (double)(ts1.tv_sec - ts0.tv_sec) + (double)(ts1.tv_nsec - ts0.tv_nsec) * 1e-9, cfg.ncircuits,
            cfg.ncircuits == 1 ? "" : "s",
            cfg.engine.device == ENGINE_DEVICE_CPU ? "cpu" : cfg.engine.device == ENGINE_DEVICE_GPU ? "gpu" : "auto");

  rpc_tls rt = {tls.cert, tls.key, tls.client_ca};
  if (rpc_server_start_tls(&st.rpc, st.e, cfg.listen, (size_t)cfg.max_message_size, tls.cert ? &rt : NULL,
                           &err) != CUZK_OK) {
    dlog_error("gRPC service on %s: %s", cfg.listen, err.msg);
    rc = err.status == CUZK_UNSUPPORTED ? EXIT_USAGE : EXIT_RUNTIME;
    goto stop_engine;
  }
  daemon_tls_free(&tls);
  if (la.is_unix && listen_unix_set_access(la.path, cfg.socket_mode, cfg.socket_gid, &err) != CUZK_OK) {
    dlog_error("listen %s: %s", cfg.listen, err.msg);
    goto stop_rpc;
  }
  if (la.is_unix)
    dlog_info("gRPC cuzk.v1.ProvingEngine listening on %s (mode %04o%s%s)", cfg.listen, cfg.socket_mode,
              *cfg.socket_group ? ", group " : "", cfg.socket_group);
  else
    dlog_info("gRPC cuzk.v1.ProvingEngine listening on %s (port %d, %s)", cfg.listen, rpc_server_port(st.rpc),
              !cfg.tls_cert[0] ? "plaintext" : cfg.tls_client_ca[0] ? "mutual TLS" : "TLS");
  warn_exposed(&cfg, &la);

  if (*cfg.status_listen) {
    http_limits hl = {cfg.status_max_connections, (unsigned)((cfg.status_idle_timeout_ms + 999) / 1000)};
    if (http_server_start_ex(&st.http, st.e, cfg.status_listen, &hl, rpc_metrics, st.rpc, &err) != CUZK_OK) {
      dlog_error("%s", err.msg);
      goto stop_rpc;
    }
    listen_addr ha;
    listen_addr_parse(&ha, cfg.status_listen, NULL);
    if (ha.is_unix && listen_unix_set_access(ha.path, cfg.socket_mode, cfg.socket_gid, &err) != CUZK_OK) {
      dlog_error("status_listen %s: %s", cfg.status_listen, err.msg);
      goto stop_http;
    }
    if (!listen_addr_is_loopback(&ha))
      dlog_warn("status_listen %s is reachable from other machines: /status and /metrics (keys, queues, "
                "budgets) are served in plaintext, without authentication, to anyone who can connect",
                cfg.status_listen);
    if (ha.is_unix)
      dlog_info("HTTP GET /status and /metrics on %s", cfg.status_listen);
    else
      dlog_info("HTTP GET /status and /metrics on %s (port %d)", cfg.status_listen, http_server_port(st.http));
  }
  dlog_info("ready");

  /* Run until SIGTERM or SIGINT. */
  int sig;
  for (;;) {
    siginfo_t si;
    sig = sigwaitinfo(&sigs, &si);
    if (sig == SIGTERM || sig == SIGINT)
      break;
    if (sig == SIGHUP)
      dlog_warn("SIGHUP: reloading the config is not supported; ignored (restart to apply changes)");
    else if (sig == SIGQUIT)
      dlog_warn("SIGQUIT ignored (SIGTERM or SIGINT stops the daemon)");
  }
  engine_stop_accepting(st.e); /* before the line that says so */
  dlog_info("%s: stopping: new submissions are refused; jobs in flight will %s (a second signal exits at once)",
            sig == SIGTERM ? "SIGTERM" : "SIGINT", cfg.engine.cancel_on_shutdown ? "be cancelled" : "finish");

  pthread_t tid;
  if (pthread_create(&tid, NULL, stop_thread, &st) != 0) {
    dlog_error("cannot start the stopper thread; stopping in this one");
    stop_thread(&st);
  } else {
    for (unsigned waited = 0;;) {
      struct timespec tick = {1, 0};
      siginfo_t si;
      int got = sigtimedwait(&sigs, &si, &tick);
      if (atomic_load(&st.done))
        break;
      if (got == SIGTERM || got == SIGINT) {
        dlog_warn("second %s: exiting now, without waiting for the jobs in flight", got == SIGTERM ? "SIGTERM" : "SIGINT");
        remove_sockets(&cfg, true, *cfg.status_listen != 0);
        _exit(EXIT_RUNTIME);
      }
      if (got < 0 && errno == EAGAIN && ++waited % 5 == 0) {
        unsigned n = jobs_in_flight(st.e);
        size_t u = engine_wait_collected(st.e, 0);
        dlog_info("stopping: %u job%s in flight, %zu result%s not yet collected", n, n == 1 ? "" : "s", u,
                  u == 1 ? "" : "s");
      }
    }
    pthread_join(tid, NULL);
  }
  engine_free(st.e);
  remove_sockets(&cfg, true, *cfg.status_listen != 0);
  dlog_info("stopped");
  rc = EXIT_OK;
  goto out;

stop_http:
  http_server_stop(st.http);
stop_rpc:
  rpc_server_shutdown(st.rpc);
  remove_sockets(&cfg, true, false);
stop_engine:
  engine_shutdown(st.e);
  engine_free(st.e);
out:
  daemon_tls_free(&tls);
  daemon_config_free(&cfg);
  return rc;
}
