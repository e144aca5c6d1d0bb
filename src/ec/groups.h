/* The list of groups: the one place where a group is added.  Each template
 * written once over a group (ec/ec_tmpl.h and ec_impl.h, ec/ec_batch_tmpl.h
 * and ec_batch_impl.h, groth16/keygen_comb_*.h, msm/msm_impl.h) is
 * instantiated for every group by
 *
 *     #define EC_TMPL "dir/some_tmpl.h"
 *     #include "ec/groups.h"
 *
 * which includes EC_TMPL once per group with
 *   EC       the group's prefix (types EC_aff, EC_jac, ...; functions EC_...)
 *   EC_F     its coordinate field's prefix
 *   EC_NAME  its short name, for names outside ec/ (msm_g1, msm_plan_for_g1)
 * defined, and undefines all four afterwards.  Deliberately without an
 * include guard.  A new group needs its field's header below and what the
 * includers name per group beyond the template (msm.c: msm_NAME_images,
 * msm_NAME_endo_max, msm_plan_for_NAME). */
#ifndef EC_TMPL
#error "ec/groups.h: define EC_TMPL as the template header to instantiate"
#endif

#include "ff/bls12_381.h"

#define EC bls12_381_g1
#define EC_F bls12_381_fp
#define EC_NAME g1
#include EC_TMPL
#undef EC
#undef EC_F
#undef EC_NAME

#define EC bls12_381_g2
#define EC_F bls12_381_fp2
#define EC_NAME g2
#include EC_TMPL
#undef EC
#undef EC_F
#undef EC_NAME

#undef EC_TMPL
