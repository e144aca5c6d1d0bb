/* Plain reference transforms for differential tests (docs/DESIGN.md §2.1).
 *
 * DESIGN: no tables, no threads, nothing shared with ntt.c except the
 * domain's omega, omega_inv and n_inv (which the tests check on their own
 * against the root-of-unity chain) and ntt_coset_shift.  Textbook iterative
 * radix-2 decimation in time: bit-reversal permutation, then stages of span
 * len/2 = 1, 2, ..., n/2 with twiddles w_len^j recomputed as running
 * products. */
#include "poly/ntt.h"

typedef bls12_381_fr fr;

static void bitrev_naive(fr *a, size_t n) {
  for (size_t i = 1, j = 0; i < n; i++) {
    /* j = bitrev(i): add 1 from the top bit down */
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      fr t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}

/* a[i] := sum_j a[j] root^(ij), root of order n = 2^lg_n. */
static void dit(fr *a, unsigned lg_n, const fr *root) {
  size_t n = (size_t)1 << lg_n;
  bitrev_naive(a, n);
  for (unsigned s = 1; s <= lg_n; s++) {
    size_t len = (size_t)1 << s, half = len / 2;
    fr wlen = *root; /* root^(n/len): a root of order len */
    for (unsigned i = s; i < lg_n; i++) bls12_381_fr_sqr(&wlen, &wlen);
    for (size_t blk = 0; blk < n; blk += len) {
      fr w;
      bls12_381_fr_set_one(&w);
      for (size_t j = 0; j < half; j++) {
        fr u = a[blk + j], v;
        bls12_381_fr_mul(&v, &a[blk + j + half], &w);
        bls12_381_fr_add(&a[blk + j], &u, &v);
        bls12_381_fr_sub(&a[blk + j + half], &u, &v);
        bls12_381_fr_mul(&w, &w, &wlen);
      }
    }
  }
}

void ntt_forward_ref(const ntt_domain *d, fr *a, unsigned threads) {
  (void)threads;
  dit(a, d->lg_n, &d->omega);
}

void ntt_inverse_ref(const ntt_domain *d, fr *a, unsigned threads) {
  (void)threads;
  dit(a, d->lg_n, &d->omega_inv);
  for (size_t i = 0; i < d->n; i++) bls12_381_fr_mul(&a[i], &a[i], &d->n_inv);
}

void ntt_scale_powers_ref(fr *a, size_t n, const fr *g, unsigned threads) {
  (void)threads;
  fr x;
  bls12_381_fr_set_one(&x);
  for (size_t k = 0; k < n; k++) {
    bls12_381_fr_mul(&a[k], &a[k], &x);
    bls12_381_fr_mul(&x, &x, g);
  }
}

void ntt_to_odd_coset_ref(const ntt_domain *d, fr *a, unsigned threads) {
  fr shift;
  ntt_coset_shift(&shift, d);
  ntt_inverse_ref(d, a, threads);
  ntt_scale_powers_ref(a, d->n, &shift, threads);
  ntt_forward_ref(d, a, threads);
}

void ntt_dft_naive(fr *out, const fr *a, size_t n, const fr *root) {
  fr ri; /* root^i */
  bls12_381_fr_set_one(&ri);
  for (size_t i = 0; i < n; i++) {
    fr acc, x; /* x = root^(ij) */
    bls12_381_fr_set_zero(&acc);
    bls12_381_fr_set_one(&x);
    for (size_t j = 0; j < n; j++) {
      fr t;
      bls12_381_fr_mul(&t, &a[j], &x);
      bls12_381_fr_add(&acc, &acc, &t);
      bls12_381_fr_mul(&x, &x, &ri);
    }
    out[i] = acc;
    bls12_381_fr_mul(&ri, &ri, root);
  }
}
