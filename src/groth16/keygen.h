/* An INSECURE Groth16 key generator for benchmarks and tests: the snarkjs
 * .zkey (docs/FORMATS.md §3) and a satisfying .wtns (§2) of a synthetic
 * circuit of any size, with the toxic waste taken from a seed.
 *
 * The circuit is tests/oracle/circuits/chain.circom with N steps, laid out as
 * circom lays it out (wire 0 = one, 1 = out, 2 = y (public input), 3 = x
 * (private, also s[0]), 3 + k = s[k] for k = 1..N), so nVars = N + 4,
 * nConstraints = N + 1, nPublic = 2, and the domain is the smallest power of
 * two above N + 3; N = 2^K - 4 fills the domain 2^K exactly.  Constraint i
 * is, with circom's signs (A and C negated) and term order:
 *     i <  N even:  -(s[i] + i) * (x + s[i]) = -s[i+1]      (i = 0: -x * 2x)
 *     i <  N odd:   (1 - s[i]) * (i + y)     = -s[i+1]
 *     i =  N:       -s[N] * y                = -out
 * For N = 1000 the coefficient section and the witness (x = 5, y = 9) are
 * byte-identical to circom + snarkjs's chain_1k.
 *
 * The key (docs/FORMATS.md §3.3): with L_i the Lagrange basis of the domain of
 * size n at tau and A_j, B_j, C_j the circuit's columns evaluated at tau,
 *     A[j] = [A_j]1, B1[j] = [B_j]1, B2[j] = [B_j]2,
 *     IC[j] = [beta A_j + alpha B_j + C_j]1              (j <= 2, gamma = 1)
 *     C[j]  = [(beta A_j + alpha B_j + C_j)/delta]1      (j >= 3)
 *     H[i]  = [L'_{2i+1}(tau)/delta]1  (L' the basis of the size-2n domain)
 * with L_i(tau) = w^i (tau^n - 1) / (n (tau - w^i)), roots from snarkjs's
 * chain (5^t, docs/FORMATS.md §3.4).  Every point is a fixed-base comb product
 * (keygen_comb_tmpl.h).  Section 10 holds a csHash derived from the seed and
 * no contributions.
 *
 * DESIGN: nothing is held per wire: each section is cut into chunks that
 * workers (base/par.h) take from an atomic counter; a chunk's scalars come
 * from the Lagrange values of the few rows its wires touch (wire 3 + k, k >= 1,
 * appears only in rows k - 1 and k; the sums for wires 0..3, which touch
 * every row, are made once in the setup stage), its points go straight into
 * the output file with pwrite at their final offsets.  Memory is the comb
 * tables (~150 MiB at 16-bit windows) plus ~2 MiB per worker, whatever the
 * size.  Files are written as new temporaries beside the targets and
 * renamed over them only when complete (base/fileio.h; a symbolic link is
 * followed, a device or FIFO refused: the writer reads back); on failure
 * the temporaries are removed.  The result does not depend on the
 * thread count (exact arithmetic). */
#ifndef CUZK_GROTH16_KEYGEN_H
#define CUZK_GROTH16_KEYGEN_H

#include <stdint.h>

#include "base/err.h"
#include "ec/ec_batch.h"

/* ------------------------------------------------- fixed-base comb */

#define EC_TMPL "groth16/keygen_comb_tmpl.h"
#include "ec/groups.h"

/* W = ceil(256 / bits), the windows of a comb. */
static inline unsigned keygen_comb_windows(unsigned bits) { return (256 + bits - 1) / bits; }
/* Signed digits of k < 2^255 (msm_digit, msm/window.h): out[w stride] = d_w,
 * k = sum_w d_w 2^(bits w), d_w in [-2^(bits-1), 2^(bits-1)], for
 * w < W = keygen_comb_windows(bits). */
void keygen_comb_recode(int32_t *out, size_t stride, const limb_t k[4], unsigned bits, unsigned W);

/* The comb window width for a generator multiplied by `points` scalars:
 * the least table build plus use, counted in additions (keygen.c). */
unsigned keygen_comb_pick_bits(uint64_t points);

/* The seeded generators' stream (splitmix64 over *state) and a uniform
 * non-zero scalar k < r drawn from it by rejection on 255 bits: INSECURE
 * by design, for development keys only. */
