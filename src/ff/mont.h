/* Width-generic Montgomery arithmetic: mont256_* (4 limbs) and mont384_*
 * (6 limbs).  The modulus is a parameter; ff/field_tmpl.h binds it per field. */
#ifndef CUZK_FF_MONT_H
#define CUZK_FF_MONT_H

#include "base/bytes.h"

#define MONT_N 4
#define MONT_PREFIX mont256_
#include "ff/mont_tmpl.h"
#undef MONT_N
#undef MONT_PREFIX

#define MONT_N 6
#define MONT_PREFIX mont384_
#include "ff/mont_tmpl.h"
#undef MONT_N
#undef MONT_PREFIX

#endif
