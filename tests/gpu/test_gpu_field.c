/* Device field arithmetic (src/cuda: mont.cuh, fp2.cuh) against the host's
 * (src/ff) for exact equality: BLS12-381 Fp, Fr and Fp2; add, sub, dbl, neg,
 * mul, sqr, the Montgomery conversions, the lazily reduced product and the
 * point formulas' a b - c d (mul_sub, as the device runs it).
 *
 * Inputs per field: every pair of named edge values (0, 1, 2, p-1, p-2,
 * (p-1)/2, R mod p, R^2 mod p, 2^(k-1)-1 for a k-bit p; as raw limbs, so
 * both "1" and "Montgomery 1" are there), then random elements below p from
 * the run's seed (harness.h: fixed unless --seed or CUZK_TEST_SEED names
 * one; "random" for a fresh one).  The host output buffer is poisoned
 * (0x5A) and cuda_field_apply poisons the device one (0xA5) before each
 * kernel.
 *
 * Two kinds of test:
 *   emulated_*  the device code compiled for the host, its carry chains
 *               emulated (ptx.cuh): run wherever the build has CUDA code,
 *               CI included, so the algorithm is checked without a GPU;
 *   gpu_*       the same inputs on device 0; skipped, with the reason, when
 *               there is no usable GPU (CI) or no CUDA code (CUDA=0).
 * Each test runs in its own process (the harness forks), which is also what
 * lets every GPU test initialize CUDA afresh. */

#include "gpu_test.h"

#include "cuda/cuda.h"
#include "cuda/field_ops.h"
#include "ff/bls12_381.h"

#define GPU_RANDOM (65536 + 37) /* not a multiple of the block size */
#define EMU_RANDOM 20000

/* ---- per-field description: modulus as limbs, the host operations ---- */

typedef struct {
  cuda_field f;
  int limbs;        /* 64-bit limbs of one base-field coefficient */
  int coeffs;       /* 1, or 2 for Fp2 */
  const limb_t *p;  /* modulus of the base field */
  const limb_t *one, *r2;
} field_desc;

static field_desc desc_of(cuda_field f) {
  field_desc d = {.f = f};
  if (f == CUDA_FIELD_BLS12_381_FR) {
    d.limbs = 4;
    d.coeffs = 1;
    d.p = bls12_381_fr_modulus;
    d.one = bls12_381_fr_one_mont.l;
    d.r2 = bls12_381_fr_r2.l;
  } else {
    d.limbs = 6;
    d.coeffs = f == CUDA_FIELD_BLS12_381_FP2 ? 2 : 1;
    d.p = bls12_381_fp_modulus;
    d.one = bls12_381_fp_one_mont.l;
    d.r2 = bls12_381_fp_r2.l;
  }
  return d;
}

/* The host's answer, one element.  The arithmetic is the same call by call
 * in every field (T its type and function prefix); only the canonical
 * conversions differ (Fp2 goes coefficient by coefficient). */
#define HOST_ARITH_CASES(T)                                                  \
  case CUDA_FOP_ADD: T##_add(R, A, B); break;                                \
  case CUDA_FOP_SUB: T##_sub(R, A, B); break;                                \
  case CUDA_FOP_DBL: T##_dbl(R, A); break;                                   \
  case CUDA_FOP_NEG: T##_neg(R, A); break;                                   \
  case CUDA_FOP_MUL: case CUDA_FOP_MUL_WIDE: T##_mul(R, A, B); break;        \
  case CUDA_FOP_MUL_SUB: { /* a b - (a + b)(a - b) */                        \
    T s_, d_, t_;                                                            \
    T##_add(&s_, A, B);                                                      \
    T##_sub(&d_, A, B);                                                      \
    T##_mul(&t_, &s_, &d_);                                                  \
    T##_mul(R, A, B);                                                        \
    T##_sub(R, R, &t_);                                                      \
    break;                                                                   \
  }                                                                          \
  case CUDA_FOP_SQR: T##_sqr(R, A); break;