uint64_t keygen_splitmix64(uint64_t *state);
void keygen_draw_scalar(limb_t k[4], uint64_t *state);

/* ------------------------------------------------- the chain circuit */

#define KEYGEN_CHAIN_PUBLIC 2 /* out, y */
/* Steps whose domain is 2^lg: N = 2^lg - 4. */
#define KEYGEN_CHAIN_STEPS(lg) (((uint64_t)1 << (lg)) - 4)
#define KEYGEN_MAX_LG 28

typedef struct {
  uint32_t wire;
  int64_t coef;
} keygen_term;

/* One constraint: A, B and C terms in circom's order. */
typedef struct {
  keygen_term a[2], b[2], c[1];
  unsigned na, nb, nc;
} keygen_row;

/* Constraint i (0 <= i <= n_steps) of the chain with n_steps steps. */
void keygen_chain_row(keygen_row *row, uint64_t n_steps, uint64_t i);
/* Entries of the coefficient section (docs/FORMATS.md §3.2) before row i, for
 * 0 <= i <= n_steps + 4 (rows n_steps+1 .. n_steps+3 are the input rows);
 * i = n_steps + 4 gives nCoefs. */
uint64_t keygen_chain_coefs_before(uint64_t n_steps, uint64_t i);
/* log2 of the domain: the smallest power of two above n_steps + 3. */
unsigned keygen_chain_lg_domain(uint64_t n_steps);
/* Sizes of the files keygen_chain_write makes. */
uint64_t keygen_chain_zkey_bytes(uint64_t n_steps);
uint64_t keygen_chain_wtns_bytes(uint64_t n_steps);

/* A key's secrets and the witness's inputs, all canonical limbs < r. */
typedef struct {
  uint64_t n_steps;
  limb_t x[4], y[4];                          /* private x, public y */
  limb_t tau[4], alpha[4], beta[4], delta[4]; /* toxic waste, non-zero */
  uint8_t cs_hash[64];                        /* section 10's csHash */
} keygen_chain;

/* Draws everything from `seed` (splitmix64; INSECURE by design: anyone who
 * knows the seed can forge proofs), redrawing tau while it lies in the size-2n
 * domain.  CUZK_INVALID_ARGUMENT when the domain would exceed 2^28. */
cuzk_status keygen_chain_from_seed(keygen_chain *c, uint64_t n_steps, uint64_t seed, cuzk_err *err);

/* ------------------------------------------------- writing the files */

enum {
  KEYGEN_STAGE_TABLES,  /* comb tables for G1 and G2 */
  KEYGEN_STAGE_SETUP,   /* sums over all rows for wires 0..3, header, IC */
  KEYGEN_STAGE_A,
  KEYGEN_STAGE_B1,
  KEYGEN_STAGE_B2,
  KEYGEN_STAGE_C,
  KEYGEN_STAGE_H,
  KEYGEN_STAGE_COEFS,   /* section 4 */
  KEYGEN_STAGE_WITNESS, /* the .wtns */
  KEYGEN_NSTAGES
};
extern const char *const keygen_stage_names[KEYGEN_NSTAGES];

typedef struct {
  unsigned threads;      /* 0 = par_threads() */
  unsigned comb_bits[2]; /* G1, G2 window widths; 0 = chosen from the size */
  /* Called from one thread at a time: at the start of each stage (done = 0),
   * about every 0.25 s during it and at its end (done = total).  May be NULL. */
  void (*progress)(void *ctx, int stage, uint64_t done, uint64_t total, double elapsed_s);
  void *progress_ctx;
} keygen_opts;

typedef struct {
  double stage_s[KEYGEN_NSTAGES];
  double total_s;
  unsigned comb_bits[2];
  uint64_t zkey_bytes, wtns_bytes;
} keygen_timings;

/* Writes the key to zkey_path and the witness to wtns_path (each via a
 * temporary, renamed at the end).  Errors: CUZK_IO naming the file, the
 * operation and the offset (nothing is left under either name, nor a
 * temporary);
 * CUZK_NO_MEMORY; CUZK_INVALID_ARGUMENT for a chain c that from_seed would
 * not make.  o and tm may be NULL. */
cuzk_status keygen_chain_write(const keygen_chain *c, const char *zkey_path, const char *wtns_path,
                               const keygen_opts *o, keygen_timings *tm, cuzk_err *err);

#endif
