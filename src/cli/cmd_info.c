/* `cuzk info <file>`: describes a .r1cs, .wtns, .zkey or PCE .bin file
 * (found by its magic, whatever the file is called), a snarkjs JSON file
 * (proof, verification key, public signals; sniffed from the text), or a
 * bellperson file, which has no magic: a .vk or .params by its extension,
 * proof bytes as a .bin without a known magic.  The binary
 * readers validate the whole structure, so a file that `info` describes is
 * one the prover accepts; a malformed one exits 2 with the reader's message. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/par.h"
#include "cli/cli.h"
#include "groth16/bp.h"
#include "groth16/json.h"
#include "groth16/pce.h"
#include "groth16/verify.h"
#include "groth16/r1cs.h"
#include "groth16/wtns.h"
#include "groth16/zkey.h"

typedef unsigned long long ull;

static void usage(FILE *f) {
  fprintf(f,
          "usage: cuzk info [options] <file>\n"
          "\n"
          "Describes a circom/snarkjs file: .r1cs (circuit), .wtns (witness), .zkey\n"
          "(Groth16 proving key), detected by the magic bytes; Curio cuzk's PCE .bin\n"
          "(pre-compiled constraints: counts, nnz, densities, domain); or a snarkjs JSON file\n"
          "(proof.json, verification_key.json, public.json).  Binary files are fully\n"
          "validated: sizes, counts, field elements below their prime, header points\n"
          "on their curves.\n"
          "\n"
          "bellperson (Filecoin) files have no magic and are told by their names:\n"
          "*.vk a verifying key, *.params the parameters (every point on its curve and\n"
          "in its subgroup, none at infinity in ic or the vectors, the length exactly\n"
          "what the counts say), *.bin without a known magic k proofs of 192 bytes\n"
          "(compressed A | B | C, partitions concatenated).\n"
          "\n"
          "options:\n"
          "  --check-points   (.zkey) also check that every point of sections 3, 5-9 is\n"
          "                   on its curve and the header points are in their subgroups\n"
          "                   (about a second per million points per thread)\n"
          "  --threads N      threads for --check-points and bellperson files (default:\n"
          "                   all CPUs)\n"
          "  --skip-checks    (.vk, .params) a trusted file: no on-curve or subgroup checks\n"
          "  --r1cs FILE      (.wtns) also check that the witness satisfies the circuit\n"
          "  -h, --help       this text\n"
          "\n"
          "exit status: 0 described (and checks passed); 1 a check failed: the witness\n"
          "does not satisfy the circuit, a proof's points are not all on their curves and\n"
          "in their subgroups, or a verification key's alphabeta is not e(alpha, beta);\n"
          "2 bad usage or a malformed/unsupported file.\n");
}

static const char *curve_of(binfile_prime id) {
  switch (id) {
  case BINFILE_PRIME_BLS12_381_R:
  case BINFILE_PRIME_BLS12_381_Q: return "BLS12-381";
  case BINFILE_PRIME_BN254_R:
  case BINFILE_PRIME_BN254_Q: return "BN254 (not supported yet)";
  default: return "unknown";
  }
}

static void print_header(const binfile *f, const char *kind) {
  printf("%s: %s, %s version %u, %llu bytes\n", binfile_path(f), kind, f->magic, f->version,
         (ull)f->map.size);
  printf("  %-16s", "sections:");
  for (uint32_t i = 0; i < f->n_sections; i++)
    printf("%s%u (%llu B @ %llu)", i ? ", " : "", f->sections[i].id, (ull)f->sections[i].size,
           (ull)f->sections[i].offset);
  printf("%s\n", f->n_sections ? "" : "none");
  if (f->end < f->map.size)
    printf("  %-16s%llu bytes after the last section (ignored)\n", "trailing:",
           (ull)(f->map.size - f->end));
}

static void print_prime(const char *label, binfile_prime id, const limb_t *p, uint32_t n8) {
  char dec[20 * BINFILE_MAX_LIMBS + 1];
  binfile_prime_dec(dec, p, n8);
  printf("  %-16s%s (%u bytes): %s\n", label, binfile_prime_name(id), n8, dec);
}

static int fail(const cuzk_err *e) {
  fprintf(stderr, "cuzk info: %s: %s\n", cuzk_status_name(e->status), e->msg);
  return CLI_USAGE;
}

/* rc, unless f changed while it was read (mapfile.h): then what was
 * printed from it may be wrong, and the change is reported. */