static void host_op(cuda_field f, cuda_field_op op, void *r, const void *a, const void *b) {
  if (f == CUDA_FIELD_BLS12_381_FP) {
    bls12_381_fp *R = r;
    const bls12_381_fp *A = a, *B = b;
    switch (op) {
    HOST_ARITH_CASES(bls12_381_fp)
    case CUDA_FOP_FROM_CANON: bls12_381_fp_from_canon(R, A->l); break;
    default: bls12_381_fp_to_canon(R->l, A); break;
    }
  } else if (f == CUDA_FIELD_BLS12_381_FR) {
    bls12_381_fr *R = r;
    const bls12_381_fr *A = a, *B = b;
    switch (op) {
    HOST_ARITH_CASES(bls12_381_fr)
    case CUDA_FOP_FROM_CANON: bls12_381_fr_from_canon(R, A->l); break;
    default: bls12_381_fr_to_canon(R->l, A); break;
    }
  } else {
    bls12_381_fp2 *R = r;
    const bls12_381_fp2 *A = a, *B = b;
    switch (op) {
    HOST_ARITH_CASES(bls12_381_fp2)
    case CUDA_FOP_FROM_CANON:
      bls12_381_fp_from_canon(&R->c0, A->c0.l);
      bls12_381_fp_from_canon(&R->c1, A->c1.l);
      break;
    default:
      bls12_381_fp_to_canon(R->c0.l, &A->c0);
      bls12_381_fp_to_canon(R->c1.l, &A->c1);
      break;
    }
  }
}
#undef HOST_ARITH_CASES

/* ---- inputs ---- */

/* x = p - k (small k). */
static void p_minus(limb_t *x, const limb_t *p, int n, limb_t k) {
  limb_t borrow = k;
  for (int i = 0; i < n; i++) {
    x[i] = p[i] - borrow;
    borrow = p[i] < borrow;
  }
}

static int bit_length(const limb_t *p, int n) {
  for (int i = n - 1; i >= 0; i--)
    if (p[i])
      return 64 * i + 64 - __builtin_clzll(p[i]);
  return 0;
}

#define MAX_EDGES 9
/* The named edge values of one base-field coefficient, as raw limbs. */
static int edge_values(const field_desc *d, limb_t out[][6]) {
  const int n = d->limbs;
  int k = 0;
  memset(out, 0, sizeof(limb_t) * 6 * MAX_EDGES);
  k++;                      /* 0 */
  out[k++][0] = 1;          /* 1 (the Montgomery form of R^-1) */
  out[k++][0] = 2;          /* 2 */
  p_minus(out[k++], d->p, n, 1); /* p - 1 */
  p_minus(out[k++], d->p, n, 2); /* p - 2 */
  p_minus(out[k], d->p, n, 1);   /* (p - 1) / 2 */
  for (int i = 0; i < n; i++) out[k][i] = (out[k][i] >> 1) | (i + 1 < n ? out[k][i + 1] << 63 : 0);
  k++;
  memcpy(out[k++], d->one, sizeof(limb_t) * n); /* R mod p: Montgomery 1 */
  memcpy(out[k++], d->r2, sizeof(limb_t) * n);  /* R^2 mod p */
  const int bits = bit_length(d->p, n) - 1;     /* 2^(bits) - 1 < p */
  for (int i = 0; i < n; i++) {
    int lo = 64 * i;
    out[k][i] = bits >= lo + 64 ? ~(limb_t)0 : bits > lo ? ((limb_t)1 << (bits - lo)) - 1 : 0;
  }
  k++;
  return k;
}

static void random_coeff(const field_desc *d, test_rng *rng, limb_t *x) {
  const int n = d->limbs, top = bit_length(d->p, n) - 64 * (n - 1);
  do {
    for (int i = 0; i < n; i++) x[i] = test_rng_next(rng);
    x[n - 1] &= top == 64 ? ~(limb_t)0 : ((limb_t)1 << top) - 1;
  } while (!limbs_lt(x, d->p, n));
}

/* Fills a and b with every pair of edge elements, then nrand random pairs.
 * For Fp2 the edge elements are (e_i, e_j) over a few coefficient pairs.
 * Returns the number of elements (a and b are allocated). */
static size_t make_inputs(const field_desc *d, size_t nrand, uint64_t seed, uint8_t **a_out,
                          uint8_t **b_out) {
  limb_t edges[MAX_EDGES][6];
  const int ne = edge_values(d, edges);
  const size_t cs = sizeof(limb_t) * (size_t)d->limbs, es = cs * (size_t)d->coeffs;
  /* edge elements: for Fp2, each coefficient pair (e_i, e_j) */
  int nel = d->coeffs == 1 ? ne : ne * ne;
  size_t n = (size_t)nel * (size_t)nel + nrand;
  uint8_t *a = malloc(n * es), *b = malloc(n * es);
  CHECK(a && b);
  size_t k = 0;
  for (int i = 0; i < nel; i++)
    for (int j = 0; j < nel; j++, k++) {
      if (d->coeffs == 1) {
        memcpy(a + k * es, edges[i], cs);
        memcpy(b + k * es, edges[j], cs);
      } else {
        memcpy(a + k * es, edges[i / ne], cs);
        memcpy(a + k * es + cs, edges[i % ne], cs);
        memcpy(b + k * es, edges[j / ne], cs);
        memcpy(b + k * es + cs, edges[j % ne], cs);
      }
    }
  test_rng rng = {seed};
  for (; k < n; k++)
    for (int c = 0; c < d->coeffs; c++) {
      random_coeff(d, &rng, (limb_t *)(a + k * es + c * cs));
      random_coeff(d, &rng, (limb_t *)(b + k * es + c * cs));
    }
  *a_out = a;
  *b_out = b;
  return n;
}

