/* The daemon's config file (TOML), in the spirit of Curio's
 * cuzk.example.toml: the engine's settings (engine_config) plus the
 * daemon's own.  docs/daemon.md documents every key; examples/cuzk.toml
 * is an annotated example.
 *
 * DESIGN
 *   Config is a table (docs/DESIGN.md §2.1): config.c holds one row per key
 *   with its section, name, kind (string, bool, integer, size, duration,
 *   choice, address, list of GPU ordinals), bounds and help line; loading,
 *   validation, the command-line overrides and daemon_config_print all
 *   walk that table, so a key cannot be read without being validated,
 *   printed and documented in the same place.
 *
 *   Every key is checked: an unknown section or key, a wrong type, a value
 *   out of range, a bad size ("512GiB") or duration ("5m") is an error
 *   naming the file, line and column, the key and what was expected
 *   (CUZK_INVALID_ARGUMENT; TOML syntax errors are CUZK_FORMAT).  No
 *   environment variable is read.  Relative paths in the file (circuit
 *   paths, param_dir) are taken relative to the file's directory, so a
 *   config works from any working directory; listen socket paths are the
 *   exception (relative to the daemon's working directory, as given).
 *
 *   Nothing changes at run time: the file is read once at start (the
 *   daemon ignores SIGHUP); a change needs a restart.
 *
 *   Defaults are engine_config_defaults() for the engine's keys, except
 *   gpu_workers_per_device (2, as in Curio), and the daemon's own below.
 *   host_budget = "auto" is resolved here: MemTotal (/proc/meminfo) less
 *   safety_margin. */
#ifndef CUZK_SERVER_CONFIG_H
#define CUZK_SERVER_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "engine/engine.h"

#define DAEMON_DEFAULT_LISTEN "unix:///run/cuzk/cuzk.sock"

typedef enum { DAEMON_LOG_ERROR, DAEMON_LOG_WARN, DAEMON_LOG_INFO, DAEMON_LOG_DEBUG } daemon_log_level;

/* The effective config.  Owns every string and array it points to; the
 * engine part's pointers (circuits, gpus, param_dir) point into them. */
typedef struct {
  /* [daemon] */
  char *listen;              /* gRPC: "unix://PATH" or "HOST:PORT" */
  char *status_listen;       /* HTTP /status and /metrics; "" = off */
  uint64_t max_message_size; /* gRPC messages, both ways */
  /* Access (docs/daemon.md, "Access").  Unix sockets (both listeners) are
   * made 0600 and then given socket_mode and socket_group; TLS applies to
   * a TCP listen address only. */
  unsigned socket_mode;      /* permission bits, at least 0600 */
  char *socket_group;        /* "" = none; a group name or a numeric gid */
  long socket_gid;           /* socket_group resolved by daemon_config_finish; -1 = none */
  char *tls_cert, *tls_key;  /* PEM files, both or neither ("" = plaintext) */
  char *tls_client_ca;       /* PEM CA: clients must present a certificate it signed; "" = none */
  unsigned status_max_connections;  /* HTTP connections open at once; more evict the oldest idle */
  uint64_t status_idle_timeout_ms;  /* an HTTP connection idle this long is closed */
  /* [shutdown] (cancel_running is engine.cancel_on_shutdown) */
  uint64_t shutdown_grace_ms; /* after the drain: how long uncollected results stay served */
  /* [memory] */
  uint64_t host_budget;      /* 0 = "auto": mem_total less safety_margin */
  uint64_t safety_margin;    /* what "auto" leaves to the rest of the machine */
  uint64_t mem_total;        /* MemTotal in bytes (0: unknown), read by daemon_config_init */
  /* [logging] */
  daemon_log_level log_level;
  /* [srs] param_dir and [[circuits]], owned */
  char *param_dir;           /* "" = no lookup by id */
  char *witness_dir;         /* [srs] witness_dir: "" = requests carry their witness bytes */
  engine_circuit *circuits;
  size_t ncircuits;
  int *gpus;                 /* [gpus] devices */
  size_t ngpus;
  /* everything the engine reads, pointers into the above */
  engine_config engine;
  char *source;              /* the file read, or NULL (defaults only) */
  /* Per key (config.c's table), where its value came from: the file's line
   * that set it, or the `origin` of the daemon_config_set that did (a
   * string that outlives c, e.g. "--listen"); neither: the default. */
  unsigned line[48];
  const char *set_by[48];
} daemon_config;

