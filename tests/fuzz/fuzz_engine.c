/* The engine (engine/engine.h) driven by a program of operations read off
 * the fuzz input, on the fixture of engine_fixture.h: an engine with
 * fuzzed budgets and limits, then up to FUZZ_OPS operations
 *
 *   submit   request id (from a pool, or fuzzed bytes), circuit id, priority,
 *            0-4 partitions, each witness the key's own, the other key's,
 *            one with up to 4 bytes changed, or fuzzed bytes (empty too),
 *            want_json; or the partitions' witnesses named as files in the
 *            fixture's witness directory (engine_fixture.h fx_wname: good
 *            ones, a link, a directory, names leaving it, fuzzed names)
 *   await    a known or fuzzed job id, 1-4 ms (not at all while paused:
 *            no wait could end but by its timeout)
 *   cancel   a known or fuzzed job id
 *   status   engine_status_get and the metrics text
 *   preload, evict   a circuit id
 *   pause    engine_set_paused on or off
 *
 * and engine_free, which shuts it down.  Checked: every call returns one
 * of its documented statuses and leaves the engine consistent (results as
 * engine.h says, the queue within its budget); ASan, UBSan and the leak
 * check see the rest.  At most FUZZ_PARTS partitions are accepted per
 * input, so that a shutdown that finishes its jobs stays quick. */
#include "engine_fixture.h"

#define FUZZ_OPS 24
#define FUZZ_PARTS 3
#define FUZZ_IDS 8

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fx_init();
  return 0;
}

/* A request or job id: one of the ids this input got back, a fixed one,
 * or up to 140 fuzzed bytes (ENGINE_ID_MAX is 128). */
static const char *pick_id(fz_in *in, char ids[FUZZ_IDS][ENGINE_ID_MAX], size_t nids, char *buf) {
  static const char *const fixed[] = {"", "a", "b", "job-1"};
  uint8_t c = fz_u8(in);
  if (c < 128 && nids)
    return ids[c % nids];
  if (c < 192)
    return fixed[c & 3];
  size_t len;
  const uint8_t *b = fz_bytes(in, fz_u8(in) % 141, &len);
  memcpy(buf, b, len);
  buf[len] = 0;
  return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_in in = {data, size};
  bool cancel_on_shutdown, paused;
  engine *e = fx_engine(&in, &cancel_on_shutdown, &paused);
  char ids[FUZZ_IDS][ENGINE_ID_MAX];
  size_t nids = 0, parts = 0;
  uint8_t *wbuf[4] = {0};
  for (int op = 0; op < FUZZ_OPS && in.n; op++) {
    char idbuf[160], cbuf[200];
    cuzk_err err = {0};
    uint8_t code = fz_u8(&in);
    switch (code % 8) {
    case 0: { /* submit */
      const char *rid = pick_id(&in, ids, nids, idbuf);
      const char *cid = fx_circuit(&in, cbuf, sizeof cbuf);
      uint8_t f = fz_u8(&in);
      size_t n = (f & 7) % 5;
      const uint8_t *w[4];
      size_t wl[4];
      for (size_t i = 0; i < n; i++) {
        uint8_t kind = fz_u8(&in);
        free(wbuf[i]);
        wbuf[i] = NULL;
        const uint8_t *src = (kind & 3) == 1 ? fx_wp : fx_wk;
        size_t len = (kind & 3) == 1 ? fx_wp_len : fx_wk_len;
        if ((kind & 3) == 3) { /* fuzzed bytes, copied to their own block */
          src = fz_bytes(&in, fz_u16(&in) % 1024, &len);
        }
        wbuf[i] = malloc(len ? len : 1);
        FUZZ_ASSERT(wbuf[i], "malloc");
        if (len)
          memcpy(wbuf[i], src, len);
        if ((kind & 3) == 2)
          for (int k = 0; k < (kind >> 2 & 3) + 1; k++) {
            size_t at = fz_u16(&in) % len;
            wbuf[i][at] = fz_u8(&in);
          }
        w[i] = wbuf[i];
        wl[i] = len;
      }
      if (parts + n > FUZZ_PARTS)
        break;
      const char *names[4];
      char nbuf[4][64];
      const bool files = fz_u8(&in) & 1;
      for (size_t i = 0; files && i < n; i++) names[i] = fx_wname(&in, nbuf[i], sizeof nbuf[i]);
      engine_request rq = {.request_id = rid,
                           .circuit_id = cid,
                           .priority = (engine_priority)((f >> 3 & 15) % 5),
                           .nparts = n,
                           .witness = files ? NULL : w,
                           .witness_len = files ? NULL : wl,
                           .witness_file = files ? names : NULL,
                           .want_json = f & 128};
      engine_ticket t;
      cuzk_status st = engine_submit(e, &rq, &t, &err);
      if (st == CUZK_OK) {
        parts += n;
        FUZZ_ASSERT(n >= 1 && t.job_id[0] && strlen(t.job_id) < ENGINE_ID_MAX,
                    "accepted %zu partitions as '%s'", n, t.job_id);
        FUZZ_ASSERT(!*rid || !strcmp(rid, t.job_id), "request id '%s' became job '%s'", rid,
                    t.job_id);
        if (nids < FUZZ_IDS)
          memcpy(ids[nids++], t.job_id, ENGINE_ID_MAX);
      } else {
        FUZZ_ASSERT(st == CUZK_NOT_FOUND || st == CUZK_INVALID_ARGUMENT || st == CUZK_FORMAT ||
                        st == CUZK_EXHAUSTED || st == CUZK_UNSUPPORTED || st == CUZK_IO,
                    "submit: %s: %s", cuzk_status_name(st), err.msg);
        FUZZ_ASSERT(err.msg[0], "submit refused without a message");
      }
      break;
    }
    case 1:
    case 2: { /* await */
      const char *id = pick_id(&in, ids, nids, idbuf);
      engine_result r;
      memset(&r, 0, sizeof r);
      uint64_t ms = 1 + fz_u8(&in) % 4;
      cuzk_status st = engine_await(e, id, paused ? ENGINE_NO_WAIT : ms, &r, &err);
      fx_check_result(st, &r, id);
      engine_result_free(&r);
      break;
    }
    case 3: { /* cancel */
      const char *id = pick_id(&in, ids, nids, idbuf);
      bool was_running;
      cuzk_status st = engine_cancel(e, id, &was_running, &err);
      FUZZ_ASSERT(st == CUZK_OK || st == CUZK_NOT_FOUND, "cancel: %s", cuzk_status_name(st));
      break;
    }
    case 4:
      fx_status(e);
      break;
    case 5: { /* preload */
      bool already;
      uint64_t ms;
      cuzk_status st = engine_preload(e, fx_circuit(&in, cbuf, sizeof cbuf), &already, &ms, &err);
      FUZZ_ASSERT(st == CUZK_OK || err.msg[0], "preload refused without a message");
      break;
    }
    case 6: { /* evict */
      bool was;
      uint64_t freed;
      cuzk_status st = engine_evict(e, fx_circuit(&in, cbuf, sizeof cbuf), &was, &freed, &err);
      FUZZ_ASSERT(st == CUZK_OK || st == CUZK_NOT_FOUND, "evict: %s: %s", cuzk_status_name(st),
                  err.msg);
      break;
    }
    case 7:
      engine_set_paused(e, paused = !FX_UNPAUSE(code));
      break;
    }
  }
  engine_free(e);
  for (int i = 0; i < 4; i++)
    free(wbuf[i]);
  return 0;
}
