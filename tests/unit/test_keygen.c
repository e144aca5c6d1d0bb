/* The INSECURE benchmark key generator (groth16/keygen.h): the fixed-base
 * comb against double-and-add over every window width, the chain circuit's
 * rows, every point of small keys against a plain O(n^2) recomputation, the
 * repo's prover and verifier on keys of 2^4 .. 2^10, a tampered witness, the
 * result's independence of threads and window widths, and (when the oracle
 * fixtures exist) byte equality with circom + snarkjs's chain_1k. */
#include "harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/backend.h"
#include "groth16/keygen.h"
#include "groth16/prove.h"
#include "groth16/verify.h"
#include "groth16/zkey.h"
#include "poly/ntt.h"

typedef bls12_381_fr fr;

/* ------------------------------------------------------------ helpers */

static void rand_scalar(limb_t k[4], test_rng *r) {
  do {
    for (int i = 0; i < 4; i++) k[i] = test_rng_next(r);
    k[3] &= 0x7fffffffffffffffULL;
  } while (!limbs_lt(k, bls12_381_fr_modulus, 4));
}

static char *tmpdir_new(void) {
  char *d = strdup("/tmp/cuzk-keygen-XXXXXX");
  CHECK(d && mkdtemp(d));
  return d;
}

static void tmpdir_free(char *d) {
  DIR *dh = opendir(d);
  if (dh) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(dh)))
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        unlink(p);
      }
    closedir(dh);
  }
  rmdir(d);
  free(d);
}

static void gen(const keygen_chain *c, const char *dir, unsigned threads, unsigned bits) {
  char z[512], w[512];
  snprintf(z, sizeof z, "%s/circuit.zkey", dir);
  snprintf(w, sizeof w, "%s/witness.wtns", dir);
  keygen_opts o = {.threads = threads, .comb_bits = {bits, bits}};
  keygen_timings tm;
  cuzk_err err = {0};
  cuzk_status st = keygen_chain_write(c, z, w, &o, &tm, &err);
  CHECK_MSG(st == CUZK_OK, "keygen_chain_write: %s", err.msg);
  struct stat sb;
  CHECK(stat(z, &sb) == 0);
  CHECK_EQ_INT(sb.st_size, tm.zkey_bytes);
  CHECK_EQ_INT(sb.st_size, keygen_chain_zkey_bytes(c->n_steps));
  CHECK(stat(w, &sb) == 0);
  CHECK_EQ_INT(sb.st_size, keygen_chain_wtns_bytes(c->n_steps));
  snprintf(z, sizeof z, "%s/circuit.zkey.tmp", dir);
  CHECK(access(z, F_OK) != 0); /* no .tmp left behind */
}

static void chain(keygen_chain *c, unsigned lg, uint64_t seed) {
  cuzk_err err = {0};
  CHECK(keygen_chain_from_seed(c, KEYGEN_CHAIN_STEPS(lg), seed, &err) == CUZK_OK);
}

/* ------------------------------------------------------------ the comb */

TEST(comb_recode_every_width) {
  test_rng rng = {test_seed()};
  for (unsigned bits = 2; bits <= 20; bits++) {
    const unsigned W = keygen_comb_windows(bits);
    CHECK(W * bits >= 256 && (W - 1) * bits < 256);
    const int32_t half = 1 << (bits - 1);
    for (int t = 0; t < 200; t++) {
      limb_t k[4];
      if (t == 0)
        memset(k, 0, sizeof k);
      else if (t == 1)
        memcpy(k, bls12_381_fr_modulus, sizeof k), k[0] -= 1; /* r - 1 */
      else if (t == 2)
        k[0] = k[1] = k[2] = ~(limb_t)0, k[3] = 0x7fffffffffffffffULL; /* 2^255 - 1 */
      else
        rand_scalar(k, &rng);
      int32_t d[128];
      keygen_comb_recode(d, 1, k, bits, W);
      /* sum d_w 2^(bits w) as a signed big integer, 5 limbs */
      limb_t acc[5] = {0};
      for (unsigned w = W; w-- > 0;) {
        CHECK_MSG(d[w] >= -half && d[w] <= half, "bits %u digit %u = %d", bits, w, d[w]);
        /* acc = acc 2^bits + d[w] (two's complement over 5 limbs) */
        for (unsigned s = 0; s < bits; s++) {
          limb_t carry = 0;
          for (int i = 0; i < 5; i++) {
            limb_t nc = acc[i] >> 63;
            acc[i] = acc[i] << 1 | carry;
            carry = nc;
          }
        }
        limb_t add[5];
        for (int i = 0; i < 5; i++) add[i] = d[w] < 0 ? ~(limb_t)0 : 0;
        add[0] = (limb_t)(int64_t)d[w];
        unsigned __int128 c = 0;
        for (int i = 0; i < 5; i++) {
          c += (unsigned __int128)acc[i] + add[i];
          acc[i] = (limb_t)c;
          c >>= 64;
        }
      }
      CHECK_MSG(acc[4] == 0 && !memcmp(acc, k, 32), "bits %u: digits do not sum to k", bits);
    }
  }
}

