/* Groth16 proving for snarkjs keys (docs/FORMATS.md §3.6), driven through backend.h. */
#ifndef CUZK_GROTH16_PROVE_H
#define CUZK_GROTH16_PROVE_H

#include "backend/backend.h"
#include "groth16/types.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

typedef struct {
  /* TESTING ONLY: when non-NULL, the blinding factors r and s (canonical
   * limbs, < r) instead of fresh uniform ones.  A proof made this way is
   * deterministic and reveals nothing less than a fresh one would only if
   * r, s are never reused: never set these in production. */
  const limb_t *fixed_r, *fixed_s;
  /* Called at the start of each stage (may be NULL). */
  void (*progress)(void *ctx, const char *stage);
  void *progress_ctx;
  /* Asked only when the proof fails verification, to tell a corrupt key
   * from a bad witness: CUZK_OK when every point of the key being proven
   * with is valid, else the error naming the bad point
   * (groth16_key_check_points' contract; ctx says which key).  NULL: the
   * prover checks the key itself (zkey_validate_points, or
   * bp_params_validate_points, on all threads).  The engine passes one
   * that checks each resident key once. */
  cuzk_status (*check_key)(void *ctx, cuzk_err *err);
  void *check_key_ctx;
} groth16_prove_opts;

typedef struct {
  double ab_s, quotient_s, msm_s, verify_s, total_s;
  double msm_each_s[4]; /* msm_s by MSM: A, B1, B2 (G2), C + H */
} groth16_timings;

/* Proves w against the key and verifies the result before returning it.
 * Checks: the witness prime equals the key's r and the witness has nVars
 * values.  A proof that fails verification is never returned; the key's
 * points are then checked (opts->check_key) to say whose fault it is:
 * CUZK_FORMAT naming the key file, the section, the point and its offset
 * when a point is off its curve (or a header point outside its subgroup),
 * else CUZK_UNSATISFIED naming the witness file: the witness does not
 * satisfy the circuit, or the key is inconsistent in a way no point check
 * sees (a point replaced by another valid point, an altered coefficient).
 * timings may be NULL. */
cuzk_status groth16_prove_zkey(groth16_proof *proof, const zkey_file *zk, const wtns_file *w,
                               backend *be, const groth16_prove_opts *opts,
                               groth16_timings *timings, cuzk_err *err);

/* The same under a stop hook (base/stop.h; NULL: never stops), which the
 * prover asks at each stage boundary (before a, b, the quotient, each MSM
 * and the verification) and the backend inside its operations, at chunk
 * boundaries (backend.h: be->stop is set for the proof and cleared again):
 * once it is set the proof ends within one chunk of work with
 * CUZK_CANCELLED, its memory freed (the daemon's cancel of a running job). */
cuzk_status groth16_prove_zkey_stoppable(groth16_proof *proof, const zkey_file *zk,
                                         const wtns_file *w, backend *be,
                                         const groth16_prove_opts *opts, const cuzk_stop *stop,
                                         groth16_timings *timings, cuzk_err *err);

/* Starts a prover's stage `name`: CUZK_CANCELLED when the stop hook is
 * set, else opts' progress callback (when set) and CUZK_OK. */
cuzk_status groth16_stage(const groth16_prove_opts *opts, const cuzk_stop *stop, const char *name,
                          cuzk_err *err);

/* The blinding scalars r, s of one proof: opts' fixed ones (tests) when
 * both are set, else two groth16_random_scalar draws. */
cuzk_status groth16_blinding(limb_t r[4], limb_t s[4], const groth16_prove_opts *opts,
                             cuzk_err *err);

/* The key points Groth16's blinding uses (snarkjs and bellperson alike). */
typedef struct {
  const bls12_381_g1_aff *alpha1, *beta1, *delta1;
  const bls12_381_g2_aff *beta2, *delta2;
} groth16_blind_key;

/* The proof from the four MSM sums (pa = sum a_i A_i, pb1 and pb2 the B
 * sums in G1 and G2, pch = the C (or L) sum plus the H sum) and r, s
 * (canonical, < r):
 *     A = alpha1 + pa + r delta1        B = beta2 + pb2 + s delta2
 *     C = pch + s A + r (beta1 + pb1 + s delta1) - r s delta1
 * Every multiplication by r, s or r s is the constant-time one: they and
 * the points derived from the witness are secret. */
void groth16_assemble(groth16_proof *proof, const bls12_381_g1_jac *pa,
                      const bls12_381_g1_jac *pb1, const bls12_381_g2_jac *pb2,
                      const bls12_381_g1_jac *pch, const groth16_blind_key *k, const limb_t r[4],
                      const limb_t s[4]);

/* Uniform r in [0, r) from the kernel's CSPRNG (getrandom), by rejection. */
cuzk_status groth16_random_scalar(limb_t out[4], cuzk_err *err);

#endif
