/* Number-theoretic transforms over BLS12-381 Fr on the CPU.
 *
 * DESIGN: a domain fixes the size n = 2^lg_n and the root-of-unity chain
 * (snarkjs's 5^t or bellperson's 7^t, docs/FORMATS.md §3.4) and owns the twiddle
 * tables; it is immutable after ntt_domain_init, so any number of threads may
 * transform different arrays with one domain at the same time.  The
 * transforms work in place on a caller-owned array of n elements in
 * Montgomery form, natural order in and out, and allocate only per-worker
 * scratch (256 KiB each up to 2^25, 512 KiB at 2^26 and 2^27, 1 MiB at
 * 2^28) and the worker threads (base/par.h); if the scratch allocation
 * fails they fall back to a slower scratch-free path, so they never fail.
 * Results do not depend on the thread count: the arithmetic is exact.
 *
 * Every fast routine has a plain reference with the same signature
 * (*_ref, ntt_ref.c) that uses only d->omega, d->omega_inv and d->n_inv. */
#ifndef CUZK_POLY_NTT_H
#define CUZK_POLY_NTT_H

#include <stddef.h>

#include "base/err.h"
#include "base/stop.h"
#include "ff/bls12_381.h"

/* Largest supported lg_n: the 2-adicity of Fr.  Sizes up to 2^28 are what a
 * big machine can hold (8 GiB per vector); 2^29..2^32 are accepted too. */
#define NTT_LG_MAX BLS12_381_FR_TWO_ADICITY

typedef enum {
  NTT_ROOTS_SNARKJS,    /* w[32] = 5^t: snarkjs / ffjavascript */
  NTT_ROOTS_BELLPERSON, /* w[32] = 7^t: blstrs / bellperson */
} ntt_roots;

/* A transform domain.  Caller allocates the struct; ntt_domain_init fills it
 * and allocates the tables it owns, ntt_domain_fini frees them. */
typedef struct {
  unsigned lg_n;
  size_t n;
  ntt_roots roots;
  bls12_381_fr omega;     /* w[lg_n], a primitive n-th root of unity */
  bls12_381_fr omega_inv; /* omega^-1 */
  bls12_381_fr n_inv;     /* 1/n */
  /* Plan (ntt.c): one radix-2 pass over the whole array when lg_col == 0
   * (or lg_tw == lg_n and one thread), otherwise a four-step split into
   * 2^lg_col columns of 2^lg_row rows (lg_col + lg_row = lg_n). */
  unsigned lg_col, lg_row;
  unsigned lg_tw;         /* tw[] holds omega_M^i, i < M/2, with M = 2^lg_tw */
  bls12_381_fr *tw[2];    /* [0] forward (omega_M^i), [1] inverse (omega_M^-i) */
  bls12_381_fr *rt[2];    /* four-step twiddle roots omega^(+-k), k < 2^lg_col */
  void *mem;              /* the one allocation behind tw and rt */
} ntt_domain;

/* Fills d for size 2^lg_n.  INVALID_ARGUMENT for lg_n > 32 or an unknown
 * chain, NO_MEMORY if the tables cannot be allocated (d is then left empty,
 * and ntt_domain_fini on it is harmless). */
cuzk_status ntt_domain_init(ntt_domain *d, unsigned lg_n, ntt_roots roots, cuzk_err *err);
void ntt_domain_fini(ntt_domain *d);

/* out = w[k], the root of order 2^k of the chosen chain:
 * w[32] = 5^t or 7^t (r - 1 = 2^32 t), w[k] = w[k+1]^2.  k > 32 gives 0. */
void ntt_root(bls12_381_fr *out, ntt_roots roots, unsigned k);

/* threads: number of workers (0 = par_threads()).  Any value gives the same
 * result. */

/* a[i] := sum_j a[j] omega^(ij).  Cost ~ (n/2)(lg n + 2) Fr mul. */
void ntt_forward(const ntt_domain *d, bls12_381_fr *a, unsigned threads);
/* a[i] := (1/n) sum_j a[j] omega^(-ij), the inverse of ntt_forward. */
void ntt_inverse(const ntt_domain *d, bls12_381_fr *a, unsigned threads);
/* a[k] *= g^k for k < n.  2 mul per element. */
void ntt_scale_powers(bls12_381_fr *a, size_t n, const bls12_381_fr *g, unsigned threads);
/* snarkjs's coset step (docs/FORMATS.md §3.6 step 3): a holds evaluations on
 * D = {omega^i}; on return a[j] holds the same polynomial's value at
 * omega_2n^(2j+1), where omega_2n = w[lg_n + 1] (inverse NTT, a[k] *= w[lg_n+1]^k,
 * forward NTT).  For lg_n = 32, which has no w[33], the shift is 25 as in
 * snarkjs (Fr.shift), so the points are 25 omega^j there. */
void ntt_to_odd_coset(const ntt_domain *d, bls12_381_fr *a, unsigned threads);
/* The same under a stop hook (base/stop.h; NULL: never), polled per block
 * of columns or rows and between steps: false, a unspecified, when it
 * was set before the transform ended. */
bool ntt_to_odd_coset_stoppable(const ntt_domain *d, bls12_381_fr *a, unsigned threads,
                                const cuzk_stop *stop);
/* The multiplier ntt_to_odd_coset applies: w[lg_n + 1], or 25 for lg_n = 32. */
void ntt_coset_shift(bls12_381_fr *out, const ntt_domain *d);

/* Plain references (ntt_ref.c): iterative radix-2 with twiddles recomputed
 * from d->omega, single-threaded (threads is ignored).  O(n log n). */
void ntt_forward_ref(const ntt_domain *d, bls12_381_fr *a, unsigned threads);
void ntt_inverse_ref(const ntt_domain *d, bls12_381_fr *a, unsigned threads);
void ntt_scale_powers_ref(bls12_381_fr *a, size_t n, const bls12_381_fr *g, unsigned threads);
void ntt_to_odd_coset_ref(const ntt_domain *d, bls12_381_fr *a, unsigned threads);
/* The O(n^2) definition, out-of-place: out[i] = sum_j a[j] root^(ij).
 * For tests on small n; out and a must not overlap. */
void ntt_dft_naive(bls12_381_fr *out, const bls12_381_fr *a, size_t n, const bls12_381_fr *root);

#endif
