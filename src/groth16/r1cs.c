/* .r1cs reader and witness checker: see r1cs.h for the invariants. */
#include "groth16/r1cs.h"

#include <string.h>

#include "ff/bls12_381.h"

typedef unsigned long long ull;

static const char *const lc_name[3] = {"A", "B", "C"};

/* Section 2: mConstraints records of three linear combinations, each
 * {u32 nTerms, nTerms x {u32 wire, fs-byte coefficient}}.  Every read is
 * bounds-checked against the section; nTerms * (4 + fs) < 2^32 * 68 cannot
 * overflow 64 bits. */
static cuzk_status walk_constraints(r1cs_file *r, const binfile_section *s, cuzk_err *err) {
  const binfile *f = &r->bf;
  const uint8_t *base = binfile_data(f, s);
  const uint64_t size = s->size, stride = 4 + (uint64_t)r->fs;
  uint64_t pos = 0, n_terms = 0;
  for (uint32_t i = 0; i < r->n_constraints; i++) {
    for (int l = 0; l < 3; l++) {
      if (size - pos < 4)
        return binfile_fail(f, s, "constraints", err, CUZK_FORMAT,
                            "constraint %u of %u, %s nTerms at offset %llu: needs 4 bytes, "
                            "%llu left (mConstraints = %u)",
                            i, r->n_constraints, lc_name[l], (ull)(s->offset + pos),
                            (ull)(size - pos), r->n_constraints);
      uint32_t nt = rd_u32le(base + pos);
      pos += 4;
      uint64_t need = nt * stride;
      if (need > size - pos)
        return binfile_fail(f, s, "constraints", err, CUZK_FORMAT,
                            "constraint %u, %s: %u terms at offset %llu need %llu bytes, %llu "
                            "left",
                            i, lc_name[l], nt, (ull)(s->offset + pos), (ull)need,
                            (ull)(size - pos));
      for (uint32_t k = 0; k < nt; k++, pos += stride) {
        uint32_t wire = rd_u32le(base + pos);
        if (wire >= r->n_wires)
          return binfile_fail(f, s, "constraints", err, CUZK_FORMAT,
                              "constraint %u, %s term %u at offset %llu: wire %u, expected < "
                              "nWires %u",
                              i, lc_name[l], k, (ull)(s->offset + pos), wire, r->n_wires);
        if (!binfile_lt_prime(base + pos + 4, r->prime, r->fs))
          return binfile_fail(f, s, "constraints", err, CUZK_FORMAT,
                              "constraint %u, %s term %u: coefficient at offset %llu is not "
                              "below the prime (%s)",
                              i, lc_name[l], k, (ull)(s->offset + pos + 4),
                              binfile_prime_name(r->prime_id));
      }
      n_terms += nt;
    }
  }
  if (pos != size)
    return binfile_fail(f, s, "constraints", err, CUZK_FORMAT,
                        "size %llu bytes, but the %u constraints end after %llu (%llu trailing "
                        "bytes)",
                        (ull)size, r->n_constraints, (ull)pos, (ull)(size - pos));
  r->n_terms = n_terms;
  return CUZK_OK;
}

/* Section 4: u32 M, then M x {NUL-terminated name, u32 nParams, nParams x fs}. */
static cuzk_status walk_gate_list(r1cs_file *r, const binfile_section *s, cuzk_err *err) {
  const binfile *f = &r->bf;
  binfile_cur c;
  binfile_cur_init(&c, f, s, "custom gates list");
  CUZK_TRY(binfile_cur_u32(&c, "M (template count)", &r->n_custom_gates, err));
  const uint8_t *base = binfile_data(f, s);
  for (uint32_t i = 0; i < r->n_custom_gates; i++) {
    const uint8_t *nul = memchr(base + c.pos, 0, (size_t)(s->size - c.pos));
    if (!nul)
      return binfile_fail(f, s, "custom gates list", err, CUZK_FORMAT,
                          "template %u's name at offset %llu has no NUL terminator before the "
                          "end of the section",
                          i, (ull)(s->offset + c.pos));
    c.pos = (uint64_t)(nul - base) + 1;
    uint32_t np;
    const uint8_t *p;
    CUZK_TRY(binfile_cur_u32(&c, "nParams", &np, err));
    CUZK_TRY(binfile_cur_take(&c, (uint64_t)np * r->fs, "template parameters", &p, err));
  }
  return binfile_cur_end(&c, err);
}

