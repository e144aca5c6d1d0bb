/* What `cuzk bench bp` (bench_bp.c) hands its engine stream
 * (bench_bp_engine.c, --engine): the generated circuit and key, in memory. */
#ifndef CUZK_CLI_BENCH_BP_H
#define CUZK_CLI_BENCH_BP_H

#include "engine/engine.h"
#include "groth16/bp.h"
#include "groth16/pce.h"
#include "groth16/pce_gen.h"

typedef struct {
  engine_device_mode device;
  unsigned slots;          /* GPU slots per device (gpu_workers_per_device) */
  unsigned threads;        /* CPU threads (0: all) */
  size_t jobs, partitions; /* the stream: jobs of `partitions` partitions each */
  unsigned critical;       /* CRITICAL winning-32g jobs submitted during the stream */
  bool express;            /* an express slot per GPU for them (engine express_max_lg) */
  unsigned readahead;      /* witness read-ahead buffers (engine witness_readahead) */
  bool ntt_pass1_table;    /* engine ntt_pass1_table */
  uint64_t seed;
  const char *witness_dir; /* where the witness files are written (a fresh directory in it) */
} bench_bp_stream;

/* The stream over circuit pce with key pp (plan: pce's generator plan, for
 * the witnesses); prints its figures.  CUZK_OK when every job was DONE. */
cuzk_status bench_bp_engine(const bench_bp_stream *o, const bp_params *pp, const pce_file *pce,
                            const pce_gen_plan *plan, cuzk_err *err);

#endif