static int unchanged(const binfile *f, int rc) {
  cuzk_err e = {0};
  return binfile_check(f, &e) == CUZK_OK ? rc : fail(&e);
}

static int info_r1cs(const char *path) {
  r1cs_file r;
  cuzk_err e = {0};
  if (r1cs_open(&r, path, &e) != CUZK_OK)
    return fail(&e);
  print_header(&r.bf, "circom circuit");
  printf("  %-16s%s\n", "curve:", curve_of(r.prime_id));
  print_prime("prime:", r.prime_id, r.prime, r.fs);
  printf("  %-16s%u\n", "constraints:", r.n_constraints);
  printf("  %-16s%llu (over A, B and C)\n", "terms:", (ull)r.n_terms);
  uint64_t internal =
      (uint64_t)r.n_wires - 1 - r.n_pub_out - r.n_pub_in - r.n_prv_in; /* >= 0: checked */
  printf("  %-16s%u (1 constant, %u public outputs, %u public inputs, %u private inputs, "
         "%llu internal)\n",
         "wires:", r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in, (ull)internal);
  printf("  %-16s%llu (nPubOut + nPubIn)\n", "public:", (ull)r1cs_n_public(&r));
  printf("  %-16s%llu\n", "labels:", (ull)r.n_labels);
  printf("  %-16s%s\n", "wire map:", r.wire_map ? "present (section 3)" : "absent");
  if (r.has_custom_gates)
    printf("  %-16s%u templates, %u applications: a PLONK circuit, Groth16 rejects it\n",
           "custom gates:", r.n_custom_gates, r.n_custom_gate_uses);
  else
    printf("  %-16snone\n", "custom gates:");
  int rc = unchanged(&r.bf, CLI_OK);
  r1cs_close(&r);
  return rc;
}

static int info_wtns(const char *path, const char *r1cs_path) {
  wtns_file w;
  cuzk_err e = {0};
  if (wtns_open(&w, path, &e) != CUZK_OK)
    return fail(&e);
  print_header(&w.bf, "witness");
  printf("  %-16s%s\n", "curve:", curve_of(w.prime_id));
  print_prime("prime:", w.prime_id, w.prime, w.n8);
  printf("  %-16s%llu values of %u bytes\n", "witness:", (ull)w.n_witness, w.n8);
  int rc = CLI_OK;
  if (r1cs_path) {
    r1cs_file r;
    size_t bad = 0;
    if (r1cs_open(&r, r1cs_path, &e) != CUZK_OK) {
      rc = fail(&e);
    } else {
      cuzk_status st = r1cs_check_witness(&r, &w, &bad, &e);
      if (st == CUZK_OK) {
        printf("  %-16ssatisfies all %u constraints of %s\n", "check:", r.n_constraints,
               r1cs_path);
      } else if (st == CUZK_UNSATISFIED) {
        printf("  %-16sNOT SATISFIED: %s\n", "check:", e.msg);
        rc = CLI_NO;
      } else {
        rc = fail(&e);
      }
      rc = unchanged(&r.bf, rc);
      r1cs_close(&r);
    }
  }
  rc = unchanged(&w.bf, rc);
  wtns_close(&w);
  return rc;
}