/* Section 5: u32 N, then N x {u32 gateIndex, u32 nSignals, nSignals x u64}. */
static cuzk_status walk_gate_uses(r1cs_file *r, const binfile_section *s, cuzk_err *err) {
  binfile_cur c;
  binfile_cur_init(&c, &r->bf, s, "custom gates applications");
  CUZK_TRY(binfile_cur_u32(&c, "N (application count)", &r->n_custom_gate_uses, err));
  for (uint32_t i = 0; i < r->n_custom_gate_uses; i++) {
    uint32_t gate, ns;
    const uint8_t *p;
    CUZK_TRY(binfile_cur_u32(&c, "gateIndex", &gate, err));
    if (gate >= r->n_custom_gates)
      return binfile_fail(&r->bf, s, "custom gates applications", err, CUZK_FORMAT,
                          "application %u: gateIndex %u, expected < %u templates", i, gate,
                          r->n_custom_gates);
    CUZK_TRY(binfile_cur_u32(&c, "nSignals", &ns, err));
    CUZK_TRY(binfile_cur_take(&c, (uint64_t)ns * 8, "signals", &p, err));
  }
  return binfile_cur_end(&c, err);
}

static cuzk_status r1cs_parse(r1cs_file *r, cuzk_err *err);

cuzk_status r1cs_open(r1cs_file *r, const char *path, cuzk_err *err) {
  memset(r, 0, sizeof *r);
  CUZK_TRY(binfile_open(&r->bf, path, "r1cs", 1, 1, err));
  return r1cs_parse(r, err);
}

cuzk_status r1cs_open_mem(r1cs_file *r, const void *data, size_t len, const char *name,
                          cuzk_err *err) {
  memset(r, 0, sizeof *r);
  CUZK_TRY(binfile_open_mem(&r->bf, data, len, name, "r1cs", 1, 1, err));
  return r1cs_parse(r, err);
}

/* Every check of r1cs.h over the opened container; closes it on failure. */
static cuzk_status r1cs_parse(r1cs_file *r, cuzk_err *err) {
  const binfile *f = &r->bf;
  const binfile_section *s1, *s2, *s3, *s4, *s5;
  cuzk_status st;
  if ((st = binfile_section_get(f, 1, "header", true, &s1, err)) != CUZK_OK ||
      (st = binfile_section_get(f, 2, "constraints", true, &s2, err)) != CUZK_OK ||
      (st = binfile_section_get(f, 3, "wire-to-label map", false, &s3, err)) != CUZK_OK ||
      (st = binfile_section_get(f, 4, "custom gates list", false, &s4, err)) != CUZK_OK ||
      (st = binfile_section_get(f, 5, "custom gates applications", false, &s5, err)) != CUZK_OK)
    goto fail;

  binfile_cur c;
  binfile_cur_init(&c, f, s1, "header");
  if ((st = binfile_cur_prime(&c, "fs", "prime", &r->fs, r->prime, err)) != CUZK_OK ||
      (st = binfile_cur_u32(&c, "nWires", &r->n_wires, err)) != CUZK_OK ||
      (st = binfile_cur_u32(&c, "nPubOut", &r->n_pub_out, err)) != CUZK_OK ||
      (st = binfile_cur_u32(&c, "nPubIn", &r->n_pub_in, err)) != CUZK_OK ||
      (st = binfile_cur_u32(&c, "nPrvIn", &r->n_prv_in, err)) != CUZK_OK ||
      (st = binfile_cur_u64(&c, "nLabels", &r->n_labels, err)) != CUZK_OK ||
      (st = binfile_cur_u32(&c, "mConstraints", &r->n_constraints, err)) != CUZK_OK ||
      (st = binfile_cur_end(&c, err)) != CUZK_OK)
    goto fail;
  r->prime_id = binfile_prime_identify(r->prime, r->fs);
  uint64_t io = 1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
  if (io > r->n_wires) {
    st = binfile_fail(f, s1, "header", err, CUZK_FORMAT,
                      "nWires %u, expected at least 1 + nPubOut %u + nPubIn %u + nPrvIn %u = %llu",
                      r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in, (ull)io);
    goto fail;
  }

  if ((st = walk_constraints(r, s2, err)) != CUZK_OK)
    goto fail;
  r->constraints = binfile_data(f, s2);
  r->constraints_size = s2->size;

  if (s3) {
    uint64_t want = (uint64_t)r->n_wires * 8;
    if (s3->size != want) {
      st = binfile_fail(f, s3, "wire-to-label map", err, CUZK_FORMAT,
                        "size %llu bytes, expected %llu (nWires %u x 8)", (ull)s3->size,
                        (ull)want, r->n_wires);
      goto fail;
    }
    r->wire_map = binfile_data(f, s3);
  }
  r->has_custom_gates = s4 || s5;
  if (s4 && (st = walk_gate_list(r, s4, err)) != CUZK_OK)
    goto fail;
  if (s5 && (st = walk_gate_uses(r, s5, err)) != CUZK_OK)
    goto fail;
  return CUZK_OK;
fail:
  r1cs_close(r);
  return st;
}

void r1cs_close(r1cs_file *r) {
  binfile_close(&r->bf);
  r->constraints = NULL;
  r->wire_map = NULL;
}

