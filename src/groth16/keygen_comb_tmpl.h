/* Fixed-base scalar multiplication by a signed-digit comb, written once for
 * G1 and G2 (include with EC and EC_F as for ec/ec_tmpl.h; instantiated in
 * groth16/keygen.h, bodies in keygen_comb_impl.h).
 *
 * A key generator multiplies one generator G by millions of scalars.  With
 * c-bit windows, W = ceil(256/c) of them, a scalar k < 2^255 is recoded as
 * k = sum_w d_w 2^(c w) with signed digits d_w in [-2^(c-1), 2^(c-1)]
 * (msm_digit, msm/window.h: the MSMs' recoding), so that
 *
 *     k G = sum_w d_w (2^(c w) G) = sum_w sign(d_w) T[w][|d_w|],
 *     T[w][d] = d 2^(c w) G,  d = 1 .. 2^(c-1)      (W 2^(c-1) points)
 *
 * which is W - 1 additions and no doublings.  cW >= 256 > log2(k) + 1 makes
 * the digits sum to k (the top window's top bit is zero).
 * The additions of many scalars run side by side in affine coordinates
 * (ec_batch_tmpl.h): round w adds T[w][|d_w|] to every accumulator with one
 * shared inversion, so each addition costs about 6M + 1/n of an inversion.
 *
 * DESIGN: the table is immutable after comb_init, so any number of threads
 * may call comb_mul on it at once, each with its own scratch.  comb_init
 * builds it level by level: T[w][2^m + e] = T[w][2^m] + T[w][e] for
 * e = 1 .. 2^m (e = 2^m is the doubling), all W 2^m additions of a level in
 * batch-affine form spread over threads.  Ownership: the comb owns t
 * (comb_fini frees it); the caller owns the scratch of comb_mul.
 * Variable time: for public (or, as in an insecure test key, known) scalars. */

#define C_CAT2(a, b) a##b
#define C_CAT(a, b) C_CAT2(a, b)
#define C_FN(name) C_CAT(EC, C_CAT(_, name))
#define C_T(name) C_CAT(EC, C_CAT(_, name))

typedef struct {
  unsigned bits;    /* c, the window width, 2..20 */
  unsigned windows; /* W = ceil(256 / c) */
  size_t half;      /* 2^(c-1), entries per window */
  C_T(aff) * t;     /* W x half: t[w half + d - 1] = d 2^(c w) G; owned */
} C_T(comb);

/* Builds the table for generator g (not infinity) with `bits`-bit windows
 * using `threads` workers (0 = par_threads()).  CUZK_INVALID_ARGUMENT for
 * bits outside 2..20, CUZK_NO_MEMORY when the W 2^(bits-1) points cannot be
 * allocated (cb is then empty and comb_fini harmless). */
cuzk_status C_FN(comb_init)(C_T(comb) * cb, const C_T(aff) * g, unsigned bits, unsigned threads,
                            cuzk_err *err);
void C_FN(comb_fini)(C_T(comb) * cb);

/* Bytes of scratch comb_mul needs for n scalars. */
size_t C_FN(comb_scratch_sizeof)(const C_T(comb) * cb, size_t n);

/* r[i] = k[i] G for n scalars, each 4 little-endian limbs below 2^255
 * (canonical Fr values); zero gives infinity.  scratch: comb_scratch_sizeof
 * bytes, 8-byte aligned.  Cost: n (W-1) batch-affine additions, W-1
 * inversions. */
void C_FN(comb_mul)(const C_T(comb) * cb, C_T(aff) * r, const limb_t (*k)[4], size_t n,
                    void *scratch);

/* The reference: the same results by double-and-add from the table's
 * generator t[0] (ec jac_mul_vartime), one point at a time. */
void C_FN(comb_mul_ref)(const C_T(comb) * cb, C_T(aff) * r, const limb_t (*k)[4], size_t n,
                        void *scratch);

#undef C_CAT2
#undef C_CAT
#undef C_FN
#undef C_T
