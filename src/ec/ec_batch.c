#include "ec/ec_batch.h"

#define EC_TMPL "ec/ec_batch_impl.h"
#include "ec/groups.h"
