/* The daemon's config: one table of keys, read from TOML, validated and
 * printed from that table.  See config.h and docs/daemon.md. */
#include "server/config.h"

#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "groth16/pce.h"
#include "groth16/zkey.h"
#include "server/listen.h"
#include "server/rpc_server.h"
#include "server/toml.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define TiB (UINT64_C(1) << 40)
#define MINUTE_MS UINT64_C(60000)
#define DAY_MS (UINT64_C(24) * 60 * MINUTE_MS)

#define MAX_CIRCUITS 4096
#define MAX_GPUS 64
#define MIN_AUTO_HOST GiB /* host_budget = "auto" must leave at least this */
#define STR_(x) #x
#define STR(x) STR_(x)

typedef enum {
  K_ADDR,      /* char *: a listen address */
  K_ADDR_OFF,  /* char *: a listen address or "" (off) */
  K_BOOL,      /* bool */
  K_UINT,      /* unsigned */
  K_COUNT,     /* size_t */
  K_SIZE,      /* uint64_t bytes */
  K_SIZE_AUTO, /* uint64_t bytes, "auto" = 0 */
  K_DURATION,  /* uint64_t milliseconds */
  K_DEVICE,    /* engine_device_mode */
  K_LEVEL,     /* daemon_log_level */
  K_PATH,      /* char *: a path, relative ones against the config's directory; "" allowed */
  K_GPUS,      /* int *gpus, size_t ngpus */
  K_MODE,      /* unsigned: permission bits, an octal string "0660" */
  K_STRING,    /* char *: any string; "" allowed */
} key_kind;

typedef struct {
  const char *section, *name;
  key_kind kind;
  size_t off; /* in daemon_config */
  uint64_t min, max;
  const char *help;
} key_def;

#define F(field) offsetof(daemon_config, field)
static const key_def keys[] = {
    {"daemon", "listen", K_ADDR, F(listen), 0, 0,
     "gRPC service: \"unix://PATH\" or \"HOST:PORT\""},
    {"daemon", "status_listen", K_ADDR_OFF, F(status_listen), 0, 0,
     "HTTP GET /status (JSON) and /metrics (Prometheus): \"HOST:PORT\" or \"unix://PATH\"; \"\" = off"},
    {"daemon", "max_message_size", K_SIZE, F(max_message_size), 64 * KiB, 2 * GiB - 1,
     "largest gRPC message, either way (a request carries its witnesses)"},
    {"daemon", "socket_mode", K_MODE, F(socket_mode), 0600, 0777,
     "permissions of the unix socket files (made 0600, then set to this): at least \"0600\""},
    {"daemon", "socket_group", K_STRING, F(socket_group), 0, 0,
     "the group (name or gid) given the unix socket files, to share them (socket_mode \"0660\"); \"\" = none"},
    {"daemon", "tls_cert", K_PATH, F(tls_cert), 0, 0,
     "PEM certificate (chain) of the gRPC service on a TCP address, with tls_key; \"\" = plaintext"},
    {"daemon", "tls_key", K_PATH, F(tls_key), 0, 0, "PEM private key of tls_cert"},
    {"daemon", "tls_client_ca", K_PATH, F(tls_client_ca), 0, 0,
     "PEM CA: a client must present a certificate it signed (mutual TLS); \"\" = any client"},
    {"daemon", "status_max_connections", K_UINT, F(status_max_connections), 4, 4096,
     "HTTP connections open at once; one more closes the oldest idle one"},
    {"daemon", "status_idle_timeout", K_DURATION, F(status_idle_timeout_ms), 1000, 3600000,
     "an HTTP connection idle this long is closed"},
    {"memory", "host_budget", K_SIZE_AUTO, F(host_budget), 64 * MiB, UINT64_MAX,
     "host memory for keys (mapped or pinned), GPU slots' page-locked buffers and the queue; \"auto\" = MemTotal less safety_margin"},
    {"memory", "safety_margin", K_SIZE, F(safety_margin), 0, UINT64_MAX,
     "what host_budget = \"auto\" leaves to the rest of the machine"},
    {"memory", "queue_budget", K_SIZE_AUTO, F(engine.queue_budget_bytes), MiB, UINT64_MAX,
     "requests and results: witnesses, jobs and their results, calls and messages in hand, gRPC's buffers (max_message_size + 8MiB); over it a call is refused (EXHAUSTED); \"auto\" = host_budget / 4, or more to hold gRPC's buffers"},
    {"memory", "eviction_min_idle", K_DURATION, F(engine.eviction_min_idle_ms), 0, 30 * DAY_MS,
     "an idle key is evicted to make room only after this long unused"},
    {"memory", "pin_keys", K_BOOL, F(engine.pin_keys), 0, 0,
     "copy keys into page-locked memory (tier pinned) instead of mapping the file (tier mapped)"},
    {"gpus", "device", K_DEVICE, F(engine.device), 0, 0,
     "\"auto\" (the GPUs when one is usable, else the CPU), \"gpu\" (an error without one) or \"cpu\""},
    {"gpus", "devices", K_GPUS, 0, 0, 1023, "GPU ordinals to use; [] = all"},
    {"gpus", "gpu_workers_per_device", K_UINT, F(engine.gpu_workers_per_device), 1, 16,
     "proving slots per GPU (one uploads while another computes)"},
    {"gpus", "device_budget", K_SIZE_AUTO, F(engine.device_budget_bytes), 256 * MiB, UINT64_MAX,
     "GPU memory per device for resident keys; \"auto\" = its free memory once its slots are planned, less "
     STR(ENGINE_DEVICE_MARGIN_MIB) "MiB"},
    {"gpus", "keys_on_device", K_BOOL, F(engine.keys_on_device), 0, 0,
     "keep each key's bases resident on the GPU (tier device)"},
    {"gpus", "express_max_lg", K_UINT, F(engine.express_max_lg), 0, 30,
     "one more slot per GPU for HIGH and CRITICAL jobs of keys of at most 2^N rows (a "
     "WinningPoSt beside a PoRep stream), planned for those keys alone; 0 = none"},
    {"gpus", "witness_readahead", K_UINT, F(engine.witness_readahead), 0, 16,
     "page-locked buffers, each one witness of the largest key, into which witness files are "
     "read while the slots prove (with a witness_dir); 0 = none"},
    {"gpus", "ntt_pass1_table", K_BOOL, F(engine.ntt_pass1_table), 0, 0,
     "NTTs with a table of the first pass's twiddle factors: 32 bytes per domain element more "
     "GPU memory per slot and key size, a faster forward NTT"},
    {"cpu", "workers", K_UINT, F(engine.cpu_workers), 1, 256, "proving workers when proving on the CPU"},
    {"cpu", "threads", K_UINT, F(engine.threads), 0, 4096,
     "CPU threads per worker; 0 = the machine's cores shared among the workers"},
    {"srs", "param_dir", K_PATH, F(param_dir), 0, 0,
     "a circuit id not in [[circuits]] is looked up as <param_dir>/<id>.zkey, else as the "
     "bellperson <id>.params beside <id>.pce; \"\" = nowhere"},
    {"srs", "witness_dir", K_PATH, F(witness_dir), 0, 0,
     "where requests may name .wtns files instead of carrying the bytes (large witnesses; a "
     "tmpfs such as /dev/shm/cuzk makes it shared memory); \"\" = requests carry bytes only"},
    {"jobs", "finished_ttl", K_DURATION, F(engine.finished_ttl_ms), 0, 365 * DAY_MS,
     "how long a finished job's result stays awaitable; \"0\" = no limit"},
    {"jobs", "max_finished", K_COUNT, F(engine.max_finished), 1, 10000000,
     "and at most this many finished jobs (the oldest are forgotten first)"},
    {"shutdown", "cancel_running", K_BOOL, F(engine.cancel_on_shutdown), 0, 0,
     "on SIGTERM/SIGINT cancel the jobs in flight instead of finishing them"},
    {"shutdown", "grace", K_DURATION, F(shutdown_grace_ms), 0, 60 * MINUTE_MS,
     "once every job is finished or cancelled, how long the service stays up for clients to "
     "collect results not yet collected (it stops as soon as all are); new jobs get UNAVAILABLE"},
    {"logging", "level", K_LEVEL, F(log_level), 0, 0, "\"error\", \"warn\", \"info\" or \"debug\""},
};
#undef F
#define NKEYS (sizeof keys / sizeof keys[0])
_Static_assert(NKEYS <= sizeof(((daemon_config *)0)->line) / sizeof(unsigned), "daemon_config.line too short");
_Static_assert(NKEYS <= sizeof(((daemon_config *)0)->set_by) / sizeof(char *), "daemon_config.set_by too short");

