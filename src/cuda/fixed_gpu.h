/* Fixed-base scalar products on the GPU: out[i] = k[i] G for one point G
 * and many scalars, the whole of a Groth16 key's set-up (`cuzk setup`,
 * `cuzk bench bp`: INSECURE development keys, hundreds of millions of
 * points at 2^27).
 *
 * DESIGN: a window table of G, T[j][d - 1] = d 2^(8j) G for the 32 byte
 * windows j of a scalar below 2^256 and d = 1..255 (8,160 affine points,
 * built on the host by the caller and uploaded with the object), so that
 * k G is at most 32 mixed additions of table points, one per non-zero
 * byte of k, in XYZZ (ec.cuh); then 1/ZZZ gives the affine point
 * (x = X ZZ^2 / ZZZ^2, y = Y / ZZZ, as ZZ^3 = ZZZ^2), with one field
 * inversion (Fermat: about 570 multiplications, more than the additions)
 * for a thread's batch of up to 8 points (Montgomery's trick).  No doubling or opposite case arises for k < r: the sum
 * of the windows below j is a multiple of G below 2^(8j) G, short of any
 * table point of window j and of its negative (ec.cuh handles both
 * anyway).  k = 0 gives the point at infinity, all zero bytes.  A thread
 * takes points g, g + G, ... (G threads, so a warp's accesses of one step
 * are adjacent); the points go through device buffers a chunk at a time.
 * Emulation (emulate = true) runs the same per-point code on the host, so
 * CI checks it against the CPU's products without a GPU.  The outputs are
 * affine Montgomery in the host's layout (bls12_381_g1_aff / g2_aff),
 * fully reduced, byte for byte what the CPU gives. */
#ifndef CUZK_CUDA_FIXED_GPU_H
#define CUZK_CUDA_FIXED_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUDA_FIXED_WINDOWS 32
#define CUDA_FIXED_DIGITS 255
#define CUDA_FIXED_TABLE (CUDA_FIXED_WINDOWS * CUDA_FIXED_DIGITS)

typedef struct cuda_fixed cuda_fixed;

/* g2: G2 (points of 192 bytes), else G1 (96).  table: CUDA_FIXED_TABLE
 * affine points as the DESIGN says (none at infinity).  Allocates the
 * table and the chunk buffers (device memory, or host memory when
 * emulated): set-up code, not a proof's path. */
cuzk_status cuda_fixed_new(cuda_fixed **out, bool g2, const void *table, bool emulate,
                           cuzk_err *err);
void cuda_fixed_free(cuda_fixed *f); /* NULL is fine */
/* out[i] := k[i] G for i < n (host arrays: k as 4 little-endian 64-bit
 * limbs each, canonical, below r; out affine points), on stream (NULL: the
 * legacy stream); returns when out is written. */
cuzk_status cuda_fixed_mul(cuda_fixed *f, void *out, const void *k, size_t n, void *stream,
                           cuzk_err *err);

#ifdef __cplusplus
}
#endif

#endif
