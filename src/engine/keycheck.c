/* A loaded key's point check, asked by the prover when a proof fails
 * verification (groth16_prove_opts.check_key), so that a corrupt key fails
 * its jobs as the key's fault instead of being blamed on their witnesses.
 *
 * DESIGN: the scan (groth16_key_check_points: for a .zkey every point of
 * sections 3 and 5-9 on its curve, the header points in their subgroups;
 * for a bellperson key every point of ic and the vectors on its curve and
 * in its subgroup, none at infinity) costs about a
 * second per million points per thread, too much for every failing job of
 * a large key, so its answer is kept in the key entry (ekey.points) until
 * the key is unloaded: one scan per residency.  The scan runs without the
 * lock on the copy the caller's reference keeps alive; an asker that
 * finds a scan running waits on key_cv for its answer.  The unload that
 * resets the answer (keys.c) needs refs = 0, so it never meets a scan. */
#include <stdio.h>

#include "engine/engine_impl.h"

cuzk_status keys_check_points(void *ctx, cuzk_err *err) {
  const keycheck_ctx *c = ctx;
  engine *e = c->e;
  ekey *k = c->k;
  bool first = false;
  pthread_mutex_lock(&e->mu);
  while (k->points == KEY_POINTS_CHECKING) pthread_cond_wait(&e->key_cv, &e->mu);
  if (k->points == KEY_POINTS_UNCHECKED) {
    k->points = KEY_POINTS_CHECKING;
    pthread_mutex_unlock(&e->mu);
    cuzk_err kerr = {0};
    bool good = groth16_key_check_points(&k->key, e->cfg.threads, &kerr) == CUZK_OK;
    pthread_mutex_lock(&e->mu);
    k->points = good ? KEY_POINTS_GOOD : KEY_POINTS_BAD;
    snprintf(k->points_msg, sizeof k->points_msg, "%s", good ? "" : kerr.msg);
    pthread_cond_broadcast(&e->key_cv);
    first = !good;
    if (first)
      engine_log_queued(e, ENGINE_LOG_ERROR,
                        "circuit %s: the proving key is corrupt: %s; replace the file: the key "
                        "is read again at its next job",
                        k->id, k->points_msg);
  }
  const bool bad = k->points == KEY_POINTS_BAD;
  char msg[CUZK_ERR_MSG_MAX];
  snprintf(msg, sizeof msg, "%s", k->points_msg);
  pthread_mutex_unlock(&e->mu);
  if (first)
    joblog_flush(e);
  return bad ? cuzk_err_set(err, CUZK_FORMAT, "%s", msg) : CUZK_OK;
}