/* Sections in the order they are printed; "circuits" is an array of tables. */
static const char *const sections[] = {"daemon", "memory", "gpus", "cpu", "srs", "jobs", "shutdown", "logging",
                                       "circuits"};
#define NSECTIONS (sizeof sections / sizeof sections[0])

static const char *const device_names[] = {"auto", "cpu", "gpu"}; /* engine_device_mode order */
static const char *const level_names[] = {"error", "warn", "info", "debug"};

const char *daemon_log_level_name(daemon_log_level l) {
  return (unsigned)l < 4 ? level_names[l] : "?";
}

/* ---- sizes and durations ---------------------------------------------- */

static int ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if ((*a | 0x20) != (*b | 0x20))
      return 0;
  return *a == *b;
}

int config_parse_size(const char *s, uint64_t *out, cuzk_err *err) {
  static const struct {
    const char *unit;
    uint64_t mult;
  } units[] = {{"", 1},      {"B", 1},     {"KiB", KiB},           {"MiB", MiB},
               {"GiB", GiB}, {"TiB", TiB}, {"kB", 1000},           {"MB", 1000000},
               {"GB", UINT64_C(1000000000)}, {"TB", UINT64_C(1000000000000)}};
  const char *p = s;
  uint64_t ip = 0, frac = 0, fscale = 1;
  int nd = 0;
  for (; *p >= '0' && *p <= '9'; p++, nd++) {
    uint64_t d = (uint64_t)(*p - '0');
    if (ip > (UINT64_MAX - d) / 10)
      goto range;
    ip = ip * 10 + d;
  }
  if (*p == '.') {
    p++;
    int fd = 0;
    for (; *p >= '0' && *p <= '9'; p++, fd++)
      if (fd < 9)
        frac = frac * 10 + (uint64_t)(*p - '0'), fscale *= 10;
    if (fd == 0)
      goto bad;
  }
  if (nd == 0)
    goto bad;
  while (*p == ' ')
    p++;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (!ieq(p, units[i].unit))
      continue;
    uint64_t m = units[i].mult;
    if (fscale > 1 && m == 1)
      goto bad; /* fractions of a byte */
    if (ip > UINT64_MAX / m)
      goto range;
    uint64_t v = ip * m, f = frac * (m / fscale) + frac * (m % fscale) / fscale;
    if (v > UINT64_MAX - f)
      goto range;
    *out = v + f;
    return 0;
  }
bad:
  cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
               "expected a size like \"512GiB\", \"256MiB\" or \"1.5GB\" (units B, KiB, MiB, GiB, TiB, kB, MB, GB, TB), found \"%s\"",
               s);
  return -1;
range:
  cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "size \"%s\" is too large", s);
  return -1;
}

int config_parse_duration_ms(const char *s, uint64_t *out, cuzk_err *err) {
  static const struct {
    const char *unit;
    uint64_t ms;
  } units[] = {{"ms", 1}, {"s", 1000}, {"m", MINUTE_MS}, {"h", 60 * MINUTE_MS}, {"d", DAY_MS}};
  if (!strcmp(s, "0")) {
    *out = 0;
    return 0;
  }
  const char *p = s;
  uint64_t total = 0;
  if (!*p)
    goto bad;
  while (*p) {
    uint64_t n = 0;
    int nd = 0;
    for (; *p >= '0' && *p <= '9'; p++, nd++) {
      uint64_t d = (uint64_t)(*p - '0');
      if (n > (UINT64_MAX - d) / 10)
        goto range;
      n = n * 10 + d;
    }
    if (nd == 0)
      goto bad;
    size_t ul = 0;
    while (p[ul] >= 'a' && p[ul] <= 'z')
      ul++;
    size_t i;
    for (i = 0; i < sizeof units / sizeof units[0]; i++)
      if (strlen(units[i].unit) == ul && !strncmp(p, units[i].unit, ul))
        break;
    if (i == sizeof units / sizeof units[0])
      goto bad;
    if (n > UINT64_MAX / units[i].ms || total > UINT64_MAX - n * units[i].ms)
      goto range;
    total += n * units[i].ms;
    p += ul;
  }
  *out = total;
  return 0;
bad:
  cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
               "expected a duration like \"500ms\", \"30s\", \"5m\", \"1h30m\" or \"2d\" (units ms, s, m, h, d), found \"%s\"",
               s);
  return -1;
