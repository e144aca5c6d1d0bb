/* The counters of gcall.h (every build; the wrappers in gcall.cu count;
 * not gcall.c, whose object would collide with gcall.cu's).
 *
 * DESIGN: one relaxed atomic pair per kind.  A snapshot reads each counter
 * on its own, so it is exact between calls and may be mid-call otherwise:
 * tests snapshot when no job runs. */
#include <stdatomic.h>
#include <stdio.h>

#include "cuda/gcall.h"

static _Atomic uint64_t g_n[CUDA_GCALL_COUNT], g_ns[CUDA_GCALL_COUNT];

static const char *const g_names[CUDA_GCALL_COUNT] = {
#define CUDA_GCALL_NAME(e, name, stalls) name,
    CUDA_GCALL_KINDS(CUDA_GCALL_NAME)
#undef CUDA_GCALL_NAME
};

static const bool g_stalls[CUDA_GCALL_COUNT] = {
#define CUDA_GCALL_STALLS(e, name, stalls) stalls,
    CUDA_GCALL_KINDS(CUDA_GCALL_STALLS)
#undef CUDA_GCALL_STALLS
};

void cuda_gcall_count(cuda_gcall_kind k, uint64_t ns) {
  if ((unsigned)k >= CUDA_GCALL_COUNT)
    return;
  atomic_fetch_add_explicit(&g_n[k], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&g_ns[k], ns, memory_order_relaxed);
}

void cuzk_cuda_global_calls(cuzk_cuda_gcalls *out) {
  for (unsigned k = 0; k < CUDA_GCALL_COUNT; k++) {
    out->n[k] = atomic_load_explicit(&g_n[k], memory_order_relaxed);
    out->ns[k] = atomic_load_explicit(&g_ns[k], memory_order_relaxed);
  }
}

const char *cuzk_cuda_gcall_name(cuda_gcall_kind k) {
  return (unsigned)k < CUDA_GCALL_COUNT ? g_names[k] : "?";
}

bool cuzk_cuda_gcall_stalls(cuda_gcall_kind k) {
  return (unsigned)k < CUDA_GCALL_COUNT && g_stalls[k];
}

uint64_t cuzk_cuda_gcalls_delta(const cuzk_cuda_gcalls *before, const cuzk_cuda_gcalls *after,
                                bool stalling_only) {
  uint64_t d = 0;
  for (unsigned k = 0; k < CUDA_GCALL_COUNT; k++)
    if (!stalling_only || g_stalls[k])
      d += after->n[k] - before->n[k];
  return d;
}

void cuzk_cuda_gcalls_describe(char *buf, size_t n, const cuzk_cuda_gcalls *before,
                               const cuzk_cuda_gcalls *after) {
  if (!buf || !n)
    return;
  size_t o = 0;
  buf[0] = 0;
  for (unsigned k = 0; k < CUDA_GCALL_COUNT; k++) {
    uint64_t d = after->n[k] - before->n[k];
    if (!d)
      continue;
    int w = snprintf(buf + o, n - o, "%s%s +%llu (%.2f ms)", o ? ", " : "", g_names[k],
                     (unsigned long long)d, (double)(after->ns[k] - before->ns[k]) / 1e6);
    if (w < 0 || (size_t)w >= n - o)
      return;
    o += (size_t)w;
  }
  if (!o)
    snprintf(buf, n, "none");
}
