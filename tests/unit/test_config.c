/* The daemon's config (src/server/config.c) and listen addresses
 * (src/server/listen.c): defaults, every key's validation with the file,
 * line, key and what was expected in the message, sizes and durations,
 * the printed config read back to the same config, command-line
 * overrides and how they are printed, the keys' headers checked as at
 * start (with cuzk_err_prefix's message), and unix socket housekeeping. */
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "harness.h"
#include "server/config.h"
#include "server/listen.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)
#define MEM_TOTAL (64 * GiB) /* a fixed MemTotal, so "auto" is predictable */

static void init(daemon_config *c) {
  cuzk_err err = {0};
  CHECK_MSG(daemon_config_init(c, &err) == CUZK_OK, "%s", err.msg);
  c->mem_total = MEM_TOTAL;
}

static void parse_ok(daemon_config *c, const char *text) {
  init(c);
  cuzk_err err = {0};
  cuzk_status s = daemon_config_parse(c, text, strlen(text), "/etc/cuzk/t.toml", &err);
  CHECK_MSG(s == CUZK_OK, "parse failed: %s\n  input:\n%s", err.msg, text);
}

/* Expects text to be refused with status st and a message that starts
 * with `where` and contains want. */
static void parse_bad_st(const char *text, cuzk_status st, const char *where, const char *want) {
  daemon_config c;
  init(&c);
  cuzk_err err = {0};
  cuzk_status s = daemon_config_parse(&c, text, strlen(text), "t.toml", &err);
  CHECK_MSG(s == st, "expected %s, got %s (%s)\n  input:\n%s", cuzk_status_name(st), cuzk_status_name(s),
            err.msg, text);
  CHECK_MSG(!strncmp(err.msg, where, strlen(where)), "expected the message to start with \"%s\"\n  got: %s",
            where, err.msg);
  CHECK_MSG(strstr(err.msg, want), "expected \"%s\" in the message\n  got: %s", want, err.msg);
  daemon_config_free(&c);
}
#define parse_bad(text, where, want) parse_bad_st((text), CUZK_INVALID_ARGUMENT, (where), (want))

TEST(config_defaults) {
  daemon_config c;
  init(&c);
  cuzk_err err = {0};
  CHECK(daemon_config_finish(&c, &err) == CUZK_OK);
  engine_config e;
  engine_config_defaults(&e);
  CHECK_EQ_STR(c.listen, "unix:///run/cuzk/cuzk.sock");
  CHECK_EQ_STR(c.status_listen, "");
  CHECK(c.max_message_size == 256 * MiB);
  CHECK_EQ_INT(c.socket_mode, 0600); /* owner only, whatever the umask */
  CHECK_EQ_STR(c.socket_group, "");
  CHECK(c.socket_gid == -1);
  CHECK_EQ_STR(c.tls_cert, "");
  CHECK_EQ_STR(c.tls_key, "");
  CHECK_EQ_STR(c.tls_client_ca, "");
  CHECK_EQ_INT(c.status_max_connections, 256);
  CHECK(c.status_idle_timeout_ms == 10000);
  CHECK(c.host_budget == 0);
  CHECK(c.safety_margin == 5 * GiB);
  CHECK(c.engine.host_budget_bytes == MEM_TOTAL - 5 * GiB);
  CHECK_EQ_INT(c.log_level, DAEMON_LOG_INFO);
  CHECK_EQ_INT(c.engine.gpu_workers_per_device, 2); /* the daemon's own default */
  CHECK_EQ_INT(c.engine.device, e.device);
  CHECK_EQ_INT(c.engine.cpu_workers, e.cpu_workers);
  CHECK_EQ_INT(c.engine.threads, e.threads);
  CHECK(c.engine.queue_budget_bytes == e.queue_budget_bytes);
  CHECK(c.engine.device_budget_bytes == e.device_budget_bytes);
  CHECK(c.engine.eviction_min_idle_ms == e.eviction_min_idle_ms);
  CHECK(c.engine.finished_ttl_ms == e.finished_ttl_ms);
  CHECK(c.engine.max_finished == e.max_finished);
  CHECK(c.engine.pin_keys == e.pin_keys && c.engine.keys_on_device == e.keys_on_device);
  CHECK(!c.engine.ntt_pass1_table && !e.ntt_pass1_table);
  CHECK(!c.engine.cancel_on_shutdown);
  CHECK(c.shutdown_grace_ms == 10000);
  CHECK(c.engine.param_dir == NULL && c.engine.ncircuits == 0 && c.engine.ngpus == 0);
  CHECK(c.source == NULL);
  daemon_config_free(&c);
  /* an empty file is the defaults too */
  parse_ok(&c, "# nothing\n");
  CHECK_EQ_STR(c.listen, "unix:///run/cuzk/cuzk.sock");
  CHECK_EQ_STR(c.source, "/etc/cuzk/t.toml");
  daemon_config_free(&c);
}

static const char full_doc[] =
    "[daemon]\n"
    "listen = \"127.0.0.1:9820\"\n"
    "status_listen = \"unix:///tmp/cuzk-status.sock\"\n"
    "max_message_size = \"64MiB\"\n"
    "socket_mode = \"0660\"\n"
    "socket_group = \"0\"\n"
    "tls_cert = \"tls/server.pem\"\n"
    "tls_key = \"/secret/server.key\"\n"
    "tls_client_ca = \"tls/ca.pem\"\n"
    "status_max_connections = 32\n"
    "status_idle_timeout = \"3s\"\n"
    "[memory]\n"
    "host_budget = \"32GiB\"\n"
    "safety_margin = \"2GiB\"\n"
    "queue_budget = \"4GiB\"\n"
    "eviction_min_idle = \"1h30m\"\n"
    "pin_keys = true\n"
    "[gpus]\n"
    "device = \"cpu\"\n"
    "devices = [1, 0]\n"
    "gpu_workers_per_device = 3\n"
    "device_budget = \"40GiB\"\n"
    "keys_on_device = true\n"
    "ntt_pass1_table = true\n"
    "[cpu]\n"
    "workers = 2\n"
    "threads = 8\n"
    "[srs]\n"
    "param_dir = \"params\"\n"
    "[[circuits]]\n"
    "id = \"mul\"\n"
    "path = \"keys/mul.zkey\"\n"
    "[[circuits]]\n"
    "id = \"chain-64k\"\n"
    "path = \"/data/chain.zkey\"\n"
    "[jobs]\n"
    "finished_ttl = \"30s\"\n"
    "max_finished = 77\n"
    "[shutdown]\n"
    "cancel_running = true\n"
    "grace = \"1m30s\"\n"
    "[logging]\n"
    "level = \"debug\"\n";