range:
  cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "duration \"%s\" is too long", s);
  return -1;
}

void config_format_size(uint64_t v, char *buf, size_t cap) {
  static const struct {
    const char *unit;
    uint64_t mult;
  } units[] = {{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB},
               {"TB", UINT64_C(1000000000000)}, {"GB", UINT64_C(1000000000)}, {"MB", 1000000}, {"kB", 1000}};
  for (size_t i = 0; v && i < sizeof units / sizeof units[0]; i++)
    if (v % units[i].mult == 0) {
      snprintf(buf, cap, "%" PRIu64 "%s", v / units[i].mult, units[i].unit);
      return;
    }
  snprintf(buf, cap, "%" PRIu64 "B", v);
}

void config_format_duration_ms(uint64_t ms, char *buf, size_t cap) {
  static const struct {
    const char *unit;
    uint64_t ms;
  } units[] = {{"d", DAY_MS}, {"h", 60 * MINUTE_MS}, {"m", MINUTE_MS}, {"s", 1000}, {"ms", 1}};
  if (ms == 0) {
    snprintf(buf, cap, "0");
    return;
  }
  size_t len = 0;
  buf[0] = 0;
  for (size_t i = 0; i < sizeof units / sizeof units[0] && ms; i++)
    if (ms >= units[i].ms && len < cap) {
      len += (size_t)snprintf(buf + len, cap - len, "%" PRIu64 "%s", ms / units[i].ms, units[i].unit);
      ms %= units[i].ms;
    }
}

/* "58.3 GiB", for comments only. */
static void human_size(uint64_t v, char *buf, size_t cap) {
  if (v >= GiB)
    snprintf(buf, cap, "%.1f GiB", (double)v / (double)GiB);
  else
    snprintf(buf, cap, "%.1f MiB", (double)v / (double)MiB);
}

/* ---- defaults --------------------------------------------------------- */

static uint64_t read_mem_total(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f)
    return 0;
  char line[256];
  uint64_t kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemTotal: %" SCNu64 " kB", &kb) == 1)
      break;
  fclose(f);
  return kb * KiB;
}

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

cuzk_status daemon_config_init(daemon_config *c, cuzk_err *err) {
  memset(c, 0, sizeof *c);
  engine_config_defaults(&c->engine);
  c->engine.gpu_workers_per_device = 2;
  c->max_message_size = 256 * MiB;
  c->shutdown_grace_ms = 10 * 1000;
  c->host_budget = 0; /* auto */
  c->safety_margin = 5 * GiB;
  c->log_level = DAEMON_LOG_INFO;
  c->mem_total = read_mem_total();
  c->listen = dup_str(DAEMON_DEFAULT_LISTEN);
  c->status_listen = dup_str("");
  c->param_dir = dup_str("");
  c->witness_dir = dup_str("");
  c->socket_mode = 0600;
  c->socket_group = dup_str("");
  c->socket_gid = -1;
  c->tls_cert = dup_str("");
  c->tls_key = dup_str("");
  c->tls_client_ca = dup_str("");
  c->status_max_connections = 256;
  c->status_idle_timeout_ms = 10000;
  if (!c->listen || !c->status_listen || !c->param_dir || !c->witness_dir || !c->socket_group || !c->tls_cert || !c->tls_key ||
      !c->tls_client_ca) {
    daemon_config_free(c);
    return cuzk_err_set(err, CUZK_NO_MEMORY, "out of memory");
  }
  return CUZK_OK;
}

static void free_circuits(daemon_config *c) {
  for (size_t i = 0; i < c->ncircuits; i++) {
    free((char *)c->circuits[i].id);
    free((char *)c->circuits[i].path);
    free((char *)c->circuits[i].pce);
  }
  free(c->circuits);
  c->circuits = NULL;
  c->ncircuits = 0;
}

void daemon_config_free(daemon_config *c) {
  free(c->listen);
  free(c->status_listen);
  free(c->param_dir);
  free(c->witness_dir);
  free(c->socket_group);
  free(c->tls_cert);
  free(c->tls_key);
  free(c->tls_client_ca);
  free(c->gpus);
  free(c->source);
  free_circuits(c);
  memset(c, 0, sizeof *c);
}

/* ---- reading values ------------------------------------------------------ */

typedef struct {
  daemon_config *c;
  const char *name;    /* file name, for messages */
  char base[PATH_MAX]; /* directory relative paths are taken against */
  cuzk_err *err;
} reader;

/* "string \"x\"", "integer 5", ... for "found ..." */
static const char *describe(const toml_value *v, char *buf, size_t cap) {
  switch (v->type) {
  case TOML_STRING:
    snprintf(buf, cap, "string \"%.60s%s\"", v->u.string, strlen(v->u.string) > 60 ? "..." : "");
    break;
  case TOML_INTEGER:
    snprintf(buf, cap, "integer %" PRId64, v->u.integer);
    break;
  case TOML_FLOAT:
    snprintf(buf, cap, "float %g", v->u.number);
    break;
  case TOML_BOOLEAN:
    snprintf(buf, cap, "boolean %s", v->u.boolean ? "true" : "false");
    break;
  case TOML_ARRAY:
    snprintf(buf, cap, "%s", toml_is_table_array(v) ? "an array of tables" : "an array");
    break;
  case TOML_TABLE:
    snprintf(buf, cap, "a table");
    break;
  }
  return buf;
}

/* Fails with "FILE:LINE:COL: [section] key: message". */
static cuzk_status bad(reader *r, const toml_value *v, const char *section, const char *key,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static cuzk_status bad(reader *r, const toml_value *v, const char *section, const char *key,
                       const char *fmt, ...) {
  char msg[CUZK_ERR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (v && v->line)
    return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT, "%s:%u:%u: [%s] %s: %s", r->name, v->line, v->col,
                        section, key, msg);
  return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT, "%s: %s", r->name, msg);
}