/* Defaults; reads MemTotal from /proc/meminfo (mem_total = 0 when that
 * fails: host_budget = "auto" then fails at load).  CUZK_NO_MEMORY. */
cuzk_status daemon_config_init(daemon_config *c, cuzk_err *err);
void daemon_config_free(daemon_config *c);

/* Reads the TOML text (name is the file's name for messages; relative
 * paths are resolved against its directory) over c's current values, and
 * validates the result (daemon_config_finish). */
cuzk_status daemon_config_parse(daemon_config *c, const char *text, size_t len, const char *name,
                                cuzk_err *err);
/* daemon_config_parse of a file: CUZK_NOT_FOUND when it does not exist
 * (the daemon's --config must exist), CUZK_IO when unreadable. */
cuzk_status daemon_config_load(daemon_config *c, const char *path, cuzk_err *err);

/* Sets one key from a command-line string, as if the file said
 * section.key = "value" (used by --listen, --status-listen, --log-level),
 * validated as in a file; the message names `origin` (e.g. "--listen"),
 * and so does the printed config.  origin must outlive c.  Call
 * daemon_config_finish afterwards. */
cuzk_status daemon_config_set(daemon_config *c, const char *section, const char *key,
                              const char *value, const char *origin, cuzk_err *err);

/* Checks the keys against each other and resolves "auto" (host_budget),
 * filling c->engine.  Idempotent. */
cuzk_status daemon_config_finish(daemon_config *c, cuzk_err *err);

/* Opens each [[circuits]] key far enough to know what the engine's start
 * would find: the file exists, is readable and is a BLS12-381 Groth16
 * zkey (zkey_read_header: sections 1 and 2 only, cheap for a large key).
 * The first failure's status, with "circuit ID: " before the reader's
 * message.  `--check` and the daemon's start both call it, so both refuse
 * a bad key with the same message. */
cuzk_status daemon_config_check_circuits(const daemon_config *c, cuzk_err *err);

/* The TLS files of [daemon] tls_cert, tls_key and tls_client_ca, read:
 * each a NUL-terminated PEM text (malloc'd), NULL when the key is "". */
typedef struct {
  char *cert, *key, *client_ca;
} daemon_tls;

/* Reads c's TLS files (each a regular file of at most 1 MiB holding a PEM
 * certificate or private key, as its key says).  CUZK_NOT_FOUND or CUZK_IO
 * for a missing or unreadable file, CUZK_FORMAT for one without the PEM
 * block expected; the message names the key and the file.  `--check` and
 * the daemon's start both call it.  Free with daemon_tls_free. */
cuzk_status daemon_config_read_tls(const daemon_config *c, daemon_tls *t, cuzk_err *err);
void daemon_tls_free(daemon_tls *t);

/* The effective config as TOML (every key, defaults included, each with a
 * comment), which daemon_config_parse reads back to the same config. */
void daemon_config_print(const daemon_config *c, FILE *f);

/* Sizes: an integer (bytes) or a string "<number>[ ]<unit>" with unit B,
 * KiB, MiB, GiB, TiB (powers of 1024) or kB, MB, GB, TB (powers of 1000),
 * the number an integer or a decimal ("1.5GiB"; bytes rounded down).
 * Durations: a string of <integer><unit> parts, unit ms, s, m, h or d,
 * e.g. "500ms", "30s", "5m", "1h30m", or "0".  Both return 0 or -1 with a
 * message in err saying what was expected.  Exposed for the tests. */
int config_parse_size(const char *s, uint64_t *out, cuzk_err *err);
int config_parse_duration_ms(const char *s, uint64_t *out, cuzk_err *err);
/* Formats as the parsers read: "256MiB" (exact units only, else bytes as
 * "1000B"), "1h30m" ("0" for zero). */
void config_format_size(uint64_t v, char *buf, size_t cap);
void config_format_duration_ms(uint64_t ms, char *buf, size_t cap);

const char *daemon_log_level_name(daemon_log_level l);

#endif
