/* .wtns reader: see wtns.h. */
#include "groth16/wtns.h"

#include <string.h>

#include "base/bytes.h"
#include "ff/bls12_381.h"

typedef unsigned long long ull;

static cuzk_status wtns_parse(wtns_file *w, bool values, cuzk_err *err);

cuzk_status wtns_open(wtns_file *w, const char *path, cuzk_err *err) {
  memset(w, 0, sizeof *w);
  CUZK_TRY(binfile_open(&w->bf, path, "wtns", 2, 2, err));
  return wtns_parse(w, true, err);
}

cuzk_status wtns_open_mem(wtns_file *w, const void *data, size_t len, const char *name,
                          cuzk_err *err) {
  memset(w, 0, sizeof *w);
  CUZK_TRY(binfile_open_mem(&w->bf, data, len, name, "wtns", 2, 2, err));
  return wtns_parse(w, true, err);
}

/* Sections 1 and 2 of the opened container; closes it on failure. */
static cuzk_status wtns_parse(wtns_file *w, bool values, cuzk_err *err) {
  const binfile *f = &w->bf;
  const binfile_section *s1, *s2;
  cuzk_status st;
  if ((st = binfile_section_get(f, 1, "header", true, &s1, err)) != CUZK_OK ||
      (st = binfile_section_get(f, 2, "witness", true, &s2, err)) != CUZK_OK)
    goto fail;

  binfile_cur c;
  binfile_cur_init(&c, f, s1, "header");
  uint32_t n_witness;
  if ((st = binfile_cur_prime(&c, "n8", "prime", &w->n8, w->prime, err)) != CUZK_OK ||
      (st = binfile_cur_u32(&c, "nWitness", &n_witness, err)) != CUZK_OK ||
      (st = binfile_cur_end(&c, err)) != CUZK_OK)
    goto fail;
  w->n_witness = n_witness;
  w->prime_id = binfile_prime_identify(w->prime, w->n8);

  /* n8 <= 64 and nWitness < 2^32: the product fits easily in 64 bits. */
  uint64_t want = (uint64_t)w->n8 * w->n_witness;
  if (s2->size != want) {
    st = binfile_fail(f, s2, "witness", err, CUZK_FORMAT,
                      "size %llu bytes, expected %llu (nWitness %llu x n8 %u)", (ull)s2->size,
                      (ull)want, (ull)w->n_witness, w->n8);
    goto fail;
  }
  w->values = binfile_data(f, s2);
  w->values_at = s2->offset;
  for (uint64_t i = 0; values && i < w->n_witness; i++) {
    if (!binfile_lt_prime(wtns_value(w, i), w->prime, w->n8)) {
      st = binfile_fail(f, s2, "witness", err, CUZK_FORMAT,
                        "value %llu at offset %llu is not below the prime (%s): values must be "
                        "canonical",
                        (ull)i, (ull)(s2->offset + i * w->n8), binfile_prime_name(w->prime_id));
      goto fail;
    }
  }
  return CUZK_OK;
fail:
  wtns_close(w);
  return st;
}

cuzk_status wtns_open_fd_header(wtns_file *w, int fd, const char *name, cuzk_err *err) {
  memset(w, 0, sizeof *w);
  CUZK_TRY(binfile_open_fd(&w->bf, fd, name, "wtns", 2, 2, err));
  cuzk_status st = wtns_parse(w, false, err);
  if (st == CUZK_OK)
    binfile_close(&w->bf); /* keeps the counts, the prime and values_at */
  w->values = NULL;
  return st;
}

void wtns_close(wtns_file *w) {
  binfile_close(&w->bf);
  w->values = NULL;
}

cuzk_status wtns_check_curve(const wtns_file *w, cuzk_err *err) {
  const char *path = binfile_path(&w->bf);
  switch (w->prime_id) {
  case BINFILE_PRIME_BLS12_381_R:
    return CUZK_OK;
  case BINFILE_PRIME_BN254_R:
    return cuzk_err_set(err, CUZK_UNSUPPORTED,
                        "%s: the witness prime is BN254's r: BN254 is not supported yet "
                        "(cuzk proves BLS12-381 only)",
                        path);
  default: {
    char dec[20 * BINFILE_MAX_LIMBS + 1];
    binfile_prime_dec(dec, w->prime, w->n8);
    return cuzk_err_set(err, CUZK_UNSUPPORTED,
                        "%s: the witness prime %s (%u bytes, %s) is not BLS12-381's r, the "
                        "only field cuzk supports",
                        path, dec, w->n8, binfile_prime_name(w->prime_id));
  }
  }
}

void wtns_bls_header(uint8_t h[WTNS_BLS_HEADER_BYTES], uint32_t n) {
  memcpy(h, "wtns", 4);
  wr_u32le(h + 4, 2);  /* version */
  wr_u32le(h + 8, 2);  /* sections */
  wr_u32le(h + 12, 1); /* section 1: n8, prime, nWitness */
  wr_u64le(h + 16, 40);
  wr_u32le(h + 24, 32);
  limbs_to_le(h + 28, bls12_381_fr_modulus, 4);
  wr_u32le(h + 60, n);
  wr_u32le(h + 64, 2); /* section 2: the values */
  wr_u64le(h + 68, 32 * (uint64_t)n);
}