/* What a key of this kind must be, for messages. */
static const char *expected(const key_def *k, char *buf, size_t cap) {
  char lo[32], hi[32];
  switch (k->kind) {
  case K_ADDR:
    return "an address \"unix://PATH\" or \"HOST:PORT\"";
  case K_ADDR_OFF:
    return "an address \"HOST:PORT\" or \"unix://PATH\", or \"\" (off)";
  case K_BOOL:
    return "true or false";
  case K_UINT:
  case K_COUNT:
    snprintf(buf, cap, "an integer from %" PRIu64 " to %" PRIu64, k->min, k->max);
    return buf;
  case K_SIZE:
  case K_SIZE_AUTO:
    config_format_size(k->min, lo, sizeof lo);
    config_format_size(k->max, hi, sizeof hi);
    snprintf(buf, cap, "%sa size like \"512GiB\" (or a number of bytes)%s%s%s%s%s",
             k->kind == K_SIZE_AUTO ? "\"auto\" or " : "", k->min || k->max != UINT64_MAX ? " of " : "",
             k->min ? "at least " : "", k->min ? lo : "",
             k->min && k->max != UINT64_MAX ? " and " : "", k->max != UINT64_MAX ? "at most " : "");
    if (k->max != UINT64_MAX)
      snprintf(buf + strlen(buf), cap - strlen(buf), "%s", hi);
    return buf;
  case K_DURATION:
    config_format_duration_ms(k->max, hi, sizeof hi);
    snprintf(buf, cap, "a duration like \"30s\", \"5m\" or \"1h30m\" (at most %s)", hi);
    return buf;
  case K_DEVICE:
    return "\"auto\", \"cpu\" or \"gpu\"";
  case K_LEVEL:
    return "\"error\", \"warn\", \"info\" or \"debug\"";
  case K_PATH:
    return "a path (a string; \"\" for none)";
  case K_GPUS:
    return "an array of GPU ordinals like [0, 1] ([] = all)";
  case K_MODE:
    return "permission bits as an octal string from \"0600\" to \"0777\", like \"0660\"";
  case K_STRING:
    return "a string";
  }
  return "?";
}

static int choose(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i]))
      return i;
  return -1;
}

/* base/path, or path when absolute or empty; malloc'd. */
static char *resolve_path(const reader *r, const char *path) {
  if (!*path || path[0] == '/' || !r->base[0])
    return dup_str(path);
  size_t bl = strlen(r->base), pl = strlen(path);
  char *p = malloc(bl + pl + 2);
  if (p) {
    memcpy(p, r->base, bl);
    p[bl] = '/';
    memcpy(p + bl + 1, path, pl + 1);
  }
  return p;
}

static cuzk_status set_string(reader *r, char **field, char *value) {
  if (!value)
    return cuzk_err_set(r->err, CUZK_NO_MEMORY, "out of memory");
  free(*field);
  *field = value;
  return CUZK_OK;
}

static cuzk_status apply_gpus(reader *r, const key_def *k, const toml_value *v) {
  char eb[160], fb[96];
  if (v->type != TOML_ARRAY || toml_is_table_array(v))
    return bad(r, v, k->section, k->name, "expected %s, found %s", expected(k, eb, sizeof eb),
               describe(v, fb, sizeof fb));
  size_t n = v->u.array.len;
  if (n > MAX_GPUS)
    return bad(r, v, k->section, k->name, "%zu ordinals; at most %d", n, MAX_GPUS);
  int *g = n ? malloc(n * sizeof *g) : NULL;
  if (n && !g)
    return cuzk_err_set(r->err, CUZK_NO_MEMORY, "out of memory");
  for (size_t i = 0; i < n; i++) {
    const toml_value *it = v->u.array.items[i];
    if (it->type != TOML_INTEGER || it->u.integer < (int64_t)k->min || it->u.integer > (int64_t)k->max) {
      free(g);
      return bad(r, it, k->section, k->name, "expected a GPU ordinal from %" PRIu64 " to %" PRIu64 ", found %s",
                 k->min, k->max, describe(it, fb, sizeof fb));
    }
    g[i] = (int)it->u.integer;
    for (size_t j = 0; j < i; j++)
      if (g[j] == g[i]) {
        int dup = g[i];
        free(g);
        return bad(r, it, k->section, k->name, "GPU %d is listed twice", dup);
      }
  }
  free(r->c->gpus);
  r->c->gpus = g;
  r->c->ngpus = n;
  return CUZK_OK;
}

