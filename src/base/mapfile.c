#include "base/mapfile.h"

#include "base/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

cuzk_status mapfile_open(mapfile *m, const char *path, cuzk_err *err) {
  memset(m, 0, sizeof *m);
  snprintf(m->path, sizeof m->path, "%s", path);
  int fd;
  struct stat st;
  CUZK_TRY(fileio_open_read(&fd, &st, path, err)); /* a regular file; a FIFO does not block */
  m->size = (uint64_t)st.st_size;
  if (m->size > 0) {
    void *p = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      close(fd);
      return cuzk_err_set(err, CUZK_IO, "%s: cannot map %llu bytes: %s", path,
                          (unsigned long long)m->size, strerror(e));
    }
    madvise(p, (size_t)m->size, MADV_WILLNEED);
    m->data = p;
  }
  close(fd);
  return CUZK_OK;
}

void mapfile_close(mapfile *m) {
  if (m->data)
    munmap((void *)m->data, (size_t)m->size);
  m->data = NULL;
  m->size = 0;
}
