/* Carry chains: the PTX add/sub/multiply-add instructions with carry, one
 * function per instruction, usable on the device and on the host.
 *
 * DESIGN: every multi-word routine of the device field code (mont.cuh) is
 * written as a sequence of these calls on one `carry_chain` object.  On the
 * device each call is exactly one PTX instruction (asm volatile, so that the
 * compiler keeps their order: the carry flag CC.CF is invisible to it) and
 * the object is empty in effect; the carry lives in the hardware flag.  On
 * the host (nvcc's host pass, where __CUDA_ARCH__ is undefined) each call
 * computes the same result from an explicit carry bit held in the object.
 * That host form exists for one reason: the very same field code, chain for
 * chain, can be run and compared with src/ff on a machine without a GPU
 * (tests/gpu/test_gpu_field.c, "emulated" tests), so CI checks the algorithm
 * and only the instruction mapping is left to the GPU run.
 *
 * PTX semantics followed by the host form (PTX ISA, "Extended-Precision
 * Integer Arithmetic"):
 *   add.cc   d = a + b,        CF = carry out
 *   addc.cc  d = a + b + CF,   CF = carry out
 *   addc     d = a + b + CF    (CF not written)
 *   sub.cc   d = a - b,        CF = borrow out
 *   subc.cc  d = a - b - CF,   CF = borrow out
 *   subc     d = a - b - CF
 *   mad.lo.cc  d = lo32(a*b) + c,      CF = carry out   (.hi: high 32 bits)
 *   madc.lo.cc d = lo32(a*b) + c + CF, CF = carry out
 *   madc.hi    d = hi32(a*b) + c + CF
 * A chain must start with an instruction that does not read CF (add.cc,
 * sub.cc, mad.*.cc) and the value of CF between chains is never relied on. */
#ifndef CUZK_CUDA_PTX_CUH
#define CUZK_CUDA_PTX_CUH

#include <stdint.h>

#define CZ_HD __host__ __device__ __forceinline__

struct carry_chain {
  uint32_t cf = 0; /* host form only; unused (and removed) on the device */

#ifdef __CUDA_ARCH__
#define CZ_PTX2(op, a, b)                                                   \
  uint32_t d;                                                               \
  asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));               \
  return d
#define CZ_PTX3(op, a, b, c)                                                \
  uint32_t d;                                                               \
  asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));   \
  return d
  CZ_HD uint32_t add_cc(uint32_t a, uint32_t b) { CZ_PTX2("add.cc.u32", a, b); }
  CZ_HD uint32_t addc_cc(uint32_t a, uint32_t b) { CZ_PTX2("addc.cc.u32", a, b); }
  CZ_HD uint32_t addc(uint32_t a, uint32_t b) { CZ_PTX2("addc.u32", a, b); }
  CZ_HD uint32_t sub_cc(uint32_t a, uint32_t b) { CZ_PTX2("sub.cc.u32", a, b); }
  CZ_HD uint32_t subc_cc(uint32_t a, uint32_t b) { CZ_PTX2("subc.cc.u32", a, b); }
  CZ_HD uint32_t subc(uint32_t a, uint32_t b) { CZ_PTX2("subc.u32", a, b); }
  CZ_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { CZ_PTX3("mad.lo.cc.u32", a, b, c); }
  CZ_HD uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { CZ_PTX3("mad.hi.cc.u32", a, b, c); }
  CZ_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { CZ_PTX3("madc.lo.cc.u32", a, b, c); }
  CZ_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { CZ_PTX3("madc.hi.cc.u32", a, b, c); }
  CZ_HD uint32_t madc_lo(uint32_t a, uint32_t b, uint32_t c) { CZ_PTX3("madc.lo.u32", a, b, c); }
  CZ_HD uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { CZ_PTX3("madc.hi.u32", a, b, c); }
#undef CZ_PTX2
#undef CZ_PTX3
#else
  CZ_HD uint32_t put(uint64_t s) { /* keep the low word, carry the high bit */
    cf = (uint32_t)(s >> 32);
    return (uint32_t)s;
  }
  CZ_HD uint32_t borrow(uint64_t d) { /* a - b as 64 bits: bit 32 set on borrow */
    cf = (uint32_t)(d >> 32) & 1;
    return (uint32_t)d;
  }
  static CZ_HD uint64_t lo(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)a * b); }
  static CZ_HD uint64_t hi(uint32_t a, uint32_t b) { return ((uint64_t)a * b) >> 32; }
  CZ_HD uint32_t add_cc(uint32_t a, uint32_t b) { return put((uint64_t)a + b); }
  CZ_HD uint32_t addc_cc(uint32_t a, uint32_t b) { return put((uint64_t)a + b + cf); }
  CZ_HD uint32_t addc(uint32_t a, uint32_t b) { return a + b + cf; }
  CZ_HD uint32_t sub_cc(uint32_t a, uint32_t b) { return borrow((uint64_t)a - b); }
  CZ_HD uint32_t subc_cc(uint32_t a, uint32_t b) { return borrow((uint64_t)a - b - cf); }
  CZ_HD uint32_t subc(uint32_t a, uint32_t b) { return a - b - cf; }
  CZ_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put(lo(a, b) + c); }
  CZ_HD uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put(hi(a, b) + c); }
  CZ_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) { return put(lo(a, b) + c + cf); }
  CZ_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) { return put(hi(a, b) + c + cf); }
  CZ_HD uint32_t madc_lo(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)(lo(a, b) + c + cf); }
  CZ_HD uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)(hi(a, b) + c + cf); }
#endif
};

#endif