/* Checks v against k and stores it into r->c. */
static cuzk_status apply(reader *r, const key_def *k, const toml_value *v) {
  char eb[160], fb[96];
  void *field = (char *)r->c + k->off;
  cuzk_err sub;
  switch (k->kind) {
  case K_BOOL:
    if (v->type != TOML_BOOLEAN)
      break;
    *(bool *)field = v->u.boolean;
    return CUZK_OK;
  case K_UINT:
  case K_COUNT:
    if (v->type != TOML_INTEGER)
      break;
    if (v->u.integer < 0 || (uint64_t)v->u.integer < k->min || (uint64_t)v->u.integer > k->max)
      return bad(r, v, k->section, k->name, "expected %s, found %" PRId64, expected(k, eb, sizeof eb),
                 v->u.integer);
    if (k->kind == K_UINT)
      *(unsigned *)field = (unsigned)v->u.integer;
    else
      *(size_t *)field = (size_t)v->u.integer;
    return CUZK_OK;
  case K_SIZE:
  case K_SIZE_AUTO: {
    uint64_t x;
    if (v->type == TOML_INTEGER) {
      if (v->u.integer < 0)
        return bad(r, v, k->section, k->name, "expected %s, found %" PRId64, expected(k, eb, sizeof eb),
                   v->u.integer);
      x = (uint64_t)v->u.integer;
    } else if (v->type == TOML_STRING) {
      if (k->kind == K_SIZE_AUTO && !strcmp(v->u.string, "auto")) {
        *(uint64_t *)field = 0;
        return CUZK_OK;
      }
      if (config_parse_size(v->u.string, &x, &sub)) {
        int strip = k->kind == K_SIZE_AUTO && !strncmp(sub.msg, "expected ", 9);
        return bad(r, v, k->section, k->name, "%s%s", strip ? "expected \"auto\" or " : "",
                   sub.msg + (strip ? 9 : 0));
      }
    } else {
      break;
    }
    if (x < k->min || x > k->max) {
      char got[32];
      config_format_size(x, got, sizeof got);
      return bad(r, v, k->section, k->name, "expected %s, found %s", expected(k, eb, sizeof eb), got);
    }
    *(uint64_t *)field = x;
    return CUZK_OK;
  }
  case K_DURATION: {
    uint64_t ms;
    if (v->type != TOML_STRING)
      break;
    if (config_parse_duration_ms(v->u.string, &ms, &sub))
      return bad(r, v, k->section, k->name, "%s", sub.msg);
    if (ms < k->min || ms > k->max)
      return bad(r, v, k->section, k->name, "expected %s, found \"%s\"", expected(k, eb, sizeof eb),
                 v->u.string);
    *(uint64_t *)field = ms;
    return CUZK_OK;
  }
  case K_DEVICE:
  case K_LEVEL: {
    if (v->type != TOML_STRING)
      break;
    int i = k->kind == K_DEVICE ? choose(v->u.string, device_names, 3) : choose(v->u.string, level_names, 4);
    if (i < 0)
      break;
    if (k->kind == K_DEVICE)
      *(engine_device_mode *)field = (engine_device_mode)i;
    else
      *(daemon_log_level *)field = (daemon_log_level)i;
    return CUZK_OK;
  }
  case K_ADDR:
  case K_ADDR_OFF: {
    if (v->type != TOML_STRING)
      break;
    listen_addr a;
    if (!(k->kind == K_ADDR_OFF && !*v->u.string) && listen_addr_parse(&a, v->u.string, &sub) != CUZK_OK)
      return bad(r, v, k->section, k->name, "%s", sub.msg);
    return set_string(r, (char **)field, dup_str(v->u.string));
  }
  case K_PATH:
    if (v->type != TOML_STRING)
      break;
    return set_string(r, (char **)field, resolve_path(r, v->u.string));
  case K_GPUS:
    return apply_gpus(r, k, v);
  case K_MODE: {
    if (v->type != TOML_STRING)
      break;
    const char *p = v->u.string;
    unsigned m = 0;
    size_t n = strlen(p);
    for (; *p >= '0' && *p <= '7'; p++)
      m = m * 8 + (unsigned)(*p - '0');
    if (*p || n < 3 || n > 4 || (n == 4 && v->u.string[0] != '0'))
      break;
    if ((m & 0600) != 0600)
      return bad(r, v, k->section, k->name,
                 "\"%s\" takes read and write from the daemon's own user: the mode needs 0600 at least",
                 v->u.string);
    *(unsigned *)field = m;
    return CUZK_OK;
  }
  case K_STRING:
    if (v->type != TOML_STRING)
      break;
    return set_string(r, (char **)field, dup_str(v->u.string));
  }
  return bad(r, v, k->section, k->name, "expected %s, found %s", expected(k, eb, sizeof eb),
             describe(v, fb, sizeof fb));
}

/* ---- unknown names ------------------------------------------------------- */

/* Edit distance, capped (names are short). */
static unsigned distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 63 || m > 63)
    return 99;
  unsigned d[64][64];
  for (size_t i = 0; i <= n; i++)
    d[i][0] = (unsigned)i;
  for (size_t j = 0; j <= m; j++)
    d[0][j] = (unsigned)j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      unsigned s = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      unsigned x = d[i - 1][j] + 1, y = d[i][j - 1] + 1;
      d[i][j] = s < x ? (s < y ? s : y) : (x < y ? x : y);
    }
  return d[n][m];
}

/* " (did you mean 'x'?)" or " (known: a, b, c)" into buf. */
static const char *suggest(const char *name, const char *const *known, size_t n, char *buf, size_t cap) {
  const char *best = NULL;
  unsigned bd = 3;
  for (size_t i = 0; i < n; i++) {
    unsigned d = distance(name, known[i]);
    if (d < bd)
      bd = d, best = known[i];
  }
  if (best) {
    snprintf(buf, cap, " (did you mean '%s'?)", best);
    return buf;
  }
  size_t len = (size_t)snprintf(buf, cap, " (known:");
  for (size_t i = 0; i < n && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s %s", i ? "," : "", known[i]);
  if (len < cap)
    snprintf(buf + len, cap - len, ")");
  return buf;
}

static cuzk_status unknown_key(reader *r, const toml_entry *e, const char *section) {
  const char *known[NKEYS];
  size_t n = 0;
  for (size_t i = 0; i < NKEYS; i++)
    if (!strcmp(keys[i].section, section))
      known[n++] = keys[i].name;
  char sb[256];
  return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT, "%s:%u:%u: [%s] unknown key '%s'%s", r->name, e->line,
                      e->col, section, e->key, suggest(e->key, known, n, sb, sizeof sb));
}

/* ---- circuits ------------------------------------------------------------- */

static int valid_id(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n >= ENGINE_ID_MAX || s[0] == '.' || s[0] == '-')
    return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '.' ||
          *s == '_' || *s == '-'))
      return 0;
  return 1;
}

