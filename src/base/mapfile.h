/* Read-only file mappings.
 *
 * DESIGN: input files (keys, witnesses, circuits) are mapped, never read
 * whole into the heap; readers index into the mapping with 64-bit offsets and
 * bounds-check every access against `size`.  The mapping lives until
 * mapfile_close.  An empty file is valid (data = NULL, size = 0). */
#ifndef CUZK_BASE_MAPFILE_H
#define CUZK_BASE_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

typedef struct {
  const uint8_t *data;
  uint64_t size;
  char path[256];
} mapfile;

cuzk_status mapfile_open(mapfile *m, const char *path, cuzk_err *err);
void mapfile_close(mapfile *m);

#endif
