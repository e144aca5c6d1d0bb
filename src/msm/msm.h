/* Multi-scalar multiplication on the CPU: out = sum_i s_i P_i over
 * BLS12-381 G1 and G2 (Pippenger's bucket method).
 *
 * DESIGN
 *   Scalars are cut into nwin windows of c bits recoded as signed digits
 *   |d| <= 2^(c-1) (Booth), so a window needs 2^(c-1) buckets.  A scalar
 *   above (r-1)/2 is replaced by r - s and its point negated, which bounds
 *   scalars by 2^254 and needs c * nwin >= 255 only.  Work is cut into
 *   nwin * nsplit independent tasks (one window over one range of points);
 *   workers take tasks from an atomic counter, each with its own buckets, so
 *   nothing is shared but that counter and the per-task result slot.  The
 *   caller's thread sums the task results by window, then Horner over
 *   windows.  Results depend only on the inputs and the plan, never on
 *   which worker ran which task.
 *
 *   Bucket accumulation, per task, one of two ways (the plan chooses):
 *   - batch-affine (large tasks): the task's points are taken in chunks;
 *     a chunk is counting-sorted by bucket, and each bucket's list (its
 *     current value plus its new points) is summed as a binary tree, one
 *     tree level of ALL buckets per round with one shared inversion
 *     (Montgomery's trick): ~6M per addition instead of ~10M for an XYZZ
 *     mixed addition.  Same-bucket collisions, P + P and P + (-P) are
 *     ordinary tree pairs handled by ec/ec_batch_tmpl.h, so all-equal
 *     scalars or repeated bases cost log2 rounds, never a wrong result.
 *   - XYZZ (small tasks, where a round's inversion would not be shared):
 *     each point is added into an XYZZ bucket, 8M + 2S.
 *   Bucket reduction sum_k k B_k by running sums: with 4096 buckets or more
 *   (affine ones) as 512 chains stepped together with batch-affine
 *   additions, ~14M per bucket; otherwise in XYZZ, ~24M per bucket.
 *
 *   Endomorphisms (plan.endo = K parts, the plan chooses): on the
 *   prime-order subgroups [u^2] is a cheap map on both groups and [u] (psi)
 *   on G2 (ec/bls12_381.h), u = -0xd201000000010000, r = u^4 - u^2 + 1.  A
 *   folded scalar s < 2^254 is written as K signed parts in base u^(4/K):
 *     K = 2:  s = e0 + e1 u^2,              |e_j| < 2^127  (G1 and G2)
 *     K = 4:  s = e0 + e1 u + e2 u^2 + e3 u^3, |e_j| < 2^63 (G2)
 *   so sP = sum_j e_j [u^(4j/K)]P: K points with K-times shorter scalars,
 *   all into the same buckets.  Bucket additions stay about n * 255 / c
 *   per MSM (a few more: K n points leave as many first-in-bucket copies
 *   as n did), but the windows, hence the bucket reductions and the Horner
 *   doublings, are K times fewer, which also lets a larger c pay.  The
 *   K - 1 images of each live base are computed once per run into scratch
 *   ((K - 1) n points), not per window.  The plan takes the split where
 *   its model, fitted to measurements, says it pays: up to ~2^19 points
 *   (plan.c); above, the reduction is a small share and
 *   the K n points' larger stream costs what it saves.
 *
 *   Sparse inputs: a first pass keeps only the live points, those whose
 *   base is not infinity and whose scalar is not 0 mod r, with their
 *   scalars already reduced and folded (below); the plan is chosen for the
 *   live count.  circom keys are sparse where it matters: a wire absent
 *   from every B term has B1 and B2 bases at infinity (half of them in a
 *   chain of multiplications), and witnesses hold zeros.
 *
 *   Variable time in the scalars (digits pick buckets, tree shapes and
 *   branches), as in every fast prover; the names keep the brief's
 *   msm_g1/msm_g2 rather than a _vartime suffix.
 *
 * Inputs: bases as n affine points in the snarkjs zkey layout (x then y,
 * little-endian Montgomery limbs: the in-memory bls12_381_g1_aff / _g2_aff,
 * 96 resp. 192 bytes; infinity is all zero bytes), possibly unaligned, read
 * with memcpy.  Bases must lie in the prime-order subgroup (zkey points do);
 * the scalars are then taken mod r.  Scalars: n little-endian 32-byte
 * integers, canonical (< r), possibly unaligned. */
#ifndef CUZK_MSM_MSM_H
#define CUZK_MSM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/stop.h"
#include "ec/bls12_381.h"
#include "msm/plan.h"

#define MSM_SCALAR_BYTES 32