static int info_zkey(const char *path, bool check_points, unsigned threads) {
  zkey_file z;
  cuzk_err e = {0};
  if (zkey_open(&z, path, &e) != CUZK_OK)
    return fail(&e);
  print_header(&z.bf, "snarkjs Groth16 proving key");
  printf("  %-16sBLS12-381 (n8q %u, n8r %u)\n", "curve:", z.n8q, z.n8r);
  printf("  %-16s%u (%u public, %llu private)\n", "nVars:", z.n_vars, z.n_public, (ull)z.n_c);
  printf("  %-16s%u\n", "nPublic:", z.n_public);
  printf("  %-16s%u (2^%u)\n", "domain size:", z.domain_size, z.lg_domain);
  printf("  %-16s%llu\n", "coefficients:", (ull)z.n_coefs);
  printf("  %-16sIC %llu, A %llu, B1 %llu, B2 %llu, C %llu, H %llu\n", "points:", (ull)z.n_ic,
         (ull)z.n_a, (ull)z.n_a, (ull)z.n_a, (ull)z.n_c, (ull)z.n_h);
  if (z.has_contributions)
    printf("  %-16s%u\n", "contributions:", z.n_contributions);
  else
    printf("  %-16sno section 10\n", "contributions:");
  int rc = CLI_OK;
  if (check_points) {
    if (zkey_validate_points(&z, threads, &e) != CUZK_OK)
      rc = fail(&e);
    else
      printf("  %-16severy point on its curve, header points in their subgroups\n", "points ok:");
  }
  rc = unchanged(&z.bf, rc);
  zkey_close(&z);
  return rc;
}

/* ------------------------------------------------------------ JSON sniff */

/* A snarkjs JSON file of the kind its text claims (cli_json_kind_of),
 * which the parse that follows validates fully. */