static void check_full(const daemon_config *c) {
  CHECK_EQ_STR(c->listen, "127.0.0.1:9820");
  CHECK_EQ_STR(c->status_listen, "unix:///tmp/cuzk-status.sock");
  CHECK(c->max_message_size == 64 * MiB);
  CHECK_EQ_INT(c->socket_mode, 0660);
  CHECK_EQ_STR(c->socket_group, "0");
  CHECK(c->socket_gid == 0);
  CHECK_EQ_STR(c->tls_cert, "/etc/cuzk/tls/server.pem");
  CHECK_EQ_STR(c->tls_key, "/secret/server.key");
  CHECK_EQ_STR(c->tls_client_ca, "/etc/cuzk/tls/ca.pem");
  CHECK_EQ_INT(c->status_max_connections, 32);
  CHECK(c->status_idle_timeout_ms == 3000);
  CHECK(c->host_budget == 32 * GiB && c->engine.host_budget_bytes == 32 * GiB);
  CHECK(c->safety_margin == 2 * GiB);
  CHECK(c->engine.queue_budget_bytes == 4 * GiB);
  CHECK(c->engine.eviction_min_idle_ms == 90 * 60 * 1000);
  CHECK(c->engine.pin_keys && c->engine.keys_on_device && c->engine.ntt_pass1_table);
  CHECK_EQ_INT(c->engine.device, ENGINE_DEVICE_CPU);
  CHECK_EQ_INT(c->engine.ngpus, 2);
  CHECK(c->engine.gpus[0] == 1 && c->engine.gpus[1] == 0);
  CHECK_EQ_INT(c->engine.gpu_workers_per_device, 3);
  CHECK(c->engine.device_budget_bytes == 40 * GiB);
  CHECK_EQ_INT(c->engine.cpu_workers, 2);
  CHECK_EQ_INT(c->engine.threads, 8);
  CHECK_EQ_INT(c->engine.ncircuits, 2);
  CHECK_EQ_STR(c->engine.circuits[0].id, "mul");
  CHECK_EQ_STR(c->engine.circuits[1].id, "chain-64k");
  CHECK_EQ_STR(c->engine.circuits[1].path, "/data/chain.zkey");
  CHECK(c->engine.finished_ttl_ms == 30000);
  CHECK_EQ_INT(c->engine.max_finished, 77);
  CHECK(c->engine.cancel_on_shutdown);
  CHECK(c->shutdown_grace_ms == 90000);
  CHECK_EQ_INT(c->log_level, DAEMON_LOG_DEBUG);
}

TEST(config_every_key) {
  daemon_config c;
  parse_ok(&c, full_doc);
  check_full(&c);
  /* relative paths are taken against the file's directory */
  CHECK_EQ_STR(c.engine.param_dir, "/etc/cuzk/params");
  CHECK_EQ_STR(c.engine.circuits[0].path, "/etc/cuzk/keys/mul.zkey");
  daemon_config_free(&c);
  /* against an existing directory, made absolute */
  init(&c);
  cuzk_err err = {0};
  const char *doc = "[srs]\nparam_dir = \"p\"\n";
  CHECK(daemon_config_parse(&c, doc, strlen(doc), "/tmp/../tmp/x.toml", &err) == CUZK_OK);
  CHECK_EQ_STR(c.param_dir, "/tmp/p");
  daemon_config_free(&c);
  /* "" = no lookup by id */
  parse_ok(&c, "[srs]\nparam_dir = \"\"\n");
  CHECK(c.engine.param_dir == NULL);
  daemon_config_free(&c);
}

/* daemon_config_print's text (malloc'd). */
static char *printed(const daemon_config *c) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  CHECK(f);
  daemon_config_print(c, f);
  fclose(f);
  return text;
}

TEST(config_print_reads_back) {
  daemon_config c, d;
  parse_ok(&c, full_doc);
  char *text = printed(&c);
  CHECK(strstr(text, "# read from /etc/cuzk/t.toml"));
  CHECK(strstr(text, "eviction_min_idle = \"1h30m\""));
  CHECK(strstr(text, "host_budget = \"32GiB\""));
  CHECK(strstr(text, "level = \"debug\"  #"));
  CHECK(strstr(text, "devices = [1, 0]"));
  CHECK(strstr(text, "socket_mode = \"0660\"  #"));
  CHECK(strstr(text, "status_idle_timeout = \"3s\"  #"));
  daemon_config_free(&c);
  parse_ok(&d, text);
  check_full(&d);
  CHECK_EQ_STR(d.engine.circuits[0].path, "/etc/cuzk/keys/mul.zkey");
  daemon_config_free(&d);
  free(text);
  /* the defaults, with "auto" resolved in a comment */
  init(&c);
  cuzk_err err = {0};
  CHECK(daemon_config_finish(&c, &err) == CUZK_OK);
  text = printed(&c);
  CHECK(strstr(text, "# no config file: defaults"));
  CHECK(strstr(text, "host_budget = \"auto\"  #"));
  CHECK(strstr(text, "[= 59.0 GiB: MemTotal 64.0 GiB less 5.0 GiB]"));
  CHECK(strstr(text, "gpu_workers_per_device = 2  #"));
  CHECK(strstr(text, "(default)"));
  CHECK(strstr(text, "# (none: only ids found in param_dir are served)"));
  daemon_config_free(&c);
  parse_ok(&d, text);
  CHECK(d.host_budget == 0 && d.engine.host_budget_bytes == MEM_TOTAL - 5 * GiB);
  CHECK_EQ_INT(d.engine.gpu_workers_per_device, 2);
  daemon_config_free(&d);
  free(text);
  /* strings that need escapes */
  parse_ok(&c, "[srs]\nparam_dir = \"/a \\\"q\\\" b\\\\c\\td\"\n");
  text = printed(&c);
  parse_ok(&d, text);
  CHECK_EQ_STR(d.param_dir, "/a \"q\" b\\c\td");
  daemon_config_free(&c);
  daemon_config_free(&d);
  free(text);
}

