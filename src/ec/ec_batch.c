#include "ec/ec_batch.h"

#define EC bls12_381_g1
#define EC_F bls12_381_fp
#include "ec/ec_batch_impl.h"
#undef EC
#undef EC_F

#define EC bls12_381_g2
#define EC_F bls12_381_fp2
#include "ec/ec_batch_impl.h"
#undef EC
#undef EC_F
