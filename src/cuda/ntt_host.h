/* The host-side numbers of the GPU NTT: roots of unity, coset shift, 1/n and
 * power tables of BLS12-381 Fr, computed by src/ff and poly/ntt.h.
 *
 * DESIGN: src/ff's headers are C (C11 _Static_assert, no C++ guards), so
 * ntt_gpu.cu cannot include them; it calls these C functions instead.  Every
 * element is 32 bytes, Montgomery form, little-endian 64-bit limbs -- the
 * layout of bls12_381_fr on the host and of bls12_381_fr_t on the device --
 * passed as void * because the buffers need not be aligned for the host
 * type.  `roots` is an ntt_roots value (poly/ntt.h). */
#ifndef CUZK_CUDA_NTT_HOST_H
#define CUZK_CUDA_NTT_HOST_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Is roots one of the chains poly/ntt.h knows? */
bool cuda_ntt_host_roots_ok(int roots);
/* out = w[k] (k <= 32) of the chain, or w[k]^-1 when inv. */
void cuda_ntt_host_root(void *out, int roots, unsigned k, bool inv);
/* out = the odd-coset shift of a size-2^lg_n domain (ntt_coset_shift):
 * w[lg_n + 1], or 25 for lg_n = 32. */
void cuda_ntt_host_coset_shift(void *out, int roots, unsigned lg_n);
/* out = 2^-lg_n. */
void cuda_ntt_host_inv_pow2(void *out, unsigned lg_n);
/* out = x^(2^k): k squarings. */
void cuda_ntt_host_sqr_k(void *out, const void *x, unsigned k);
/* out = the field element k. */
void cuda_ntt_host_small(void *out, unsigned k);
/* out = x^-1 (x != 0). */
void cuda_ntt_host_inv(void *out, const void *x);
/* out = 1 / (g^(2^lg_n) - 1): the inverse of x^n - 1 on the coset g
 * (g^n != 1). */
void cuda_ntt_host_vanishing_inv(void *out, const void *g, unsigned lg_n);
/* out[i] = first * base^i for i < count (first NULL: 1); count - 1 mul. */
void cuda_ntt_host_powers(void *out, size_t count, const void *first, const void *base);

#ifdef __cplusplus
}
#endif
#endif
