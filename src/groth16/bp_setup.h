/* INSECURE bellperson-format Groth16 parameters for a PCE circuit, from a
 * seed: development and benchmark keys only (anyone who knows the seed can
 * forge proofs).
 *
 * With tau, alpha, beta, gamma, delta and the generators g1 = k1 G1,
 * g2 = k2 G2 drawn from the seed (bellperson's setup draws random
 * generators too; docs/FORMATS.md §5.3), m the domain (pce_domain_lg of the
 * PCE's rows), w = 7^t's root of order m, L_i(tau) = w^i (tau^m - 1) /
 * (m (tau - w^i)) and u_j, v_j, w_j the columns of A, B and C at tau
 * (sum_i M[i][j] L_i(tau)):
 *     ic[j] = [(beta u_j + alpha v_j + w_j) / gamma]1        j < inputs
 *     l[j]  = [(beta u_j + alpha v_j + w_j) / delta]1        aux j
 *     a     = [u_j]1 for every input, then the aux in a_aux
 *     b_g1, b_g2 = [v_j]1, [v_j]2 for the inputs in b_input, then the aux in b_aux
 *     h[i]  = [tau^i (tau^m - 1) / delta]1                  i < m - 1
 * and the vk's alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2.
 * Every point is a fixed-base product: the CPU's comb (keygen.h), or the
 * backend's fixed_base (a GPU's) for the vectors when opts->backend has
 * it.  The result does not depend on the thread count or the backend. */
#ifndef CUZK_GROTH16_BP_SETUP_H
#define CUZK_GROTH16_BP_SETUP_H

#include "backend/backend.h"
#include "groth16/bp.h"
#include "groth16/pce.h"

typedef struct {
  unsigned threads; /* 0 = par_threads() */
  /* Called from the calling thread at the start of each stage; may be NULL. */
  void (*progress)(void *ctx, const char *stage);
  void *progress_ctx;
  /* The vectors' fixed-base products on this backend when it has them
   * (backend.h fixed_base: a GPU's), else on the CPU's comb; NULL: the
   * CPU.  The key is the same bytes either way. */
  backend *backend;
} bp_setup_opts;

/* Fills pp (bp_params_free frees it).  Errors: CUZK_NO_MEMORY;
 * CUZK_INVALID_ARGUMENT for a PCE with no inputs or fewer than 2 rows,
 * or one whose key would hold a point at infinity (a variable that no
 * constraint names has a zero l or ic point). */
cuzk_status bp_setup(bp_params *pp, const pce_file *pce, uint64_t seed, const bp_setup_opts *o,
                     cuzk_err *err);

#endif