TEST(config_sizes) {
  static const struct {
    const char *s;
    uint64_t v;
  } good[] = {{"0", 0},
              {"1", 1},
              {"512GiB", 512 * GiB},
              {"5GiB", 5 * GiB},
              {"256MiB", 256 * MiB},
              {"256 MiB", 256 * MiB},
              {"1KiB", 1024},
              {"2TiB", 2048 * GiB},
              {"1.5GiB", 3 * GiB / 2},
              {"0.5MiB", MiB / 2},
              {"1kB", 1000},
              {"3MB", 3000000},
              {"2GB", 2000000000},
              {"1TB", UINT64_C(1000000000000)},
              {"1.25GB", 1250000000},
              {"1000B", 1000},
              {"7gib", 7 * GiB},
              {"16777215TiB", UINT64_C(16777215) << 40}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    uint64_t v = 1;
    cuzk_err err = {0};
    CHECK_MSG(config_parse_size(good[i].s, &v, &err) == 0, "%s: %s", good[i].s, err.msg);
    CHECK_MSG(v == good[i].v, "%s: %llu != %llu", good[i].s, (unsigned long long)v,
              (unsigned long long)good[i].v);
  }
  static const char *const bad[] = {"",    "GiB", "5 G",  "5G",   "5 gigs", "-5GiB", "5GiB ", " 5GiB",
                                    "1.5", "1.B", ".5GiB", "1e9",  "0x10",  "5iB",   "5 5MiB", "1.5B"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t v;
    cuzk_err err = {0};
    CHECK_MSG(config_parse_size(bad[i], &v, &err) == -1, "\"%s\" accepted as %llu", bad[i],
              (unsigned long long)v);
    CHECK(strstr(err.msg, "expected a size like"));
  }
  uint64_t v;
  cuzk_err err = {0};
  CHECK(config_parse_size("16777216TiB", &v, &err) == -1 && strstr(err.msg, "too large")); /* 2^64 */
  CHECK(config_parse_size("18446744073709551615", &v, &err) == 0 && v == UINT64_MAX);
  CHECK(config_parse_size("18446744073709551616", &v, &err) == -1 && strstr(err.msg, "too large"));
  CHECK(config_parse_size("99999999999999999999", &v, &err) == -1 && strstr(err.msg, "too large"));
  /* formatting reads back */
  static const uint64_t vals[] = {0, 1, 1000, 1024, 1536, 5 * GiB, 3 * GiB / 2, 123456789, 2 * GiB - 1,
                                  UINT64_MAX};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    char buf[32];
    config_format_size(vals[i], buf, sizeof buf);
    CHECK_MSG(config_parse_size(buf, &v, &err) == 0 && v == vals[i], "%llu -> %s",
              (unsigned long long)vals[i], buf);
  }
  char buf[32];
  config_format_size(5 * GiB, buf, sizeof buf);
  CHECK_EQ_STR(buf, "5GiB");
  config_format_size(1536, buf, sizeof buf);
  CHECK_EQ_STR(buf, "1536B"); /* 1.5 KiB: not a whole unit */
}

TEST(config_durations) {
  static const struct {
    const char *s;
    uint64_t ms;
  } good[] = {{"0", 0},       {"500ms", 500},       {"30s", 30000},    {"5m", 300000},
              {"1h", 3600000}, {"1h30m", 5400000},   {"2d", 172800000}, {"1m30s250ms", 90250},
              {"0s", 0},      {"90s", 90000}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    uint64_t v = 1;
    cuzk_err err = {0};
    CHECK_MSG(config_parse_duration_ms(good[i].s, &v, &err) == 0, "%s: %s", good[i].s, err.msg);
    CHECK_MSG(v == good[i].ms, "%s: %llu", good[i].s, (unsigned long long)v);
  }
  static const char *const bad[] = {"", "5", "m", "5x", "5 m", "-5m", "5M", "1.5h", "5mm", "h5", "5m ", "10sec"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t v;
    cuzk_err err = {0};
    CHECK_MSG(config_parse_duration_ms(bad[i], &v, &err) == -1, "\"%s\" accepted", bad[i]);
    CHECK(strstr(err.msg, "expected a duration like"));
  }
  uint64_t v;
  cuzk_err err = {0};
  CHECK(config_parse_duration_ms("99999999999999999999d", &v, &err) == -1 && strstr(err.msg, "too long"));
  static const uint64_t vals[] = {0, 1, 999, 1000, 60000, 5400000, 90250, 86400000 + 1};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    char buf[64];
    config_format_duration_ms(vals[i], buf, sizeof buf);
    CHECK_MSG(config_parse_duration_ms(buf, &v, &err) == 0 && v == vals[i], "%llu -> %s",
              (unsigned long long)vals[i], buf);
  }
  char buf[64];
  config_format_duration_ms(5400000, buf, sizeof buf);
  CHECK_EQ_STR(buf, "1h30m");
}

/* One row per key: a value of the wrong type, and values out of range,
 * each refused with the file, line, column and key named. */
