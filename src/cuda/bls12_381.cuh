/* BLS12-381 on the device: Fp (381-bit base field, 12 limbs), Fr (255-bit
 * scalar field, 8 limbs) and Fp2 = Fp[u]/(u^2 + 1).
 *
 * DESIGN: the constants are those of the host, from the one generated header
 * ff/consts_bls12_381.h (tools/gen_consts.py); nothing numeric is written
 * here.  The device types are named after the host types with a _t suffix
 * (the host's bls12_381_fp is a C struct, visible in the same .cu files) and
 * have the same size and bytes.  BN254 will be a file like this one. */
#ifndef CUZK_CUDA_BLS12_381_CUH
#define CUZK_CUDA_BLS12_381_CUH

#include "cuda/fp2.cuh"
#include "cuda/mont.cuh"
#include "ff/consts_bls12_381.h"

CZ_FIELD_CONFIG(bls12_381_fp_cfg, 6, BLS12_381_FP);
CZ_FIELD_CONFIG(bls12_381_fr_cfg, 4, BLS12_381_FR);

typedef mont<bls12_381_fp_cfg> bls12_381_fp_t;
typedef mont<bls12_381_fr_cfg> bls12_381_fr_t;
typedef fp2<bls12_381_fp_t> bls12_381_fp2_t;

static_assert(sizeof(bls12_381_fp_t) == 48, "Fp: 48 bytes, as on the host");
static_assert(sizeof(bls12_381_fr_t) == 32, "Fr: 32 bytes, as on the host");
static_assert(sizeof(bls12_381_fp2_t) == 96, "Fp2: 96 bytes, as on the host");

#endif