/* 64-bit limbs, least significant first (Fp2: c0's limbs, then c1's). */
static void print_elem(const char *name, const uint8_t *x, size_t es) {
  fprintf(stderr, "    %s =", name);
  for (size_t i = 0; i < es; i += 8) {
    uint64_t l;
    memcpy(&l, x + i, 8);
    fprintf(stderr, " %016" PRIx64, l);
  }
  fprintf(stderr, "\n");
}

typedef cuzk_status (*apply_fn)(cuda_field, cuda_field_op, void *, const void *, const void *,
                                size_t, cuzk_err *);

/* Every operation on every input pair, compared with the host. */
static void check_field(cuda_field f, apply_fn apply, size_t nrand) {
  const field_desc d = desc_of(f);
  const size_t es = cuda_field_elem_size(f);
  CHECK_EQ_INT(es, sizeof(limb_t) * (size_t)d.limbs * (size_t)d.coeffs);
  uint8_t *a, *b;
  const size_t n = make_inputs(&d, nrand, test_seed(), &a, &b);
  uint8_t *got = malloc(n * es), *want = malloc(n * es);
  CHECK(got && want);
  for (int op = 0; op < CUDA_FOP_COUNT; op++) {
    for (size_t i = 0; i < n; i++) host_op(f, (cuda_field_op)op, want + i * es, a + i * es, b + i * es);
    memset(got, 0x5A, n * es);
    cuzk_err err = {0};
    cuzk_status s = apply(f, (cuda_field_op)op, got, a, b, n, &err);
    CHECK_MSG(s == CUZK_OK, "%s %s: %s: %s", cuda_field_name(f), cuda_field_op_name(op),
              cuzk_status_name(s), err.msg);
    for (size_t i = 0; i < n; i++)
      if (memcmp(got + i * es, want + i * es, es) != 0) {
        fprintf(stderr, "  %s %s: element %zu of %zu differs (%s); 64-bit limbs, least "
                "significant first:\n", cuda_field_name(f), cuda_field_op_name(op), i, n,
                i < n - nrand ? "edge pair" : "random");
        print_elem("a     ", a + i * es, es);
        print_elem("b     ", b + i * es, es);
        print_elem("device", got + i * es, es);
        print_elem("host  ", want + i * es, es);
        TEST_FAIL("%s %s: device result differs from the host's", cuda_field_name(f),
                  cuda_field_op_name(op));
      }
  }
  printf("  %s: %d operations x %zu elements equal to the host\n", cuda_field_name(f),
         CUDA_FOP_COUNT, n);
  free(a);
  free(b);
  free(got);
  free(want);
}


TEST(emulated_fp) {
  check_field(CUDA_FIELD_BLS12_381_FP, cuda_field_apply_emulated, EMU_RANDOM);
}
TEST(emulated_fr) {
  check_field(CUDA_FIELD_BLS12_381_FR, cuda_field_apply_emulated, EMU_RANDOM);
}
TEST(emulated_fp2) {
  check_field(CUDA_FIELD_BLS12_381_FP2, cuda_field_apply_emulated, EMU_RANDOM);
}

/* Unusable arguments are refused with a status, not a crash. */
TEST(bad_arguments) {
  uint8_t buf[96] = {0};
  cuzk_err err = {0};
  CHECK_EQ_INT(cuda_field_apply_emulated(CUDA_FIELD_COUNT, CUDA_FOP_ADD, buf, buf, buf, 1, &err),
               CUZK_INVALID_ARGUMENT);
  CHECK_EQ_INT(cuda_field_apply_emulated(CUDA_FIELD_BLS12_381_FP, CUDA_FOP_MUL, buf, buf, NULL, 1,
                                         &err),
               CUZK_INVALID_ARGUMENT);
  CHECK(strstr(err.msg, "missing buffer") != NULL);
}

TEST(gpu_device) {
  char line[512];
  need_gpu();
  cuzk_cuda_describe(line, sizeof line);
  printf("  %s\n", line);
}
TEST(gpu_fp) {
  need_gpu();
  check_field(CUDA_FIELD_BLS12_381_FP, cuda_field_apply, GPU_RANDOM);
}
TEST(gpu_fr) {
  need_gpu();
  check_field(CUDA_FIELD_BLS12_381_FR, cuda_field_apply, GPU_RANDOM);
}
TEST(gpu_fp2) {
  need_gpu();
  check_field(CUDA_FIELD_BLS12_381_FP2, cuda_field_apply, GPU_RANDOM);
}