TEST(config_each_key_validated) {
  static const struct {
    const char *section, *key, *value, *want;
  } rows[] = {
      {"daemon", "listen", "5", "expected an address \"unix://PATH\" or \"HOST:PORT\", found integer 5"},
      {"daemon", "listen", "\"\"", "expected \"unix:///path/to.sock\" or \"host:port\""},
      {"daemon", "listen", "\"unix://\"", "expected a socket path after unix://"},
      {"daemon", "listen", "\"localhost\"", "expected \"unix:///path/to.sock\" or \"host:port\""},
      {"daemon", "listen", "\"http://x:1\"", "expected \"unix:///path/to.sock\""},
      {"daemon", "listen", "\"host:65536\"", "expected a port from 0 to 65535"},
      {"daemon", "listen", "\"host:\"", "expected a port"},
      {"daemon", "listen", "\":9820\"", "expected a host before ':'"},
      {"daemon", "listen", "\"::1:9820\"", "IPv6 address in brackets"},
      {"daemon", "listen", "\"unix:///" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
       "a unix socket path has at most 107"},
      {"daemon", "status_listen", "false", "found boolean false"},
      {"daemon", "status_listen", "\"9821\"", "expected \"unix:///path/to.sock\" or \"host:port\""},
      {"daemon", "max_message_size", "\"1KiB\"", "at least 64KiB"},
      {"daemon", "max_message_size", "\"2GiB\"", "at most 2147483647B, found 2GiB"},
      {"daemon", "max_message_size", "1.5", "found float 1.5"},
      {"daemon", "max_message_size", "\"lots\"", "expected a size like \"512GiB\""},
      {"daemon", "socket_mode", "660", "expected permission bits as an octal string"},
      {"daemon", "socket_mode", "\"0680\"", "found string \"0680\""},
      {"daemon", "socket_mode", "\"10660\"", "found string \"10660\""},
      {"daemon", "socket_mode", "\"1660\"", "found string \"1660\""},
      {"daemon", "socket_mode", "\"66\"", "found string \"66\""},
      {"daemon", "socket_mode", "\"0400\"", "the mode needs 0600 at least"},
      {"daemon", "socket_mode", "\"0066\"", "takes read and write from the daemon's own user"},
      {"daemon", "socket_group", "7", "expected a string, found integer 7"},
      {"daemon", "tls_cert", "true", "expected a path"},
      {"daemon", "tls_client_ca", "[]", "expected a path"},
      {"daemon", "status_max_connections", "3", "expected an integer from 4 to 4096, found 3"},
      {"daemon", "status_max_connections", "4097", "found 4097"},
      {"daemon", "status_idle_timeout", "\"500ms\"", "found \"500ms\""},
      {"daemon", "status_idle_timeout", "\"2h\"", "at most 1h"},
      {"memory", "host_budget", "\"1MiB\"", "at least 64MiB"},
      {"memory", "host_budget", "-5", "found -5"},
      {"memory", "host_budget", "\"autom\"", "expected \"auto\" or a size like"},
      {"memory", "host_budget", "true", "expected \"auto\" or a size"},
      {"memory", "safety_margin", "\"auto\"", "expected a size like"},
      {"memory", "safety_margin", "[1]", "found an array"},
      {"memory", "queue_budget", "\"1KiB\"", "at least 1MiB"},
      {"memory", "eviction_min_idle", "300", "expected a duration like \"30s\", \"5m\" or \"1h30m\" (at most 30d), found integer 300"},
      {"memory", "eviction_min_idle", "\"5 minutes\"", "expected a duration like"},
      {"memory", "eviction_min_idle", "\"31d\"", "at most 30d"},
      {"memory", "pin_keys", "\"yes\"", "expected true or false, found string \"yes\""},
      {"memory", "pin_keys", "1", "expected true or false, found integer 1"},
      {"gpus", "device", "\"cuda\"", "expected \"auto\", \"cpu\" or \"gpu\", found string \"cuda\""},
      {"gpus", "device", "0", "expected \"auto\", \"cpu\" or \"gpu\""},
      {"gpus", "devices", "0", "expected an array of GPU ordinals like [0, 1]"},
      {"gpus", "devices", "[0, -1]", "expected a GPU ordinal from 0 to 1023, found integer -1"},
      {"gpus", "devices", "[\"0\"]", "found string \"0\""},
      {"gpus", "devices", "[1024]", "from 0 to 1023"},
      {"gpus", "devices", "[2, 3, 2]", "GPU 2 is listed twice"},
      {"gpus", "gpu_workers_per_device", "0", "expected an integer from 1 to 16, found 0"},
      {"gpus", "gpu_workers_per_device", "17", "expected an integer from 1 to 16, found 17"},
      {"gpus", "gpu_workers_per_device", "\"2\"", "found string \"2\""},
      {"gpus", "device_budget", "\"1MiB\"", "at least 256MiB"},
      {"gpus", "keys_on_device", "\"true\"", "expected true or false"},
      {"gpus", "ntt_pass1_table", "1", "expected true or false, found integer 1"},
      {"cpu", "workers", "0", "expected an integer from 1 to 256, found 0"},
      {"cpu", "workers", "257", "found 257"},
      {"cpu", "workers", "2.0", "found float 2"},
      {"cpu", "threads", "-1", "expected an integer from 0 to 4096, found -1"},
      {"cpu", "threads", "4097", "found 4097"},
      {"srs", "param_dir", "7", "expected a path (a string; \"\" for none), found integer 7"},
      {"jobs", "finished_ttl", "\"1y\"", "expected a duration like"},
      {"jobs", "finished_ttl", "\"366d\"", "at most 365d"},
      {"jobs", "max_finished", "0", "expected an integer from 1 to 10000000, found 0"},
      {"jobs", "max_finished", "10000001", "found 10000001"},
      {"shutdown", "cancel_running", "\"false\"", "expected true or false"},
      {"shutdown", "grace", "\"61m\"", "at most 1h"},
      {"shutdown", "grace", "10", "expected a duration like"},
      {"logging", "level", "\"verbose\"", "expected \"error\", \"warn\", \"info\" or \"debug\", found string \"verbose\""},
      {"logging", "level", "\"INFO\"", "found string \"INFO\""},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char doc[512], where[128];
    snprintf(doc, sizeof doc, "# row %zu\n[%s]\n  %s = %s\n", i, rows[i].section, rows[i].key, rows[i].value);
    /* the value's column; for devices = [...], the bad item's (the last) */
    size_t col = 6 + strlen(rows[i].key);
    if (!strcmp(rows[i].key, "devices") && strchr(rows[i].value, ','))
      col += (size_t)(strrchr(rows[i].value, ',') - rows[i].value) + 2;
    else if (!strcmp(rows[i].key, "devices") && rows[i].value[0] == '[')
      col += 1;
    snprintf(where, sizeof where, "t.toml:3:%zu: [%s] %s: ", col, rows[i].section, rows[i].key);
    parse_bad(doc, where, rows[i].want);
  }
}

TEST(config_good_values) {
  daemon_config c;
  parse_ok(&c, "[daemon]\nlisten = \"unix://cuzk.sock\"\nstatus_listen = \"[::1]:0\"\n"
               "max_message_size = 65536\n[memory]\nhost_budget = 1073741824\n"
               "eviction_min_idle = \"0\"\n[gpus]\ndevices = []\ndevice = \"gpu\"\n"
               "device_budget = \"auto\"\n[cpu]\nthreads = 0\n[jobs]\nfinished_ttl = \"0\"\n");
  CHECK_EQ_STR(c.listen, "unix://cuzk.sock"); /* relative to the daemon's cwd, kept as given */
  CHECK_EQ_STR(c.status_listen, "[::1]:0");
  CHECK(c.max_message_size == 65536);
  CHECK(c.engine.host_budget_bytes == GiB);
  CHECK(c.engine.eviction_min_idle_ms == 0 && c.engine.finished_ttl_ms == 0);
  CHECK(c.engine.ngpus == 0 && c.engine.device == ENGINE_DEVICE_GPU);
  CHECK(c.engine.device_budget_bytes == 0);
  daemon_config_free(&c);
  /* dotted keys and quoted keys are the same keys */
  parse_ok(&c, "daemon.listen = \"0.0.0.0:1\"\n[cpu]\n\"workers\" = 3\n");
  CHECK_EQ_STR(c.listen, "0.0.0.0:1");
  CHECK_EQ_INT(c.engine.cpu_workers, 3);
  daemon_config_free(&c);
}