static cuzk_status read_circuits(reader *r, const toml_entry *e) {
  char fb[96];
  const toml_value *v = e->value;
  if (!toml_is_table_array(v))
    return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT,
                        "%s:%u:%u: circuits: expected [[circuits]] sections (an array of tables), found %s",
                        r->name, e->line, e->col, describe(v, fb, sizeof fb));
  size_t n = v->u.array.len;
  if (n > MAX_CIRCUITS)
    return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT, "%s: %zu [[circuits]]; at most %d", r->name, n,
                        MAX_CIRCUITS);
  engine_circuit *cs = calloc(n ? n : 1, sizeof *cs);
  if (!cs)
    return cuzk_err_set(r->err, CUZK_NO_MEMORY, "out of memory");
  cuzk_status st = CUZK_OK;
  size_t done = 0;
  for (; done < n; done++) {
    const toml_value *t = v->u.array.items[done];
    const toml_value *id = NULL, *path = NULL, *pce = NULL, *trusted = NULL;
    for (size_t j = 0; j < t->u.table.len && st == CUZK_OK; j++) {
      const toml_entry *ce = &t->u.table.items[j];
      if (!strcmp(ce->key, "id"))
        id = ce->value;
      else if (!strcmp(ce->key, "path"))
        path = ce->value;
      else if (!strcmp(ce->key, "pce"))
        pce = ce->value;
      else if (!strcmp(ce->key, "trusted"))
        trusted = ce->value;
      else {
        static const char *const known[] = {"id", "path", "pce", "trusted"};
        char sb[128];
        st = cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT, "%s:%u:%u: [[circuits]] unknown key '%s'%s", r->name,
                          ce->line, ce->col, ce->key, suggest(ce->key, known, 4, sb, sizeof sb));
      }
    }
    if (st != CUZK_OK)
      break;
    if (!id || !path) {
      st = cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT,
                        "%s:%u: [[circuits]] needs both id = \"...\" and path = \"...\" (the .zkey); %s is missing",
                        r->name, t->line, !id ? "id" : "path");
      break;
    }
    if (id->type != TOML_STRING || !valid_id(id->u.string)) {
      st = bad(r, id, "[circuits]", "id",
               "expected a circuit id of 1 to %d letters, digits, '.', '_' or '-' (not first), found %s",
               ENGINE_ID_MAX - 1, describe(id, fb, sizeof fb));
      break;
    }
    if (path->type != TOML_STRING || !*path->u.string) {
      st = bad(r, path, "[circuits]", "path",
               "expected the path of a .zkey file (or of a bellperson .params, with pce), found %s",
               describe(path, fb, sizeof fb));
      break;
    }
    if (pce && (pce->type != TOML_STRING || !*pce->u.string)) {
      st = bad(r, pce, "[circuits]", "pce",
               "expected the path of the circuit's PCE file (bellperson keys), found %s",
               describe(pce, fb, sizeof fb));
      break;
    }
    if (trusted && (trusted->type != TOML_BOOLEAN || !pce)) {
      st = bad(r, trusted, "[circuits]", "trusted",
               "expected true or false, for a bellperson key (with pce), found %s",
               describe(trusted, fb, sizeof fb));
      break;
    }
    for (size_t j = 0; j < done; j++)
      if (!strcmp(cs[j].id, id->u.string)) {
        st = bad(r, id, "[circuits]", "id", "circuit id \"%s\" is listed twice (also [[circuits]] number %zu)",
                 id->u.string, j + 1);
        break;
      }
    if (st != CUZK_OK)
      break;
    cs[done].id = dup_str(id->u.string);
    cs[done].path = resolve_path(r, path->u.string);
    cs[done].pce = pce ? resolve_path(r, pce->u.string) : NULL;
    cs[done].trusted = trusted && trusted->u.boolean;
    if (!cs[done].id || !cs[done].path || (pce && !cs[done].pce)) {
      done++;
      st = cuzk_err_set(r->err, CUZK_NO_MEMORY, "out of memory");
      break;
    }
  }
  if (st != CUZK_OK) {
    for (size_t j = 0; j < done; j++) {
      free((char *)cs[j].id);
      free((char *)cs[j].path);
      free((char *)cs[j].pce);
    }
    free(cs);
    return st;
  }
  free_circuits(r->c);
  r->c->circuits = cs;
  r->c->ncircuits = n;
  return CUZK_OK;
}

/* ---- loading -------------------------------------------------------------- */

static void set_base_dir(reader *r, const char *name) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", name);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = 0;
  else
    *slash = 0;
  if (!realpath(dir, r->base))
    snprintf(r->base, sizeof r->base, "%s", dir);
}

static cuzk_status read_document(reader *r, const toml_value *root) {
  for (size_t i = 0; i < root->u.table.len; i++) {
    const toml_entry *se = &root->u.table.items[i];
    size_t s;
    for (s = 0; s < NSECTIONS; s++)
      if (!strcmp(se->key, sections[s]))
        break;
    char sb[256], fb[96];
    if (s == NSECTIONS) {
      if (se->value->type != TOML_TABLE) {
        const char *home = "daemon";
        for (size_t k = 0; k < NKEYS; k++)
          if (!strcmp(keys[k].name, se->key))
            home = keys[k].section;
        return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT,
                            "%s:%u:%u: '%s' outside a section: keys belong in a section such as [%s]", r->name,
                            se->line, se->col, se->key, home);
      }
      return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT, "%s:%u:%u: unknown section [%s]%s", r->name, se->line,
                          se->col, se->key, suggest(se->key, sections, NSECTIONS, sb, sizeof sb));
    }
    if (!strcmp(se->key, "circuits")) {
      CUZK_TRY(read_circuits(r, se));
      continue;
    }
    if (se->value->type != TOML_TABLE)
      return cuzk_err_set(r->err, CUZK_INVALID_ARGUMENT, "%s:%u:%u: %s: expected a [%s] section, found %s",
                          r->name, se->line, se->col, se->key, se->key, describe(se->value, fb, sizeof fb));
    const toml_value *t = se->value;
    for (size_t j = 0; j < t->u.table.len; j++) {
      const toml_entry *e = &t->u.table.items[j];
      size_t k;
      for (k = 0; k < NKEYS; k++)
        if (!strcmp(keys[k].section, se->key) && !strcmp(keys[k].name, e->key))
          break;
      if (k == NKEYS)
        return unknown_key(r, e, se->key);
      CUZK_TRY(apply(r, &keys[k], e->value));
      r->c->line[k] = e->line;
      r->c->set_by[k] = NULL;
    }
  }
  return CUZK_OK;
}

cuzk_status daemon_config_parse(daemon_config *c, const char *text, size_t len, const char *name,
                                cuzk_err *err) {
  reader r = {c, name ? name : "<config>", "", err};
  set_base_dir(&r, r.name);
  toml_value *root;
  CUZK_TRY(toml_parse(&root, text, len, r.name, err));
  cuzk_status s = read_document(&r, root);
  toml_free(root);
  CUZK_TRY(s);
  CUZK_TRY(set_string(&r, &c->source, dup_str(r.name)));
  return daemon_config_finish(c, err);
}

cuzk_status daemon_config_load(daemon_config *c, const char *path, cuzk_err *err) {
  char *text;
  size_t len;
  cuzk_status s = toml_read_file(path, &text, &len, err);
  if (s != CUZK_OK)
    return cuzk_err_prefix(err, s, "config file");
  s = daemon_config_parse(c, text, len, path, err);
  free(text);
  return s;
}

cuzk_status daemon_config_set(daemon_config *c, const char *section, const char *key, const char *value,
                              const char *origin, cuzk_err *err) {
  reader r = {c, origin, "", err};
  for (size_t k = 0; k < NKEYS; k++) {
    if (strcmp(keys[k].section, section) || strcmp(keys[k].name, key))
      continue;
    toml_value v = {.type = TOML_STRING};
    v.u.string = (char *)value;
    cuzk_status s = apply(&r, &keys[k], &v);
    if (s == CUZK_OK) {
      c->line[k] = 0;
      c->set_by[k] = origin;
    }
    return s;
  }
  return cuzk_err_set(err, CUZK_INTERNAL, "%s: no key [%s] %s", origin, section, key);
}

