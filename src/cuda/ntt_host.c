/* Host-side numbers of the GPU NTT (ntt_host.h): thin wrappers over src/ff
 * and poly/ntt.h, so that the device code uses exactly the CPU's roots. */
#include "cuda/ntt_host.h"

#include <string.h>

#include "poly/ntt.h"

typedef bls12_381_fr fr;

static fr get(const void *p) {
  fr x;
  memcpy(&x, p, sizeof x);
  return x;
}

static void put(void *p, const fr *x) { memcpy(p, x, sizeof *x); }

bool cuda_ntt_host_roots_ok(int roots) {
  return roots == NTT_ROOTS_SNARKJS || roots == NTT_ROOTS_BELLPERSON;
}

void cuda_ntt_host_root(void *out, int roots, unsigned k, bool inv) {
  fr w;
  ntt_root(&w, (ntt_roots)roots, k);
  if (inv)
    bls12_381_fr_inv(&w, &w);
  put(out, &w);
}

void cuda_ntt_host_coset_shift(void *out, int roots, unsigned lg_n) {
  /* ntt_coset_shift reads only lg_n and roots of the domain */
  ntt_domain d;
  memset(&d, 0, sizeof d);
  d.lg_n = lg_n;
  d.roots = (ntt_roots)roots;
  fr g;
  ntt_coset_shift(&g, &d);
  put(out, &g);
}

void cuda_ntt_host_inv_pow2(void *out, unsigned lg_n) {
  fr x, two;
  bls12_381_fr_set_u64(&two, 2);
  bls12_381_fr_inv(&two, &two);
  bls12_381_fr_set_one(&x);
  for (unsigned i = 0; i < lg_n; i++) bls12_381_fr_mul(&x, &x, &two);
  put(out, &x);
}

void cuda_ntt_host_sqr_k(void *out, const void *x, unsigned k) {
  fr y = get(x);
  for (unsigned i = 0; i < k; i++) bls12_381_fr_sqr(&y, &y);
  put(out, &y);
}

void cuda_ntt_host_small(void *out, unsigned k) {
  fr x;
  bls12_381_fr_set_u64(&x, k);
  put(out, &x);
}

void cuda_ntt_host_inv(void *out, const void *x) {
  fr y = get(x);
  bls12_381_fr_inv(&y, &y);
  put(out, &y);
}

void cuda_ntt_host_vanishing_inv(void *out, const void *g, unsigned lg_n) {
  fr y = get(g);
  for (unsigned i = 0; i < lg_n; i++) bls12_381_fr_sqr(&y, &y);
  bls12_381_fr_sub(&y, &y, &bls12_381_fr_one_mont);
  bls12_381_fr_inv(&y, &y);
  put(out, &y);
}

void cuda_ntt_host_powers(void *out, size_t count, const void *first, const void *base) {
  if (count == 0)
    return;
  fr x, b = get(base);
  if (first)
    x = get(first);
  else
    bls12_381_fr_set_one(&x);
  for (size_t i = 0; i < count; i++) {
    put((char *)out + i * sizeof(fr), &x);
    bls12_381_fr_mul(&x, &x, &b);
  }
}