TEST(config_unknown_names) {
  parse_bad("[memory]\nhost_budgte = \"1GiB\"\n", "t.toml:2:1: [memory] unknown key 'host_budgte'",
            "(did you mean 'host_budget'?)");
  parse_bad("[cpu]\nfoo = 1\n", "t.toml:2:1: [cpu] unknown key 'foo'", "(known: workers, threads)");
  parse_bad("[daemons]\n", "t.toml:1:2: unknown section [daemons]", "(did you mean 'daemon'?)");
  parse_bad("[scheduler]\nmax_batch_size = 1\n", "t.toml:1:2: unknown section [scheduler]",
            "(known: daemon, memory, gpus, cpu, srs, jobs, shutdown, logging, circuits)");
  parse_bad("listen = \"x:1\"\n", "t.toml:1:1: 'listen' outside a section", "such as [daemon]");
  parse_bad("threads = 1\n", "t.toml:1:1: 'threads'", "such as [cpu]");
  parse_bad("[memory.sub]\nx = 1\n", "t.toml:1:9: [memory] unknown key 'sub'", "known:");
  parse_bad("[[daemon]]\n", "t.toml:1:3: daemon: expected a [daemon] section", "found an array of tables");
  parse_bad_st("[gpus]\ndevices = [0]\n[gpus.devices]\n", CUZK_FORMAT, "t.toml:3:7: ", "already an array");
}

TEST(config_circuits) {
  daemon_config c;
  parse_ok(&c, "[[circuits]]\nid = \"a.b_c-1\"\npath = \"x.zkey\"\n");
  CHECK_EQ_STR(c.engine.circuits[0].id, "a.b_c-1");
  CHECK_EQ_STR(c.engine.circuits[0].path, "/etc/cuzk/x.zkey");
  daemon_config_free(&c);
  parse_bad("[circuits]\nid = \"a\"\n", "t.toml:1:2: circuits: expected [[circuits]] sections",
            "found a table");
  parse_bad("circuits = []\n", "t.toml:1:1: circuits: expected [[circuits]]", "found an array");
  parse_bad("[[circuits]]\nid = \"a\"\n", "t.toml:1: [[circuits]] needs both id", "path is missing");
  parse_bad("[[circuits]]\npath = \"a\"\n", "t.toml:1: [[circuits]] needs both id", "id is missing");
  parse_bad("[[circuits]]\nid = \"a\"\npath = \"p\"\nzkey = \"q\"\n", "t.toml:4:1: [[circuits]] unknown key 'zkey'",
            "(known: id, path, pce, trusted)");
  /* a bellperson key: .params with its PCE, optionally trusted */
  parse_ok(&c, "[[circuits]]\nid = \"porep\"\npath = \"k.params\"\npce = \"c.pce\"\ntrusted = true\n"
               "[srs]\nwitness_dir = \"/dev/shm/w\"\n");
  CHECK_EQ_STR(c.engine.circuits[0].pce, "/etc/cuzk/c.pce");
  CHECK(c.engine.circuits[0].trusted);
  CHECK_EQ_STR(c.engine.witness_dir, "/dev/shm/w");
  daemon_config_free(&c);
  parse_bad("[[circuits]]\nid = \"a\"\npath = \"p\"\ntrusted = true\n", "t.toml:4:11: [[circuits]] trusted:",
            "for a bellperson key (with pce)");
  parse_bad("[[circuits]]\nid = \"a\"\npath = \"p\"\npce = 3\n", "t.toml:4:7: [[circuits]] pce:",
            "expected the path of the circuit's PCE file");
  parse_bad("[[circuits]]\nid = \"a/b\"\npath = \"p\"\n", "t.toml:2:6: [[circuits]] id:", "expected a circuit id");
  parse_bad("[[circuits]]\nid = \"\"\npath = \"p\"\n", "t.toml:2:6:", "expected a circuit id");
  parse_bad("[[circuits]]\nid = \".x\"\npath = \"p\"\n", "t.toml:2:6:", "expected a circuit id");
  parse_bad("[[circuits]]\nid = 5\npath = \"p\"\n", "t.toml:2:6:", "found integer 5");
  parse_bad("[[circuits]]\nid = \"a\"\npath = \"\"\n", "t.toml:3:8: [[circuits]] path:",
            "expected the path of a .zkey file");
  parse_bad("[[circuits]]\nid = \"a\"\npath = \"p\"\n[[circuits]]\nid = \"a\"\npath = \"q\"\n",
            "t.toml:5:6: [[circuits]] id:", "\"a\" is listed twice (also [[circuits]] number 1)");
  char doc[512] = "[[circuits]]\npath = \"p\"\nid = \"";
  size_t n = strlen(doc);
  memset(doc + n, 'i', ENGINE_ID_MAX);
  strcpy(doc + n + ENGINE_ID_MAX, "\"\n");
  parse_bad(doc, "t.toml:3:6:", "expected a circuit id of 1 to 127");
}

TEST(config_access_cross_checks) {
  parse_bad("[daemon]\nsocket_group = \"0\"\n", "[daemon] socket_group = \"0\" shares the sockets",
            "set socket_mode = \"0660\"");
  parse_bad("[daemon]\nsocket_mode = \"0640\"\nsocket_group = \"0\"\n", "t.toml:2: [daemon] socket_group",
            "socket_mode \"0640\" gives the group no read and write");
  parse_bad("[daemon]\nsocket_mode = \"0660\"\nsocket_group = \"no-such-group-cuzk\"\n",
            "t.toml:3: [daemon] socket_group: no group named \"no-such-group-cuzk\"", "a group name or a numeric gid");
  parse_bad("[daemon]\nlisten = \"127.0.0.1:1\"\ntls_cert = \"c.pem\"\n", "t.toml:3: [daemon] tls_cert is set without tls_key",
            "TLS needs both");
  parse_bad("[daemon]\nlisten = \"127.0.0.1:1\"\ntls_key = \"k.pem\"\n", "t.toml:3: [daemon] tls_key is set without tls_cert",
            "");
  parse_bad("[daemon]\nlisten = \"127.0.0.1:1\"\ntls_client_ca = \"ca.pem\"\n",
            "t.toml:3: [daemon] tls_client_ca needs tls_cert and tls_key", "");
  parse_bad("[daemon]\ntls_cert = \"c.pem\"\ntls_key = \"k.pem\"\n", "t.toml:2: [daemon] tls_cert: TLS is for a TCP",
            "listen is \"unix:///run/cuzk/cuzk.sock\"");
  /* the user's own group by name and by gid */
  struct group *g = getgrgid(getgid());
  daemon_config c;
  if (g) {
    char doc[512];
    snprintf(doc, sizeof doc, "[daemon]\nsocket_mode = \"0660\"\nsocket_group = \"%s\"\n", g->gr_name);
    parse_ok(&c, doc);
    CHECK(c.socket_gid == (long)getgid());
    daemon_config_free(&c);
  }
  parse_ok(&c, "[daemon]\nsocket_mode = \"770\"\nsocket_group = \"4242\"\n");
  CHECK(c.socket_gid == 4242 && c.socket_mode == 0770);
  daemon_config_free(&c);
}