/* Where key k was set, for messages: "FILE:LINE: ", "--option: " or "". */
static const char *key_where(const daemon_config *c, const char *key, char *buf, size_t cap) {
  buf[0] = 0;
  for (size_t k = 0; k < NKEYS; k++)
    if (!strcmp(keys[k].name, key) && c->line[k] && c->source)
      snprintf(buf, cap, "%s:%u: ", c->source, c->line[k]);
    else if (!strcmp(keys[k].name, key) && c->set_by[k])
      snprintf(buf, cap, "%s: ", c->set_by[k]);
  return buf;
}

/* socket_group resolved into c->socket_gid: a numeric gid as it is (it
 * need not have a name), else a name looked up in the group database. */
static cuzk_status resolve_group(daemon_config *c, cuzk_err *err) {
  char w[PATH_MAX + 16];
  const char *g = c->socket_group;
  c->socket_gid = -1;
  if (!g || !*g)
    return CUZK_OK;
  char *end;
  errno = 0;
  unsigned long n = strtoul(g, &end, 10);
  if (g[0] >= '0' && g[0] <= '9' && !*end && errno == 0 && n < (unsigned long)INT_MAX) {
    c->socket_gid = (long)n;
    return CUZK_OK;
  }
  struct group gr, *res = NULL;
  char buf[16384];
  int e = getgrnam_r(g, &gr, buf, sizeof buf, &res);
  if (!res)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s[daemon] socket_group: %s \"%s\"%s%s",
                        key_where(c, "socket_group", w, sizeof w), e ? "cannot look up the group" : "no group named",
                        g, e ? ": " : " (a group name or a numeric gid)", e ? strerror(e) : "");
  c->socket_gid = (long)gr.gr_gid;
  return CUZK_OK;
}

/* The access keys against each other and the listen address. */
static cuzk_status check_access(daemon_config *c, cuzk_err *err) {
  char w[PATH_MAX + 16];
  CUZK_TRY(resolve_group(c, err));
  if (c->socket_gid >= 0 && (c->socket_mode & 0060) != 0060)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s[daemon] socket_group = \"%s\" shares the sockets with a group, but socket_mode "
                        "\"%04o\" gives the group no read and write: set socket_mode = \"0660\"",
                        key_where(c, "socket_mode", w, sizeof w), c->socket_group, c->socket_mode);
  bool cert = c->tls_cert && *c->tls_cert, key = c->tls_key && *c->tls_key;
  bool ca = c->tls_client_ca && *c->tls_client_ca;
  if (cert != key)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "%s[daemon] %s is set without %s: TLS needs both",
                        key_where(c, cert ? "tls_cert" : "tls_key", w, sizeof w), cert ? "tls_cert" : "tls_key",
                        cert ? "tls_key" : "tls_cert");
  if (ca && !cert)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s[daemon] tls_client_ca needs tls_cert and tls_key: clients are checked over TLS",
                        key_where(c, "tls_client_ca", w, sizeof w));
  listen_addr a;
  if (cert && c->listen && listen_addr_parse(&a, c->listen, NULL) == CUZK_OK && a.is_unix)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s[daemon] tls_cert: TLS is for a TCP listen address, and listen is \"%s\" (a unix "
                        "socket is guarded by socket_mode and socket_group)",
                        key_where(c, "tls_cert", w, sizeof w), c->listen);
  return CUZK_OK;
}

cuzk_status daemon_config_finish(daemon_config *c, cuzk_err *err) {
  char w[PATH_MAX + 16], a[32], b[32];
  uint64_t host = c->host_budget;
  if (host == 0) {
    if (c->mem_total == 0)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "%s[memory] host_budget = \"auto\" needs MemTotal from /proc/meminfo, which could not be read; set host_budget to a size",
                          key_where(c, "host_budget", w, sizeof w));
    if (c->safety_margin >= c->mem_total || c->mem_total - c->safety_margin < MIN_AUTO_HOST) {
      human_size(c->mem_total, a, sizeof a);
      human_size(c->safety_margin, b, sizeof b);
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "%s[memory] host_budget = \"auto\": MemTotal (%s) less safety_margin (%s) leaves less than 1 GiB; lower safety_margin or set host_budget",
                          key_where(c, "safety_margin", w, sizeof w), a, b);
    }
    host = c->mem_total - c->safety_margin;
  }
  if (c->listen && c->status_listen && !strcmp(c->listen, c->status_listen))
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s[daemon] status_listen must differ from listen (both \"%s\")",
                        key_where(c, "status_listen", w, sizeof w), c->listen);
  CUZK_TRY(check_access(c, err));
  uint64_t queue = c->engine.queue_budget_bytes;
  if (queue && queue >= host) {
    config_format_size(queue, a, sizeof a);
    human_size(host, b, sizeof b);
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s[memory] queue_budget (%s) must be below host_budget (%s): keys get what the queue leaves",
                        key_where(c, "queue_budget", w, sizeof w), a, b);
  }
  /* The gRPC server's receive buffers are paid from the queue budget
   * (rpc_server.h): an explicit queue_budget must hold them; "auto" grows
   * from host_budget / 4 to hold them when the host budget allows. */
  uint64_t need = c->max_message_size + RPC_SERVER_TRANSPORT_BYTES;
  if (!queue && host / 4 < need && need < host)
    queue = c->engine.queue_budget_bytes = need + (host - need) / 4;
  if ((queue ? queue : host / 4) < need) {
    config_format_size(queue ? queue : host / 4, a, sizeof a);
    human_size(need, b, sizeof b);
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s[memory] queue_budget (%s) must hold gRPC's receive buffers, max_message_size "
                        "plus 8 MiB (%s): raise queue_budget (or host_budget) or lower max_message_size",
                        key_where(c, "queue_budget", w, sizeof w), a, b);
  }
  c->engine.host_budget_bytes = host;
  c->engine.circuits = c->circuits;
  c->engine.ncircuits = c->ncircuits;
  c->engine.param_dir = c->param_dir && *c->param_dir ? c->param_dir : NULL;
  c->engine.witness_dir = c->witness_dir && *c->witness_dir ? c->witness_dir : NULL;
  c->engine.gpus = c->gpus;
  c->engine.ngpus = c->ngpus;
  return CUZK_OK;
}

/* One PEM file of key `name` into *out; `want` is the text of the PEM
 * block's first line that must appear in it. */