static int info_json(const char *path, const char *text, size_t len, cli_json_kind kind) {
  cuzk_err err = {0};
  if (kind == CLI_JSON_PUBLIC) {
    limb_t(*vals)[4] = NULL;
    size_t n = 0;
    if (json_parse_public(text, len, path, &vals, &n, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk info: %s\n", err.msg);
      return CLI_USAGE;
    }
    free(vals);
    printf("%s: snarkjs public signals (JSON), %zu bytes\n", path, len);
    printf("  %-16s%zu, each below r\n", "signals:", n);
    return CLI_OK;
  }
  if (kind == CLI_JSON_PROOF) {
    groth16_proof pr;
    if (json_parse_proof(text, len, path, &pr, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk info: %s\n", err.msg);
      return CLI_USAGE;
    }
    bool ok = bls12_381_g1_aff_in_subgroup(&pr.a) && bls12_381_g2_aff_in_subgroup(&pr.b) &&
              bls12_381_g1_aff_in_subgroup(&pr.c);
    printf("%s: snarkjs Groth16 proof (JSON), %zu bytes\n", path, len);
    printf("  %-16sbls12381\n", "curve:");
    printf("  %-16s%s\n", "points:",
           ok ? "A, B, C on their curves and in the prime-order subgroups"
              : "NOT all on their curves and in the subgroups (the proof is invalid)");
    return ok ? CLI_OK : CLI_NO;
  }
  if (kind == CLI_JSON_VK) {
    groth16_vk vk = {0};
    if (json_parse_vk(text, len, path, &vk, &err) != CUZK_OK) {
      fprintf(stderr, "cuzk info: %s\n", err.msg);
      return CLI_USAGE;
    }
    bls12_381_fp given[12];
    memcpy(given, vk.alphabeta, sizeof given);
    groth16_vk_compute_alphabeta(&vk);
    bool ab = !memcmp(given, vk.alphabeta, sizeof given);
    printf("%s: snarkjs Groth16 verification key (JSON), %zu bytes\n", path, len);
    printf("  %-16sbls12381\n", "curve:");
    printf("  %-16s%zu\n", "nPublic:", vk.n_public);
    printf("  %-16s%zu points\n", "IC:", vk.n_public + 1);
    printf("  %-16s%s\n", "alphabeta:", ab ? "equals e(alpha, beta)" : "DIFFERS from e(alpha, beta)");
    groth16_vk_fini(&vk);
    return ab ? CLI_OK : CLI_NO;
  }
  fprintf(stderr,
          "cuzk info: format: %s: JSON, but neither a snarkjs proof (no \"pi_a\"), a "
          "verification key (no \"vk_alpha_1\") nor public signals (not an array)\n",
          path);
  return CLI_USAGE;
}

/* ------------------------------------------------------------ bellperson */

static bool has_ext(const char *path, const char *ext) {
  size_t n = strlen(path), m = strlen(ext);
  return n > m && !strcmp(path + n - m, ext);
}

static int info_bp_vk(const char *path, const bp_read_opts *o) {
  bp_vk vk;
  cuzk_err e = {0};
  if (bp_vk_read(&vk, path, o, &e) != CUZK_OK)
    return fail(&e);
  printf("%s: bellperson Groth16 verifying key, %zu bytes (868 + 96 x %zu)\n", path, bp_vk_size(&vk),
         vk.n_ic);
  printf("  %-16sBLS12-381\n", "curve:");
  printf("  %-16s%zu (ONE and %zu inputs)\n", "n_ic:", vk.n_ic, vk.n_ic - 1);
  printf("  %-16s%s\n", "points:",
         o->skip_checks ? "not checked (--skip-checks)"
                        : "on their curves and in the prime-order subgroups, ic without infinity");
  bp_vk_free(&vk);
  return CLI_OK;
}

static int info_bp_params(const char *path, const bp_read_opts *o) {
  bp_params pp;
  cuzk_err e = {0};
  if (bp_params_read(&pp, path, o, &e) != CUZK_OK)
    return fail(&e);
  size_t m = pp.n_h + 1;
  unsigned lg = 0;
  while (lg < 63 && ((size_t)1 << lg) < m) lg++;
  printf("%s: bellperson Groth16 parameters, %zu bytes\n", path, bp_params_size(&pp));
  printf("  %-16sBLS12-381\n", "curve:");
  printf("  %-16s%zu (ONE and %zu inputs)\n", "n_ic:", pp.vk.n_ic, pp.vk.n_ic - 1);
  printf("  %-16s%zu (G1)\n", "h:", pp.n_h);
  printf("  %-16s%zu (G1, one per aux variable)\n", "l:", pp.n_l);
  printf("  %-16s%zu (G1)\n", "a:", pp.n_a);
  printf("  %-16s%zu (G1)\n", "b_g1:", pp.n_b_g1);
  printf("  %-16s%zu (G2)\n", "b_g2:", pp.n_b_g2);
  if (((size_t)1 << lg) == m)
    printf("  %-16s%zu (2^%u, from h + 1)\n", "domain size:", m, lg);
  else
    printf("  %-16s%zu = h + 1, NOT a power of two (bellperson's h has m - 1 points)\n",
           "domain size:", m);
  printf("  %-16s%s\n", "points:",
         o->skip_checks ? "not checked (--skip-checks)"
                        : "on their curves and in the prime-order subgroups, none at infinity");
  bp_params_free(&pp);
  return ((size_t)1 << lg) == m ? CLI_OK : CLI_NO;
}

/* k proofs of 192 bytes; each decoded with its subgroup checks. */
static int info_bp_proofs(const char *path) {
  char *b;
  size_t len;
  cuzk_err e = {0};
  if (fileio_read_all(&b, &len, path, (size_t)16 << 20, &e) != CUZK_OK)
    return fail(&e);
  if (len == 0 || len % BP_PROOF_BYTES) { /* it changed since the caller's stat */
    fprintf(stderr, "cuzk info: format: %s: %zu bytes, not a positive multiple of %d (bellperson proofs)\n",
            path, len, BP_PROOF_BYTES);
    free(b);
    return CLI_USAGE;
  }
  size_t k = len / BP_PROOF_BYTES, bad = 0;
  printf("%s: bellperson Groth16 proofs, %zu bytes\n", path, len);
  printf("  %-16s%zu of %d bytes (compressed A | B | C)\n", "partitions:", k, BP_PROOF_BYTES);
  for (size_t i = 0; i < k; i++) {
    groth16_proof pr;
    if (bp_proof_decode(&pr, (const uint8_t *)b + i * BP_PROOF_BYTES, path, i, &e) != CUZK_OK) {
      printf("  %-16s%s\n", bad ? "" : "NOT decoded:", e.msg);
      bad++;
    }
  }
  if (!bad)
    printf("  %-16severy partition's A, B, C in the prime-order subgroups, none at infinity\n",
           "points:");
  free(b);
  return bad ? CLI_NO : CLI_OK;
}

/* ------------------------------------------------------------ entry */

int cmd_info(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  const char *path = NULL, *r1cs_path = NULL;
  bool check_points = false;
  bp_read_opts bpo = {0};
  unsigned long threads = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--check-points")) {
      check_points = true;
    } else if (!strcmp(argv[i], "--skip-checks")) {
      bpo.skip_checks = true;
    } else if (!strcmp(argv[i], "--threads")) {
      if (i + 1 >= argc || !cli_parse_uint("--threads", argv[i + 1], &threads))
        return CLI_USAGE;
      i++;
    } else if (!strcmp(argv[i], "--r1cs")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "cuzk info: --r1cs needs a file\n");
        return CLI_USAGE;
      }
      r1cs_path = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "cuzk info: unknown option %s\n\n", argv[i]);
      usage(stderr);
      return CLI_USAGE;
    } else if (path) {
      fprintf(stderr, "cuzk info: one file at a time (%s, %s)\n", path, argv[i]);
      return CLI_USAGE;
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    usage(stderr);
    return CLI_USAGE;
  }

  if (threads)
    par_set_threads((unsigned)threads);
  if (has_ext(path, ".vk"))
    return info_bp_vk(path, &bpo);
  if (has_ext(path, ".params"))
    return info_bp_params(path, &bpo);
  uint8_t magic[4] = {0};
  int fd;
  cuzk_err oe = {0};
  if (fileio_open_read(&fd, NULL, path, &oe) != CUZK_OK) {
    fprintf(stderr, "cuzk info: io: %s\n", oe.msg);
    return CLI_USAGE;
  }
  ssize_t got;
  while ((got = read(fd, magic, 4)) < 0 && errno == EINTR) {
  }
  close(fd);
  if (got == 4 && !memcmp(magic, "r1cs", 4))
    return info_r1cs(path);
  if (got == 4 && !memcmp(magic, "wtns", 4))
    return info_wtns(path, r1cs_path);
  if (got == 4 && !memcmp(magic, "zkey", 4))
    return info_zkey(path, check_points, (unsigned)threads);
  if (got == 4 && pce_is_pce(magic, 4))
    return cli_info_pce(path);

  struct stat st;
  if (has_ext(path, ".bin") && !(got == 4 && !memcmp(magic, "PCE", 3)) && stat(path, &st) == 0 &&
      st.st_size > 0 && st.st_size % BP_PROOF_BYTES == 0)
    return info_bp_proofs(path);
  size_t len = 0;
  char *text = cli_read_text("info", path, &len);
  if (!text)
    return CLI_USAGE;
  cli_json_kind kind = cli_json_kind_of(text, len);
  int rc;
  if (kind != CLI_JSON_NONE) {
    rc = info_json(path, text, len, kind);
  } else {
    fprintf(stderr,
            "cuzk info: format: %s: unknown file type (%zu bytes): expected the magic \"r1cs\", "
            "\"wtns\", \"zkey\" or \"PCE\\x02\", snarkjs JSON, a bellperson KEY.vk or "
            "KEY.params, or bellperson proofs (a .bin of k x 192 bytes)\n",
            path, len);
    rc = CLI_USAGE;
  }
  free(text);
  return rc;
}