/* Writes text to dir/name; returns the path in buf. */
static const char *write_file(char *buf, size_t cap, const char *dir, const char *name, const char *text) {
  snprintf(buf, cap, "%s/%s", dir, name);
  FILE *f = fopen(buf, "w");
  CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
  return buf;
}

TEST(config_read_tls) {
  char dir[] = "/tmp/cuzk_test_tls_XXXXXX";
  CHECK(mkdtemp(dir));
  char cert[128], key[128], junk[128], cmd[160];
  write_file(cert, sizeof cert, dir, "c.pem", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  write_file(key, sizeof key, dir, "k.pem", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
  write_file(junk, sizeof junk, dir, "j.pem", "not a pem\n");
  daemon_config c;
  init(&c);
  cuzk_err err = {0};
  daemon_tls t;
  CHECK(daemon_config_read_tls(&c, &t, &err) == CUZK_OK); /* no TLS: nothing read */
  CHECK(!t.cert && !t.key && !t.client_ca);
  free(c.tls_cert), free(c.tls_key), free(c.tls_client_ca);
  c.tls_cert = strdup(cert), c.tls_key = strdup(key), c.tls_client_ca = strdup(cert);
  CHECK_MSG(daemon_config_read_tls(&c, &t, &err) == CUZK_OK, "%s", err.msg);
  CHECK(t.cert && strstr(t.cert, "BEGIN CERTIFICATE") && t.key && strstr(t.key, "PRIVATE KEY") && t.client_ca);
  daemon_tls_free(&t);
  CHECK(!t.cert && !t.key);
  /* a key file that holds a certificate, a file that is no PEM, one missing */
  free(c.tls_key);
  c.tls_key = strdup(cert);
  CHECK_EQ_INT(daemon_config_read_tls(&c, &t, &err), CUZK_FORMAT);
  CHECK(strstr(err.msg, "[daemon] tls_key: ") && strstr(err.msg, "\"PRIVATE KEY-----\" block"));
  CHECK(!t.cert && !t.key);
  free(c.tls_client_ca);
  c.tls_client_ca = strdup(junk);
  free(c.tls_key);
  c.tls_key = strdup(key);
  CHECK_EQ_INT(daemon_config_read_tls(&c, &t, &err), CUZK_FORMAT);
  CHECK(strstr(err.msg, "[daemon] tls_client_ca: ") && strstr(err.msg, "j.pem"));
  free(c.tls_cert);
  c.tls_cert = strdup("/nonexistent/cuzk.pem");
  CHECK_EQ_INT(daemon_config_read_tls(&c, &t, &err), CUZK_NOT_FOUND);
  CHECK(strstr(err.msg, "[daemon] tls_cert: /nonexistent/cuzk.pem"));
  daemon_config_free(&c);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

TEST(config_cross_checks) {
  parse_bad("[daemon]\nlisten = \"127.0.0.1:1\"\nstatus_listen = \"127.0.0.1:1\"\n",
            "t.toml:3: [daemon] status_listen must differ from listen", "");
  parse_bad("[memory]\nhost_budget = \"4GiB\"\nqueue_budget = \"4GiB\"\n",
            "t.toml:3: [memory] queue_budget (4GiB) must be below host_budget (4.0 GiB)", "");
  parse_bad("[memory]\nsafety_margin = \"64GiB\"\n", "t.toml:2: [memory] host_budget = \"auto\"",
            "leaves less than 1 GiB");
  /* the queue budget pays for gRPC's receive buffers: max_message_size + 8 MiB */
  parse_bad("[daemon]\nmax_message_size = \"64MiB\"\n[memory]\nhost_budget = \"1GiB\"\nqueue_budget = \"64MiB\"\n",
            "t.toml:5: [memory] queue_budget (64MiB) must hold gRPC's receive buffers", "(72.0 MiB)");
  daemon_config c;
  /* "auto" grows from host / 4 to hold them when the host budget allows */
  parse_ok(&c, "[memory]\nhost_budget = \"512MiB\"\n");
  cuzk_err ferr = {0};
  CHECK_MSG(daemon_config_finish(&c, &ferr) == CUZK_OK, "%s", ferr.msg);
  CHECK(c.engine.queue_budget_bytes >= 256 * MiB + 8 * MiB && c.engine.queue_budget_bytes < 512 * MiB);
  daemon_config_free(&c);
  init(&c);
  c.mem_total = 0;
  cuzk_err err = {0};
  CHECK(daemon_config_finish(&c, &err) == CUZK_INVALID_ARGUMENT);
  CHECK(strstr(err.msg, "needs MemTotal from /proc/meminfo"));
  daemon_config_free(&c);
  /* the real MemTotal is read */
  CHECK(daemon_config_init(&c, &err) == CUZK_OK);
  CHECK(c.mem_total > 0);
  daemon_config_free(&c);
}

TEST(config_syntax_errors_and_files) {
  parse_bad_st("[daemon]\nlisten = unix\n", CUZK_FORMAT, "t.toml:2:10: ", "strings need quotes");
  daemon_config c;
  init(&c);
  cuzk_err err = {0};
  CHECK_EQ_INT(daemon_config_load(&c, "/nonexistent/cuzk.toml", &err), CUZK_NOT_FOUND);
  CHECK_MSG(strstr(err.msg, "config file") && strstr(err.msg, "/nonexistent/cuzk.toml"), "%s", err.msg);
  char path[] = "/tmp/cuzk_test_config_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  const char *doc = "[cpu]\nworkers = 3\n[[circuits]]\nid = \"m\"\npath = \"rel/m.zkey\"\n";
  CHECK(write(fd, doc, strlen(doc)) == (ssize_t)strlen(doc));
  close(fd);
  CHECK_MSG(daemon_config_load(&c, path, &err) == CUZK_OK, "%s", err.msg);
  CHECK_EQ_INT(c.engine.cpu_workers, 3);
  CHECK_EQ_STR(c.engine.circuits[0].path, "/tmp/rel/m.zkey");
  CHECK_EQ_STR(c.source, path);
  daemon_config_free(&c);
  init(&c);
  fd = open(path, O_WRONLY | O_TRUNC);
  CHECK(write(fd, "[cpu]\nworkers = 0\n", 18) == 18);
  close(fd);
  CHECK_EQ_INT(daemon_config_load(&c, path, &err), CUZK_INVALID_ARGUMENT);
  char want[128];
  snprintf(want, sizeof want, "%s:2:11: [cpu] workers: expected an integer from 1 to 256", path);
  CHECK_MSG(!strncmp(err.msg, want, strlen(want)), "%s", err.msg);
  daemon_config_free(&c);
  unlink(path);
}

/* Whether text has a line that starts with start and ends with end
 * (which includes the newline). */
static bool line_ends(const char *text, const char *start, const char *end) {
  for (const char *l = text; (l = strstr(l, start)); l++) {
    const char *nl = strchr(l, '\n');
    size_t n = strlen(end);
    if ((l == text || l[-1] == '\n') && nl && (size_t)(nl + 1 - l) >= n && !strncmp(nl + 1 - n, end, n))
      return true;
  }
  return false;
}

TEST(config_command_line) {
  daemon_config c;
  parse_ok(&c, "[daemon]\nlisten = \"127.0.0.1:1\"\n[logging]\nlevel = \"warn\"\n");
  cuzk_err err = {0};
  CHECK(daemon_config_set(&c, "daemon", "listen", "unix:///tmp/x.sock", "--listen", &err) == CUZK_OK);
  CHECK_EQ_STR(c.listen, "unix:///tmp/x.sock");
  CHECK(daemon_config_set(&c, "daemon", "status_listen", "", "--status-listen", &err) == CUZK_OK);
  CHECK(daemon_config_set(&c, "logging", "level", "debug", "--log-level", &err) == CUZK_OK);
  CHECK_EQ_INT(c.log_level, DAEMON_LOG_DEBUG);
  CHECK(daemon_config_set(&c, "daemon", "listen", "nowhere", "--listen", &err) == CUZK_INVALID_ARGUMENT);
  CHECK_MSG(!strncmp(err.msg, "--listen: expected \"unix:///path/to.sock\" or \"host:port\"", 50), "%s", err.msg);
  CHECK(daemon_config_set(&c, "logging", "level", "loud", "--log-level", &err) == CUZK_INVALID_ARGUMENT);
  CHECK_MSG(!strncmp(err.msg, "--log-level: expected \"error\"", 29), "%s", err.msg);
  CHECK_EQ_STR(c.listen, "unix:///tmp/x.sock"); /* a refused value changes nothing */
  CHECK(daemon_config_finish(&c, &err) == CUZK_OK);
  /* printed as set on the command line, not as defaults */
  char *text = printed(&c);
  const char *lines[] = {"listen = \"unix:///tmp/x.sock\"", "status_listen = \"\"", "level = \"debug\""};
  const char *from[] = {"(from --listen)\n", "(from --status-listen)\n", "(from --log-level)\n"};
  for (int i = 0; i < 3; i++)
    CHECK_MSG(line_ends(text, lines[i], from[i]), "expected a line \"%s ... %s\" in:\n%s", lines[i], from[i], text);
  free(text);
  /* a cross-check names the option that set the key */
  CHECK(daemon_config_set(&c, "daemon", "status_listen", "unix:///tmp/x.sock", "--status-listen", &err) == CUZK_OK);
  CHECK(daemon_config_finish(&c, &err) == CUZK_INVALID_ARGUMENT);
  CHECK_MSG(!strncmp(err.msg, "--status-listen: [daemon] status_listen must differ", 51), "%s", err.msg);
  daemon_config_free(&c);
}

TEST(config_check_circuits) {
  /* the key's header is read, as the daemon's start does, and a failure
   * names the circuit once, with one ": " */
  char doc[1024];
  snprintf(doc, sizeof doc, "[[circuits]]\nid = \"mul\"\npath = \"%s/examples/mul/circuit.zkey\"\n", test_srcdir());
  daemon_config c;
  parse_ok(&c, doc);
  cuzk_err err = {0};
  CHECK_MSG(daemon_config_check_circuits(&c, &err) == CUZK_OK, "%s", err.msg);
  daemon_config_free(&c);
  parse_ok(&c, "[[circuits]]\nid = \"mul\"\npath = \"/nonexistent/mul.zkey\"\n"
               "[[circuits]]\nid = \"gone\"\npath = \"/nonexistent/gone.zkey\"\n");
  CHECK_EQ_INT(daemon_config_check_circuits(&c, &err), CUZK_IO);
  CHECK_MSG(!strcmp(err.msg, "circuit mul: /nonexistent/mul.zkey: cannot open: No such file or directory"), "%s",
            err.msg);
  CHECK_EQ_INT(daemon_config_check_circuits(&c, NULL), CUZK_IO); /* the status without a message */
  daemon_config_free(&c);
  snprintf(doc, sizeof doc, "[[circuits]]\nid = \"w\"\npath = \"%s/examples/mul/witness.wtns\"\n", test_srcdir());
  parse_ok(&c, doc);
  CHECK(daemon_config_check_circuits(&c, &err) != CUZK_OK);
  CHECK_MSG(!strncmp(err.msg, "circuit w: ", 11) && strstr(err.msg, "witness.wtns") && !strstr(err.msg, ": : "), "%s",
            err.msg);
  daemon_config_free(&c);
}

TEST(err_prefix) {
  cuzk_err err = {0};
  cuzk_err_set(&err, CUZK_FORMAT, "x.zkey: section 2: bad");
  CHECK_EQ_INT(cuzk_err_prefix(&err, CUZK_FORMAT, "circuit %s", "bn"), CUZK_FORMAT);
  CHECK_EQ_STR(err.msg, "circuit bn: x.zkey: section 2: bad");
  CHECK_EQ_INT(err.status, CUZK_FORMAT);
  CHECK_EQ_INT(cuzk_err_prefix(NULL, CUZK_UNSUPPORTED, "circuit %s", "bn"), CUZK_UNSUPPORTED);
  /* a long message is cut, never overrun */
  char longer[CUZK_ERR_MSG_MAX + 10];
  memset(longer, 'm', sizeof longer - 1);
  longer[sizeof longer - 1] = 0;
  cuzk_err_set(&err, CUZK_IO, "%s", longer);
  memset(longer, 'p', CUZK_ERR_MSG_MAX / 2 + 5);
  longer[CUZK_ERR_MSG_MAX / 2 + 5] = 0;
  CHECK_EQ_INT(cuzk_err_prefix(&err, CUZK_IO, "%s", longer), CUZK_IO);
  CHECK(strlen(err.msg) < CUZK_ERR_MSG_MAX && strstr(err.msg, "p: m"));
}

TEST(listen_addresses) {
  listen_addr a;
  cuzk_err err = {0};
  CHECK(listen_addr_parse(&a, "unix:///run/cuzk/cuzk.sock", &err) == CUZK_OK);
  CHECK(a.is_unix);
  CHECK_EQ_STR(a.path, "/run/cuzk/cuzk.sock");
  CHECK(listen_addr_parse(&a, "unix://rel.sock", &err) == CUZK_OK && !strcmp(a.path, "rel.sock"));
  CHECK(listen_addr_parse(&a, "127.0.0.1:9820", &err) == CUZK_OK);
  CHECK(!a.is_unix && !strcmp(a.host, "127.0.0.1") && a.port == 9820);
  CHECK(listen_addr_parse(&a, "[::1]:0", &err) == CUZK_OK && !strcmp(a.host, "::1") && a.port == 0);
  CHECK(listen_addr_parse(&a, "localhost:65535", &err) == CUZK_OK && a.port == 65535);
  CHECK(listen_addr_parse(&a, "0.0.0.0:1", &err) == CUZK_OK);
  static const char *const bad[] = {"", "unix://", "unix://dir/", "x", ":1", "x:", "x:-1", "x:1a", "x:123456",
                                    "[]:1", "[zz]:1", "a b:1", "tcp://x:1", "::1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    CHECK_MSG(listen_addr_parse(&a, bad[i], &err) == CUZK_INVALID_ARGUMENT, "\"%s\" accepted", bad[i]);
}

TEST(listen_loopback_classifier) {
  static const struct {
    const char *addr;
    bool loopback;
  } rows[] = {
      {"unix:///run/cuzk/cuzk.sock", true}, {"127.0.0.1:9820", true}, {"127.1.2.3:1", true},
      {"[::1]:9820", true},                 {"localhost:9820", true}, {"0.0.0.0:9820", false},
      {"[::]:9820", false},                 {"10.0.0.1:9820", false}, {"192.168.1.10:1", false},
      {"[2001:db8::1]:1", false},           {"[::ffff:127.0.0.1]:1", true}, {"[::ffff:10.0.0.1]:1", false},
      {"128.0.0.1:1", false},               {"no-such-host.invalid:1", false},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    listen_addr a;
    cuzk_err err = {0};
    CHECK_MSG(listen_addr_parse(&a, rows[i].addr, &err) == CUZK_OK, "%s: %s", rows[i].addr, err.msg);
    CHECK_MSG(listen_addr_is_loopback(&a) == rows[i].loopback, "%s: expected %s", rows[i].addr,
              rows[i].loopback ? "loopback" : "reachable from other machines");
  }
}

TEST(listen_unix_socket_mode) {
  char dir[] = "/tmp/cuzk_test_mode_XXXXXX";
  CHECK(mkdtemp(dir));
  listen_addr a = {.is_unix = true};
  snprintf(a.path, sizeof a.path, "%s/m.sock", dir);
  cuzk_err err = {0};
  struct stat st;
  /* born 0600 under the widest umask, and the umask is left as it was */
  mode_t old = umask(0);
  int fd = listen_socket(&a, &err);
  CHECK_EQ_INT(umask(old), 0);
  CHECK_MSG(fd >= 0, "%s", err.msg);
  CHECK(lstat(a.path, &st) == 0 && S_ISSOCK(st.st_mode));
  CHECK_MSG((st.st_mode & 07777) == 0600, "mode %04o", (unsigned)(st.st_mode & 07777));
  /* widened to the configured mode and group (the user's own) */
  CHECK_MSG(listen_unix_set_access(a.path, 0660, (long)getgid(), &err) == CUZK_OK, "%s", err.msg);
  CHECK(lstat(a.path, &st) == 0 && (st.st_mode & 07777) == 0660 && st.st_gid == getgid());
  CHECK_MSG(listen_unix_set_access(a.path, 0600, -1, &err) == CUZK_OK, "%s", err.msg);
  CHECK(lstat(a.path, &st) == 0 && (st.st_mode & 07777) == 0600);
  close(fd);
  listen_unix_remove(a.path);
  /* a path that is not a socket is refused */
  char reg[128];
  write_file(reg, sizeof reg, dir, "r", "x");
  CHECK_EQ_INT(listen_unix_set_access(reg, 0666, -1, &err), CUZK_IO);
  CHECK(strstr(err.msg, "gone or replaced"));
  CHECK(lstat(reg, &st) == 0 && (st.st_mode & 0002) == 0);
  snprintf(reg, sizeof reg, "rm -rf %s", dir);
  CHECK(system(reg) == 0);
}

static int bound_socket(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
  CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
  return fd;
}

TEST(listen_unix_socket_files) {
  char dir[] = "/tmp/cuzk_test_sock_XXXXXX";
  CHECK(mkdtemp(dir));
  char path[100], sub[100];
  cuzk_err err = {0};
  struct stat st;
  /* a missing directory is made */
  snprintf(sub, sizeof sub, "%s/a/b/d.sock", dir);
  CHECK_MSG(listen_unix_prepare(sub, &err) == CUZK_OK, "%s", err.msg);
  snprintf(path, sizeof path, "%s/a/b", dir);
  CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
  /* a stale socket (bound, nobody listening) is replaced */
  snprintf(path, sizeof path, "%s/s.sock", dir);
  int fd = bound_socket(path);
  close(fd);
  CHECK(lstat(path, &st) == 0 && S_ISSOCK(st.st_mode));
  CHECK_MSG(listen_unix_prepare(path, &err) == CUZK_OK, "%s", err.msg);
  CHECK(lstat(path, &st) != 0);
  /* a live one is not */
  listen_addr a = {.is_unix = true};
  snprintf(a.path, sizeof a.path, "%s", path);
  fd = listen_socket(&a, &err);
  CHECK_MSG(fd >= 0, "%s", err.msg);
  CHECK_EQ_INT(listen_unix_prepare(path, &err), CUZK_UNAVAILABLE);
  CHECK(strstr(err.msg, "another process is listening"));
  CHECK(lstat(path, &st) == 0);
  close(fd);
  listen_unix_remove(path);
  CHECK(lstat(path, &st) != 0);
  /* a file that is not a socket is never removed */
  fd = open(path, O_CREAT | O_WRONLY, 0600);
  close(fd);
  CHECK_EQ_INT(listen_unix_prepare(path, &err), CUZK_IO);
  CHECK(strstr(err.msg, "is not a socket"));
  listen_unix_remove(path);
  CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
  unlink(path);
  /* TCP on port 0 binds somewhere */
  CHECK(listen_addr_parse(&a, "127.0.0.1:0", &err) == CUZK_OK);
  fd = listen_socket(&a, &err);
  CHECK_MSG(fd >= 0, "%s", err.msg);
  close(fd);
  snprintf(path, sizeof path, "rm -rf %s", dir);
  CHECK(system(path) == 0);
}
