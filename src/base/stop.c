/* The untyped poll of a stop hook (base/stop.h), for the CUDA code. */
#include "base/stop.h"

bool cuzk_stop_requested(const void *stop) { return cuzk_stopped(stop); }