/* k[i] G by the comb equals double-and-add for random scalars and the edge
 * cases: zero, one, r - 1, a repeated scalar, n = 1, and for each width the
 * scalar k = 2E - r whose last addition is a doubling: E = D 2^s with
 * D = r / 2^s rounded and s = bits (W - 1), so that |E - r| <= 2^(s-1), the
 * top digit of k is D and the lower digits sum to E - r = E (mod r); there
 * when k < r, i.e. D rounds down (widths 4, 7 and 12 of those below). */
#define COMB_VS_REF(G, bits_list)                                                                  \
  do {                                                                                             \
    test_rng rng = {test_seed()};                                                                  \
    static const unsigned widths[] = bits_list;                                                    \
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {                            \
      const unsigned bits = widths[wi];                                                            \
      G##_comb cb;                                                                                 \
      cuzk_err err = {0};                                                                          \
      CHECK(G##_comb_init(&cb, &G##_generator, bits, 2, &err) == CUZK_OK);                         \
      enum { NK = 40 };                                                                            \
      limb_t k[NK][4];                                                                             \
      size_t nk = 0;                                                                               \
      memset(k[nk++], 0, 32);                                                                      \
      memset(k[nk], 0, 32), k[nk++][0] = 1;                                                        \
      memcpy(k[nk], bls12_381_fr_modulus, 32), k[nk++][0] -= 1;                                    \
      {                                                                                            \
        /* E = round(r / 2^s) 2^s, s = bits (W - 1); k = 2E - r when 0 < k < r */                  \
        const unsigned s = bits * (keygen_comb_windows(bits) - 1);                                 \
        limb_t e[5] = {0}, rr[5] = {0};                                                            \
        memcpy(rr, bls12_381_fr_modulus, 32);                                                      \
        limb_t q[4] = {0};                                                                         \
        for (int i = 0; i < 4; i++) {                                                              \
          unsigned src = s / 64 + i, off = s % 64;                                                 \
          limb_t v = src < 4 ? rr[src] >> off : 0;                                                 \
          if (off && src + 1 < 4) v |= rr[src + 1] << (64 - off);                                  \
          q[i] = v;                                                                                \
        }                                                                                          \
        q[0] += (rr[(s - 1) / 64] >> ((s - 1) % 64)) & 1; /* round half up */                      \
        for (int i = 0; i < 4; i++) {                                                              \
          unsigned dst = s / 64 + i, off = s % 64;                                                 \
          if (dst < 5) e[dst] |= q[i] << off;                                                      \
          if (off && dst + 1 < 5) e[dst + 1] |= q[i] >> (64 - off);                                \
        }                                                                                          \
        limb_t t[5];                                                                               \
        unsigned __int128 c = 0;                                                                   \
        for (int i = 0; i < 5; i++) c += (unsigned __int128)e[i] * 2, t[i] = (limb_t)c, c >>= 64;  \
        __int128 b = 0;                                                                            \
        for (int i = 0; i < 5; i++) {                                                              \
          b += (__int128)t[i] - rr[i];                                                             \
          t[i] = (limb_t)b;                                                                        \
          b >>= 64;                                                                                \
        }                                                                                          \
        if (b == 0 && t[4] == 0 && limbs_lt(t, bls12_381_fr_modulus, 4) && !limbs_is_zero(t, 4))   \
          memcpy(k[nk++], t, 32);                                                                  \
      }                                                                                            \
      while (nk < NK - 2) rand_scalar(k[nk++], &rng);                                              \
      memcpy(k[nk], k[nk - 1], 32), nk++; /* a duplicate */                                        \
      G##_aff r[NK], ref[NK];                                                                      \
      void *scr = malloc(G##_comb_scratch_sizeof(&cb, nk));                                        \
      CHECK(scr);                                                                                  \
      G##_comb_mul(&cb, r, (const limb_t(*)[4])k, nk, scr);                                        \
      G##_comb_mul_ref(&cb, ref, (const limb_t(*)[4])k, nk, scr);                                  \
      for (size_t i = 0; i < nk; i++)                                                              \
        CHECK_MSG(G##_aff_eq(&r[i], &ref[i]), "bits %u: scalar %zu differs", bits, i);             \
      CHECK(G##_aff_is_inf(&r[0]));                                                                \
      G##_comb_mul(&cb, r, (const limb_t(*)[4])k + 5, 1, scr); /* n = 1 */                         \
      CHECK(G##_aff_eq(&r[0], &ref[5]));                                                           \
      free(scr);                                                                                   \
      G##_comb_fini(&cb);                                                                          \
    }                                                                                              \
  } while (0)

#define G1_WIDTHS {2, 3, 4, 5, 7, 8, 11, 13, 16}
#define G2_WIDTHS {2, 5, 8, 10, 12}
TEST(comb_g1_equals_double_and_add) { COMB_VS_REF(bls12_381_g1, G1_WIDTHS); }
TEST(comb_g2_equals_double_and_add) { COMB_VS_REF(bls12_381_g2, G2_WIDTHS); }

/* ------------------------------------------------------------ the circuit */

TEST(chain_rows_and_coef_offsets) {
  const uint64_t Ns[] = {0, 1, 2, 3, 4, 5, 6, 12, 100, 252, 253, 254, 255, 256, 1000, 1020};
  for (size_t t = 0; t < sizeof Ns / sizeof Ns[0]; t++) {
    const uint64_t N = Ns[t];
    uint64_t sum = 0;
    for (uint64_t i = 0; i <= N + 4; i++) {
      CHECK_MSG(keygen_chain_coefs_before(N, i) == sum, "N %llu row %llu: %llu != %llu",
                (unsigned long long)N, (unsigned long long)i,
                (unsigned long long)keygen_chain_coefs_before(N, i), (unsigned long long)sum);
      if (i > N) {
        sum += 1; /* an input row */
        continue;
      }
      keygen_row row;
      keygen_chain_row(&row, N, i);
      CHECK(row.nc == 1 && row.na >= 1 && row.nb >= 1);
      for (unsigned q = 0; q < row.na + row.nb + row.nc; q++) {
        const keygen_term *tm = q < row.na ? &row.a[q] : q < row.na + row.nb ? &row.b[q - row.na]
                                                                          : &row.c[0];
        CHECK(tm->wire < N + 4 && tm->coef != 0);
        /* wire 3 + k (k >= 1) only in rows k - 1 and k, as keygen relies on */
        if (tm->wire >= 4)
          CHECK(i == tm->wire - 4 || i == tm->wire - 3);
      }
      sum += row.na + row.nb;
    }
  }
  CHECK_EQ_INT(keygen_chain_lg_domain(KEYGEN_CHAIN_STEPS(2)), 2);
  CHECK_EQ_INT(keygen_chain_lg_domain(KEYGEN_CHAIN_STEPS(20)), 20);
  CHECK_EQ_INT(keygen_chain_lg_domain(KEYGEN_CHAIN_STEPS(20) + 1), 21);
  CHECK_EQ_INT(keygen_chain_lg_domain(1000), 10);
  keygen_chain c;
  cuzk_err err = {0};
  CHECK(keygen_chain_from_seed(&c, KEYGEN_CHAIN_STEPS(29), 1, &err) == CUZK_INVALID_ARGUMENT);
}

/* Every constraint holds on the generated witness, evaluated term by term. */
static void check_witness_satisfies(const char *path, uint64_t N) {
  wtns_file w;
  cuzk_err err = {0};
  CHECK_MSG(wtns_open(&w, path, &err) == CUZK_OK, "%s", err.msg);
  CHECK_EQ_INT(w.n_witness, N + 4);
  fr one;
  bls12_381_fr_set_one(&one);
  limb_t v0[4];
  limbs_from_le(v0, wtns_value(&w, 0), 4);
  CHECK(v0[0] == 1 && v0[1] == 0 && v0[2] == 0 && v0[3] == 0);
  for (uint64_t i = 0; i <= N; i++) {
    keygen_row row;
    keygen_chain_row(&row, N, i);
    fr lc[3];
    const keygen_term *t[3] = {row.a, row.b, row.c};
    const unsigned nt[3] = {row.na, row.nb, row.nc};
    for (int m = 0; m < 3; m++) {
      bls12_381_fr_set_zero(&lc[m]);
      for (unsigned q = 0; q < nt[m]; q++) {
        limb_t v[4];
        fr x, c;
        limbs_from_le(v, wtns_value(&w, t[m][q].wire), 4);
        bls12_381_fr_from_canon(&x, v);
        bls12_381_fr_set_u64(&c, (uint64_t)(t[m][q].coef < 0 ? -t[m][q].coef : t[m][q].coef));
        if (t[m][q].coef < 0)
          bls12_381_fr_neg(&c, &c);
        bls12_381_fr_mul(&x, &x, &c);
        bls12_381_fr_add(&lc[m], &lc[m], &x);
      }
    }
    bls12_381_fr_mul(&lc[0], &lc[0], &lc[1]);
    CHECK_MSG(bls12_381_fr_eq(&lc[0], &lc[2]), "constraint %llu fails", (unsigned long long)i);
  }
  wtns_close(&w);
}

/* ------------------------------------------------------------ keys */

/* L_i(tau) on the domain {g^k, k < m} by the product formula, O(m) per value. */
static void lagrange_naive(fr *out, size_t i, size_t m, const fr *g, const fr *tau) {
  fr num, den, gi, gk, t;
  bls12_381_fr_set_one(&num);
  bls12_381_fr_set_one(&den);
  const limb_t ei[1] = {i};
  bls12_381_fr_pow(&gi, g, ei, 1);
  bls12_381_fr_set_one(&gk);
  for (size_t k = 0; k < m; k++, bls12_381_fr_mul(&gk, &gk, g)) {
    if (k == i)
      continue;
    bls12_381_fr_sub(&t, tau, &gk);
    bls12_381_fr_mul(&num, &num, &t);
    bls12_381_fr_sub(&t, &gi, &gk);
    bls12_381_fr_mul(&den, &den, &t);
  }
  bls12_381_fr_inv(&den, &den);
  bls12_381_fr_mul(out, &num, &den);
}

static void g1_naive(bls12_381_g1_aff *r, const fr *k) {
  limb_t c[4];
  bls12_381_g1_jac g, p;
  bls12_381_fr_to_canon(c, k);
  bls12_381_g1_jac_from_aff(&g, &bls12_381_g1_generator);
  bls12_381_g1_jac_mul_vartime(&p, &g, c, 4);
  bls12_381_g1_jac_to_aff(r, &p);
}
static void g2_naive(bls12_381_g2_aff *r, const fr *k) {
  limb_t c[4];
  bls12_381_g2_jac g, p;
  bls12_381_fr_to_canon(c, k);
  bls12_381_g2_jac_from_aff(&g, &bls12_381_g2_generator);
  bls12_381_g2_jac_mul_vartime(&p, &g, c, 4);
  bls12_381_g2_jac_to_aff(r, &p);
}

#define CHECK_G1(bytes, k, what, j)                                                                \
  do {                                                                                             \
    bls12_381_g1_aff p_, q_;                                                                       \
    zkey_g1_decode(&p_, bytes);                                                                    \
    g1_naive(&q_, k);                                                                              \
    CHECK_MSG(bls12_381_g1_aff_eq(&p_, &q_), "%s[%zu] differs from the naive point", what,          \
              (size_t)(j));                                                                        \
  } while (0)

/* Every point of 2^lg keys equals [scalar]G with the scalar recomputed from
 * the circuit's rows, product-formula Lagrange values and the secrets. */
static void key_equals_naive(unsigned lg, unsigned bits) {
  char *dir = tmpdir_new();
  keygen_chain c;
  chain(&c, lg, 1000 + lg);
  gen(&c, dir, 2, bits);
  const uint64_t N = c.n_steps, nv = N + 4, n = (uint64_t)1 << lg;
  fr tau, alpha, beta, delta, dinv, w, w2;
  bls12_381_fr_from_canon(&tau, c.tau);
  bls12_381_fr_from_canon(&alpha, c.alpha);
  bls12_381_fr_from_canon(&beta, c.beta);
  bls12_381_fr_from_canon(&delta, c.delta);
  bls12_381_fr_inv(&dinv, &delta);
  ntt_root(&w, NTT_ROOTS_SNARKJS, lg);
  ntt_root(&w2, NTT_ROOTS_SNARKJS, lg + 1);
  fr *L = calloc(n, sizeof *L), *col = calloc(3 * nv, sizeof *col);
  CHECK(L && col);
  for (uint64_t i = 0; i < n; i++) lagrange_naive(&L[i], i, n, &w, &tau);
  for (uint64_t i = 0; i <= N; i++) {
    keygen_row row;
    keygen_chain_row(&row, N, i);
    const keygen_term *t[3] = {row.a, row.b, row.c};
    const unsigned nt[3] = {row.na, row.nb, row.nc};
    for (int m = 0; m < 3; m++)
      for (unsigned q = 0; q < nt[m]; q++) {
        fr cf, x;
        bls12_381_fr_set_u64(&cf, (uint64_t)(t[m][q].coef < 0 ? -t[m][q].coef : t[m][q].coef));
        if (t[m][q].coef < 0)
          bls12_381_fr_neg(&cf, &cf);
        bls12_381_fr_mul(&x, &cf, &L[i]);
        bls12_381_fr_add(&col[3 * t[m][q].wire + m], &col[3 * t[m][q].wire + m], &x);
      }
  }
  for (uint64_t j = 0; j <= KEYGEN_CHAIN_PUBLIC; j++) /* input rows */
    bls12_381_fr_add(&col[3 * j], &col[3 * j], &L[N + 1 + j]);

  char z[512];
  snprintf(z, sizeof z, "%s/circuit.zkey", dir);
  zkey_file zk;
  cuzk_err err = {0};
  CHECK_MSG(zkey_open(&zk, z, &err) == CUZK_OK, "%s", err.msg);
  CHECK_EQ_INT(zk.n_vars, nv);
  CHECK_EQ_INT(zk.domain_size, n);
  CHECK_EQ_INT(zk.n_public, KEYGEN_CHAIN_PUBLIC);
  CHECK(zk.has_contributions && zk.n_contributions == 0);
  CHECK(zkey_validate_points(&zk, 2, &err) == CUZK_OK);
  bls12_381_g1_aff p1, q1;
  bls12_381_g2_aff p2, q2;
  g1_naive(&q1, &alpha);
  CHECK(bls12_381_g1_aff_eq(&zk.alpha1, &q1));
  g1_naive(&q1, &beta);
  CHECK(bls12_381_g1_aff_eq(&zk.beta1, &q1));
  g1_naive(&q1, &delta);
  CHECK(bls12_381_g1_aff_eq(&zk.delta1, &q1));
  g2_naive(&q2, &beta);
  CHECK(bls12_381_g2_aff_eq(&zk.beta2, &q2));
  g2_naive(&q2, &delta);
  CHECK(bls12_381_g2_aff_eq(&zk.delta2, &q2));
  CHECK(bls12_381_g2_aff_eq(&zk.gamma2, &bls12_381_g2_generator));
  for (uint64_t j = 0; j < nv; j++) {
    const fr *a = &col[3 * j], *b = &col[3 * j + 1], *cc = &col[3 * j + 2];
    fr t, u;
    bls12_381_fr_mul(&t, &beta, a);
    bls12_381_fr_mul(&u, &alpha, b);
    bls12_381_fr_add(&t, &t, &u);
    bls12_381_fr_add(&t, &t, cc);
    CHECK_G1(zk.a + 96 * j, a, "A", j);
    CHECK_G1(zk.b1 + 96 * j, b, "B1", j);
    zkey_g2_decode(&p2, zk.b2 + 192 * j);
    g2_naive(&q2, b);
    CHECK_MSG(bls12_381_g2_aff_eq(&p2, &q2), "B2[%zu] differs from the naive point", (size_t)j);
    if (j <= KEYGEN_CHAIN_PUBLIC) {
      CHECK_G1(zk.ic + 96 * j, &t, "IC", j);
    } else {
      bls12_381_fr_mul(&t, &t, &dinv);
      CHECK_G1(zk.c + 96 * (j - KEYGEN_CHAIN_PUBLIC - 1), &t, "C", j);
    }
  }
  /* H[i] = L'_{2i+1}(tau) / delta on the domain of size 2n */
  for (uint64_t i = 0; i < n; i++) {
    fr h;
    lagrange_naive(&h, 2 * i + 1, 2 * n, &w2, &tau);
    bls12_381_fr_mul(&h, &h, &dinv);
    CHECK_G1(zk.h + 96 * i, &h, "H", i);
  }
  (void)p1;
  zkey_close(&zk);
  free(L);
  free(col);
  tmpdir_free(dir);
}

TEST(key_points_equal_naive_2_to_5) {
  for (unsigned lg = 2; lg <= 5; lg++) key_equals_naive(lg, 0);
}
TEST(key_points_equal_naive_6_narrow_windows) { key_equals_naive(6, 3); }

/* Prove with the repo's prover (which verifies before returning), verify
 * again explicitly, then tamper one witness value and expect UNSATISFIED. */
static void prove_and_tamper(const char *dir, uint64_t N, uint64_t tamper_wire) {
  char z[512], w[512];
  snprintf(z, sizeof z, "%s/circuit.zkey", dir);
  snprintf(w, sizeof w, "%s/witness.wtns", dir);
  check_witness_satisfies(w, N);
  zkey_file zk;
  wtns_file wt;
  cuzk_err err = {0};
  CHECK_MSG(zkey_open(&zk, z, &err) == CUZK_OK, "%s", err.msg);
  CHECK_MSG(wtns_open(&wt, w, &err) == CUZK_OK, "%s", err.msg);
  backend *be = backend_cpu_new(2);
  CHECK(be);
  groth16_proof proof;
  cuzk_status st = groth16_prove_zkey(&proof, &zk, &wt, be, NULL, NULL, &err);
  CHECK_MSG(st == CUZK_OK, "prove: %s", err.msg);
  groth16_vk vk;
  CHECK(zkey_read_vk(&zk, &vk, &err) == CUZK_OK);
  limb_t pub[KEYGEN_CHAIN_PUBLIC][4];
  for (int i = 0; i < KEYGEN_CHAIN_PUBLIC; i++) limbs_from_le(pub[i], wtns_value(&wt, 1 + i), 4);
  st = groth16_verify(&vk, (const limb_t(*)[4])pub, KEYGEN_CHAIN_PUBLIC, &proof, &err);
  CHECK_MSG(st == CUZK_OK, "verify: %s", err.msg);
  /* the same proof with a wrong public input fails */
  pub[1][0] ^= 1;
  CHECK(groth16_verify(&vk, (const limb_t(*)[4])pub, KEYGEN_CHAIN_PUBLIC, &proof, &err) ==
        CUZK_VERIFY_FAILED);
  groth16_vk_fini(&vk);
  wtns_close(&wt);

  /* Tamper: value of one wire += 1 (mod r stays canonical: values are < r - 1
   * with overwhelming probability; checked). */
  int fd = open(w, O_RDWR);
  CHECK(fd >= 0);
  uint8_t v[32];
  const off_t off = 76 + 32 * (off_t)tamper_wire;
  CHECK(pread(fd, v, 32, off) == 32);
  limb_t x[4];
  limbs_from_le(x, v, 4);
  x[0] += 1;
  CHECK(x[0] != 0 && limbs_lt(x, bls12_381_fr_modulus, 4));
  limbs_to_le(v, x, 4);
  CHECK(pwrite(fd, v, 32, off) == 32);
  close(fd);
  CHECK_MSG(wtns_open(&wt, w, &err) == CUZK_OK, "%s", err.msg);
  st = groth16_prove_zkey(&proof, &zk, &wt, be, NULL, NULL, &err);
  CHECK_MSG(st == CUZK_UNSATISFIED, "tampered wire %llu: prove gave %s (%s)",
            (unsigned long long)tamper_wire, cuzk_status_name(st), err.msg);
  wtns_close(&wt);
  backend_free(be);
  zkey_close(&zk);
}

TEST_TIMEOUT(keys_2_4_to_2_10_prove_and_verify, 600) {
  for (unsigned lg = 4; lg <= 10; lg++) {
    char *dir = tmpdir_new();
    keygen_chain c;
    chain(&c, lg, lg);
    gen(&c, dir, 2, 0);
    /* tamper an internal wire in the middle, or x, or the public output */
    const uint64_t nv = c.n_steps + 4;
    const uint64_t wire = lg % 3 == 0 ? nv / 2 : lg % 3 == 1 ? 3 : 1;
    prove_and_tamper(dir, c.n_steps, wire);
    tmpdir_free(dir);
  }
}

static uint8_t *slurp(const char *dir, const char *name, size_t *len) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  uint8_t *b = (uint8_t *)test_read_file(p, len);
  CHECK_MSG(b, "cannot read %s", p);
  return b;
}

/* Same bytes with 1 or 3 threads and with other window widths; another seed
 * gives another key. */
TEST(key_independent_of_threads_and_windows) {
  char *d[4] = {tmpdir_new(), tmpdir_new(), tmpdir_new(), tmpdir_new()};
  keygen_chain c, c2;
  chain(&c, 9, 77);
  chain(&c2, 9, 78);
  gen(&c, d[0], 1, 0);
  gen(&c, d[1], 3, 0);
  gen(&c, d[2], 2, 5);
  gen(&c2, d[3], 2, 0);
  size_t n0, n;
  uint8_t *z0 = slurp(d[0], "circuit.zkey", &n0), *w0 = slurp(d[0], "witness.wtns", &n);
  for (int i = 1; i < 3; i++) {
    size_t m;
    uint8_t *z = slurp(d[i], "circuit.zkey", &m);
    CHECK_EQ_INT(m, n0);
    CHECK_EQ_MEM(z, z0, n0);
    free(z);
    z = slurp(d[i], "witness.wtns", &m);
    CHECK_EQ_INT(m, n);
    CHECK_EQ_MEM(z, w0, n);
    free(z);
  }
  size_t m;
  uint8_t *z = slurp(d[3], "circuit.zkey", &m);
  CHECK(m == n0 && memcmp(z + 100, z0 + 100, n0 - 100) != 0);
  free(z);
  free(z0);
  free(w0);
  for (int i = 0; i < 4; i++) tmpdir_free(d[i]);
}

/* Errors: an unwritable destination leaves nothing behind (no file under
 * either name, no temporary). */
TEST(keygen_write_errors) {
  keygen_chain c;
  chain(&c, 4, 1);
  cuzk_err err = {0};
  CHECK(keygen_chain_write(&c, "/nonexistent-dir/circuit.zkey", "/nonexistent-dir/w.wtns", NULL,
                           NULL, &err) == CUZK_IO);
  CHECK_MSG(strstr(err.msg, "/nonexistent-dir/circuit.zkey: cannot create a temporary file in /nonexistent-dir/"),
            "%s", err.msg);
  char *dir = tmpdir_new();
  char z[512], w[512];
  snprintf(z, sizeof z, "%s/circuit.zkey", dir);
  snprintf(w, sizeof w, "%s/nodir/witness.wtns", dir);
  CHECK(keygen_chain_write(&c, z, w, NULL, NULL, &err) == CUZK_IO);
  CHECK(access(z, F_OK) != 0);
  CHECK_EQ_INT(test_dir_entries(dir), 0);
  /* A file size limit (this test runs in its own process): EFBIG, and no
   * file left under either name. */
  snprintf(z, sizeof z, "%s/circuit.zkey", dir);
  snprintf(w, sizeof w, "%s/witness.wtns", dir);
  CHECK(keygen_chain_zkey_bytes(c.n_steps) > 4096);
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit rl, old;
  CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
  rl = old;
  rl.rlim_cur = 4096;
  CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0);
  CHECK(keygen_chain_write(&c, z, w, NULL, NULL, &err) == CUZK_IO);
  CHECK_MSG(strstr(err.msg, "/.circuit.zkey.") && strstr(err.msg, "too large"), "%s", err.msg);
  CHECK(access(z, F_OK) != 0 && access(w, F_OK) != 0);
  CHECK_EQ_INT(test_dir_entries(dir), 0);
  CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
  keygen_chain bad = c;
  memset(bad.tau, 0, sizeof bad.tau);
  snprintf(z, sizeof z, "%s/circuit.zkey", dir);
  snprintf(w, sizeof w, "%s/witness.wtns", dir);
  CHECK(keygen_chain_write(&bad, z, w, NULL, NULL, &err) == CUZK_INVALID_ARGUMENT);
  tmpdir_free(dir);
}

/* N = 1000, x = 5, y = 9 against circom + snarkjs's chain_1k: the coefficient
 * section and the witness byte for byte. */
TEST(chain_1k_matches_circom_and_snarkjs) {
  char fx[512];
  snprintf(fx, sizeof fx, "%s/build/oracle/chain_1k", test_srcdir());
  char zp[600], wp[600];
  snprintf(zp, sizeof zp, "%s/circuit.zkey", fx);
  snprintf(wp, sizeof wp, "%s/witness.wtns", fx);
  if (access(zp, R_OK) != 0 || access(wp, R_OK) != 0)
    TEST_SKIP("no %s (run tests/oracle/make_fixtures.sh build/oracle)", fx);
  keygen_chain c;
  cuzk_err err = {0};
  CHECK(keygen_chain_from_seed(&c, 1000, 5, &err) == CUZK_OK);
  memset(c.x, 0, 32), c.x[0] = 5;
  memset(c.y, 0, 32), c.y[0] = 9;
  char *dir = tmpdir_new();
  gen(&c, dir, 2, 0);
  check_witness_satisfies(wp, 1000);
  size_t n1, n2;
  uint8_t *w1 = slurp(dir, "witness.wtns", &n1), *w2 = (uint8_t *)test_read_file(wp, &n2);
  CHECK(w2);
  CHECK_EQ_INT(n1, n2);
  CHECK_EQ_MEM(w1, w2, n1);
  zkey_file a, b;
  char z[512];
  snprintf(z, sizeof z, "%s/circuit.zkey", dir);
  CHECK(zkey_open(&a, z, &err) == CUZK_OK);
  CHECK(zkey_open(&b, zp, &err) == CUZK_OK);
  CHECK_EQ_INT(a.n_vars, b.n_vars);
  CHECK_EQ_INT(a.domain_size, b.domain_size);
  CHECK_EQ_INT(a.n_coefs, b.n_coefs);
  CHECK_EQ_MEM(a.coefs, b.coefs, a.n_coefs * ZKEY_COEF_BYTES);
  zkey_close(&a);
  zkey_close(&b);
  free(w1);
  free(w2);
  tmpdir_free(dir);
}