/* Operation counts of one run (summed over workers). */
typedef struct {
  uint64_t aff_adds;   /* batch-affine additions and doublings (~6M each) */
  uint64_t rounds;     /* batch rounds = field inversions */
  uint64_t aff_copies; /* tree pairs with an infinity operand or P + (-P): no arithmetic */
  uint64_t xyzz_madds; /* XYZZ + affine, 8M + 2S (XYZZ accumulation, reduction) */
  uint64_t xyzz_adds;  /* XYZZ + XYZZ, 12M + 2S (reduction) */
  uint64_t jac_ops;    /* Jacobian doublings and additions of the final sum */
  uint64_t live;       /* points left after dropping infinity bases and zero scalars */
  uint64_t images;     /* endomorphism images computed: (endo - 1) per live point */
} msm_stats;

/* out = sum_i scalars[i] * bases[i].  threads: workers (0 = par_threads()).
 * n = 0 gives infinity.  Returns CUZK_NO_MEMORY on allocation failure. */
cuzk_status msm_g1(bls12_381_g1_jac *out, const void *bases, const void *scalars, size_t n,
                   unsigned threads, cuzk_err *err);
cuzk_status msm_g2(bls12_381_g2_jac *out, const void *bases, const void *scalars, size_t n,
                   unsigned threads, cuzk_err *err);

/* One run of points: n bases (layout above) and their n scalars. */
typedef struct {
  const void *bases, *scalars;
  size_t n;
} msm_part;

/* out = the sum over all parts of sum_i scalars[i] * bases[i]: one MSM over
 * the concatenated points, so a sum of several MSMs (Groth16's C and H)
 * pays for one bucket reduction and gets the window size of its total. */
cuzk_status msm_g1_parts(bls12_381_g1_jac *out, const msm_part *parts, size_t nparts,
                         unsigned threads, cuzk_err *err);
cuzk_status msm_g2_parts(bls12_381_g2_jac *out, const msm_part *parts, size_t nparts,
                         unsigned threads, cuzk_err *err);
/* The same under a stop hook (base/stop.h; NULL: never), which each worker
 * polls before each task and between the batch-affine chunks of a task
 * (every MSM_POLL_XYZZ points of an XYZZ one): one chunk of one window's
 * bucket accumulation, or the task's bucket reduction, after the hook is
 * set the run ends with CUZK_CANCELLED (*out unspecified). */
cuzk_status msm_g1_parts_stoppable(bls12_381_g1_jac *out, const msm_part *parts, size_t nparts,
                                   unsigned threads, const cuzk_stop *stop, cuzk_err *err);
cuzk_status msm_g2_parts_stoppable(bls12_381_g2_jac *out, const msm_part *parts, size_t nparts,
                                   unsigned threads, const cuzk_stop *stop, cuzk_err *err);

/* The same with an explicit plan.  scratch: NULL to allocate (and free) it
 * here, or msm_g1_scratch_bytes(plan, n) bytes, 64-byte aligned, owned by
 * the caller and reusable for any run with the same plan and at most n
 * points.  stats (may be NULL) receives the operation counts.
 * CUZK_INVALID_ARGUMENT for an inconsistent plan (endo above the group's
 * MSM_*_ENDO_MAX included) or misaligned scratch. */
cuzk_status msm_g1_run(bls12_381_g1_jac *out, const void *bases, const void *scalars, size_t n,
                       const msm_plan *plan, void *scratch, msm_stats *stats, cuzk_err *err);
cuzk_status msm_g2_run(bls12_381_g2_jac *out, const void *bases, const void *scalars, size_t n,
                       const msm_plan *plan, void *scratch, msm_stats *stats, cuzk_err *err);
/* Scratch bytes msm_g1_run / msm_g2_run need for the plan and n (0 for
 * n = 0 or an inconsistent plan, SIZE_MAX if it does not fit in size_t). */
size_t msm_g1_scratch_bytes(const msm_plan *plan, size_t n);
size_t msm_g2_scratch_bytes(const msm_plan *plan, size_t n);

/* Reference: double-and-add of each point by its raw scalar, summed (split
 * over threads by point ranges).  Same signature and result as msm_g1/_g2. */
cuzk_status msm_g1_naive(bls12_381_g1_jac *out, const void *bases, const void *scalars, size_t n,
                         unsigned threads, cuzk_err *err);
cuzk_status msm_g2_naive(bls12_381_g2_jac *out, const void *bases, const void *scalars, size_t n,
                         unsigned threads, cuzk_err *err);

/* Test and benchmark inputs: n pseudo-random points of the subgroup from a
 * seed, written in the zkey layout to out (n * 96 resp. n * 192 bytes).
 * Cheap, ~9M per point: point (b, j, s) of block b = B_b + C_s + j D_s for
 * a random B_b per block of 4096 and tables C, D of 512 random points,
 * stepped with batch-affine additions.  Not uniformly random (e.g.
 * X(j,s) - X(j-1,s) = X(j',s) - X(j'-1,s)), not for cryptographic use.  The
 * output depends on (n, seed) only, not on threads. */
cuzk_status msm_g1_gen_bases(void *out, size_t n, uint64_t seed, unsigned threads, cuzk_err *err);
cuzk_status msm_g2_gen_bases(void *out, size_t n, uint64_t seed, unsigned threads, cuzk_err *err);

#endif