cuzk_status r1cs_require_groth16(const r1cs_file *r, cuzk_err *err) {
  if (r->has_custom_gates)
    return cuzk_err_set(err, CUZK_UNSUPPORTED,
                        "%s: sections 4/5 (custom gates: %u templates, %u applications) are "
                        "present: this is a PLONK circuit, Groth16 cannot use it",
                        binfile_path(&r->bf), r->n_custom_gates, r->n_custom_gate_uses);
  return CUZK_OK;
}

void r1cs_iter_init(r1cs_iter *it, const r1cs_file *r) {
  it->r = r;
  it->pos = 0;
  it->next = 0;
}

/* No bounds checks: r1cs_open validated every record. */
bool r1cs_iter_next(r1cs_iter *it, r1cs_constraint *out) {
  const r1cs_file *r = it->r;
  if (it->next >= r->n_constraints)
    return false;
  r1cs_lc *lcs[3] = {&out->a, &out->b, &out->c};
  for (int l = 0; l < 3; l++) {
    const uint8_t *p = r->constraints + it->pos;
    lcs[l]->n_terms = rd_u32le(p);
    lcs[l]->terms = p + 4;
    it->pos += 4 + (uint64_t)lcs[l]->n_terms * (4 + r->fs);
  }
  it->next++;
  return true;
}

/* sum_k coef_k * w[wire_k], returned in Montgomery form.
 * Coefficients c and witness values w are canonical.  Per term:
 *   t = from_canon(c) = c*R          (1 mul)
 *   t = mont_mul(t, w) = c*R*w/R = c*w  (1 mul; canonical limbs of c*w)
 *   acc += t                          (addition is the same in any form)
 * so acc ends as the canonical sum, converted once at the end (1 mul). */
static void lc_eval(bls12_381_fr *out, const r1cs_file *r, const wtns_file *w, const r1cs_lc *lc) {
  bls12_381_fr acc, t, wv;
  bls12_381_fr_set_zero(&acc);
  for (uint32_t k = 0; k < lc->n_terms; k++) {
    limb_t c[4];
    limbs_from_le(c, r1cs_term_coef(r, lc, k), 4);
    limbs_from_le(wv.l, wtns_value(w, r1cs_term_wire(r, lc, k)), 4);
    bls12_381_fr_from_canon(&t, c);
    bls12_381_fr_mul(&t, &t, &wv);
    bls12_381_fr_add(&acc, &acc, &t);
  }
  bls12_381_fr_from_canon(out, acc.l);
}

cuzk_status r1cs_check_witness(const r1cs_file *r, const wtns_file *w, size_t *bad_constraint,
                               cuzk_err *err) {
  const char *rp = binfile_path(&r->bf), *wp = binfile_path(&w->bf);
  if (bad_constraint)
    *bad_constraint = 0;
  CUZK_TRY(r1cs_require_groth16(r, err));
  if (r->prime_id != BINFILE_PRIME_BLS12_381_R)
    return cuzk_err_set(err, CUZK_UNSUPPORTED,
                        "%s: the circuit's prime (%u bytes, %s) is not BLS12-381's r%s", rp, r->fs,
                        binfile_prime_name(r->prime_id),
                        r->prime_id == BINFILE_PRIME_BN254_R ? ": BN254 is not supported yet" : "");
  if (w->n8 != r->fs || memcmp(w->prime, r->prime, r->fs) != 0)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: the witness prime (%u bytes, %s) differs from the prime of %s (%s)",
                        wp, w->n8, binfile_prime_name(w->prime_id), rp,
                        binfile_prime_name(r->prime_id));
  if (w->n_witness != r->n_wires)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                        "%s: nWitness %llu, expected nWires %u of %s", wp, (ull)w->n_witness,
                        r->n_wires, rp);
  /* n_wires >= 1 (open checked 1 + inputs <= nWires), so w[0] exists. */
  static const uint8_t one[32] = {1};
  if (memcmp(wtns_value(w, 0), one, 32) != 0) {
    if (bad_constraint)
      *bad_constraint = SIZE_MAX;
    return cuzk_err_set(err, CUZK_UNSATISFIED,
                        "%s: value 0 is not 1 (wire 0 is the constant one)", wp);
  }

  r1cs_iter it;
  r1cs_constraint k;
  r1cs_iter_init(&it, r);
  for (size_t i = 0; r1cs_iter_next(&it, &k); i++) {
    bls12_381_fr a, b, c;
    lc_eval(&a, r, w, &k.a);
    lc_eval(&b, r, w, &k.b);
    lc_eval(&c, r, w, &k.c);
    bls12_381_fr_mul(&a, &a, &b);
    if (!bls12_381_fr_eq(&a, &c)) {
      if (bad_constraint)
        *bad_constraint = i;
      return cuzk_err_set(err, CUZK_UNSATISFIED,
                          "%s does not satisfy %s: constraint %zu of %u fails (A*B != C)", wp,
                          rp, i, r->n_constraints);
    }
  }
  return CUZK_OK;
}