static cuzk_status read_pem(const char *name, const char *path, const char *want, char **out, cuzk_err *err) {
  *out = NULL;
  if (!path || !*path)
    return CUZK_OK;
  size_t len;
  cuzk_status s = toml_read_file(path, out, &len, err);
  if (s != CUZK_OK)
    return cuzk_err_prefix(err, s, "[daemon] %s", name);
  if (len > MiB || strlen(*out) != len || !strstr(*out, "-----BEGIN ") || !strstr(*out, want)) {
    free(*out);
    *out = NULL;
    return cuzk_err_set(err, CUZK_FORMAT, "[daemon] %s: %s: expected a PEM file (at most 1 MiB) with a \"%s\" block",
                        name, path, want);
  }
  return CUZK_OK;
}

cuzk_status daemon_config_read_tls(const daemon_config *c, daemon_tls *t, cuzk_err *err) {
  memset(t, 0, sizeof *t);
  cuzk_status s = read_pem("tls_cert", c->tls_cert, "CERTIFICATE-----", &t->cert, err);
  if (s == CUZK_OK)
    s = read_pem("tls_key", c->tls_key, "PRIVATE KEY-----", &t->key, err);
  if (s == CUZK_OK)
    s = read_pem("tls_client_ca", c->tls_client_ca, "CERTIFICATE-----", &t->client_ca, err);
  if (s != CUZK_OK)
    daemon_tls_free(t);
  return s;
}

void daemon_tls_free(daemon_tls *t) {
  free(t->cert);
  /* the private key's bytes do not outlive their use */
  if (t->key)
    explicit_bzero(t->key, strlen(t->key));
  free(t->key);
  free(t->client_ca);
  memset(t, 0, sizeof *t);
}

cuzk_status daemon_config_check_circuits(const daemon_config *c, cuzk_err *err) {
  for (size_t i = 0; i < c->ncircuits; i++) {
    zkey_file z;
    cuzk_status s;
    if (c->circuits[i].pce) { /* bellperson: the .params readable, the PCE's header */
      int fd;
      struct stat sb;
      pce_file hdr;
      if ((s = fileio_open_read(&fd, &sb, c->circuits[i].path, err)) == CUZK_OK) {
        close(fd);
        s = pce_read_header(&hdr, c->circuits[i].pce, err);
      }
    } else {
      s = zkey_read_header(&z, c->circuits[i].path, err);
    }
    if (s != CUZK_OK)
      return cuzk_err_prefix(err, s, "circuit %s", c->circuits[i].id);
  }
  return CUZK_OK;
}

/* ---- printing -------------------------------------------------------------- */

/* A TOML basic string. */
static void print_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == 0x7f)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static void print_key(const daemon_config *c, size_t k, FILE *f) {
  const key_def *d = &keys[k];
  const void *field = (const char *)c + d->off;
  char buf[64], note[128] = "";
  fprintf(f, "%s = ", d->name);
  switch (d->kind) {
  case K_ADDR:
  case K_ADDR_OFF:
  case K_PATH:
  case K_STRING:
    print_string(f, *(char *const *)field);
    break;
  case K_MODE:
    snprintf(buf, sizeof buf, "%04o", *(const unsigned *)field);
    print_string(f, buf);
    break;
  case K_BOOL:
    fprintf(f, "%s", *(const bool *)field ? "true" : "false");
    break;
  case K_UINT:
    fprintf(f, "%u", *(const unsigned *)field);
    break;
  case K_COUNT:
    fprintf(f, "%zu", *(const size_t *)field);
    break;
  case K_SIZE:
  case K_SIZE_AUTO: {
    uint64_t v = *(const uint64_t *)field;
    if (d->kind == K_SIZE_AUTO && v == 0) {
      fprintf(f, "\"auto\"");
      if (d->off == offsetof(daemon_config, host_budget)) {
        char a[32], b[32], t[32];
        human_size(c->engine.host_budget_bytes, a, sizeof a);
        human_size(c->mem_total, t, sizeof t);
        human_size(c->safety_margin, b, sizeof b);
        snprintf(note, sizeof note, " [= %s: MemTotal %s less %s]", a, t, b);
      }
    } else {
      config_format_size(v, buf, sizeof buf);
      print_string(f, buf);
    }
    break;
  }
  case K_DURATION:
    config_format_duration_ms(*(const uint64_t *)field, buf, sizeof buf);
    print_string(f, buf);
    break;
  case K_DEVICE:
    print_string(f, device_names[*(const engine_device_mode *)field]);
    break;
  case K_LEVEL:
    print_string(f, level_names[*(const daemon_log_level *)field]);
    break;
  case K_GPUS:
    fputc('[', f);
    for (size_t i = 0; i < c->ngpus; i++)
      fprintf(f, "%s%d", i ? ", " : "", c->gpus[i]);
    fputc(']', f);
    break;
  }
  char from[64] = "";
  if (c->set_by[k])
    snprintf(from, sizeof from, " (from %s)", c->set_by[k]);
  fprintf(f, "  # %s%s%s\n", d->help, note, c->line[k] ? "" : c->set_by[k] ? from : " (default)");
}

void daemon_config_print(const daemon_config *c, FILE *f) {
  fprintf(f, "# cuzk-daemon: the effective config, every key (\"(default)\": set neither by the file nor\n"
             "# on the command line; \"(from --option)\": set on the command line)\n");
  if (c->source)
    fprintf(f, "# read from %s\n", c->source);
  else
    fprintf(f, "# no config file: defaults\n");
  for (size_t s = 0; s + 1 < NSECTIONS; s++) {
    fprintf(f, "\n[%s]\n", sections[s]);
    for (size_t k = 0; k < NKEYS; k++)
      if (!strcmp(keys[k].section, sections[s]))
        print_key(c, k, f);
  }
  fprintf(f, "\n# [[circuits]]: the keys served: an id and its snarkjs .zkey, or its bellperson\n"
             "# .params with pce (the circuit's PCE file) and trusted (no point checks)\n");
  if (!c->ncircuits)
    fprintf(f, "# (none: only ids found in param_dir are served)\n");
  for (size_t i = 0; i < c->ncircuits; i++) {
    fprintf(f, "[[circuits]]\nid = ");
    print_string(f, c->circuits[i].id);
    fprintf(f, "\npath = ");
    print_string(f, c->circuits[i].path);
    if (c->circuits[i].pce) {
      fprintf(f, "\npce = ");
      print_string(f, c->circuits[i].pce);
      fprintf(f, "\ntrusted = %s", c->circuits[i].trusted ? "true" : "false");
    }
    fputc('\n', f);
  }
  fflush(f);
}
