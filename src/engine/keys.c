/* Key residency: which proving keys are loaded, in which tier, within the
 * host budget.
 *
 * DESIGN: a key entry is made once per circuit id (engine_new for the
 * registered ones, the first submit for one found in param_dir) from its
 * header alone (zkey_read_header: cheap for a 47 GiB key); the full checks
 * of zkey_open run at each load, and a key that fails them fails the job
 * that loaded it.  The entry lives until engine_free.
 * Ownership: every byte of a loaded key that a job reads (the coefficient
 * rows and wires it indexes by, the points, the header) is in memory the
 * engine owns: a load reads the whole file (pread) into a buffer of its
 * own and checks it there (zkey_open_mem), and the prover reads only that
 * buffer; the file is never mapped, so nothing done to the file afterwards
 * - a rewrite in place, a truncation - can reach a job.  Tiers: DISK
 * (nothing held), MAPPED (the copy in anonymous pageable memory; the name
 * is the API's), PINNED (the copy in page-locked memory: the devices'
 * (backend_device_host_alloc, CUDA host memory) on a GPU engine whose
 * devices have it, else anonymous memory mlock'ed when the limit allows -
 * also on a GPU engine once one of its GPUs is lost), DEVICE (GPU slots
 * hold the bases, one copy per GPU shared by its slots, counted once per
 * GPU against that GPU's budget: worker.c; holds are counted here because
 * a held key must stay loaded).
 * Changed files: a load records the file's identity (file_ident: device,
 * inode, size, mtime, ctime) from the descriptor it read, before and after
 * the read, and fails ("changed while being read") when they differ or the
 * file ends early.  Each keys_acquire of a loaded key (each partition's
 * start, each preload) stats the path and compares: a key whose file
 * changed (rewritten, truncated, replaced, removed) is marked stale and
 * evict_pending; partitions already proving with the old copy finish on it
 * (they read only the copy), new ones wait until its users are done, then
 * it is unloaded and read again, checked again like a first load; a reload
 * that fails fails the job with the load's error, prefixed with what
 * changed.  A replacement must keep the key's shape (nVars, nPublic,
 * domainSize: jobs were checked against it at submit); its size may
 * differ (the budget charges the new size).  Budget: every key above DISK,
 * or loading, costs its file size against keys_budget (the host budget
 * less the queue budget) - the size of its copy, which is what it holds;
 * keys_used is the sum.  A load that finds no room evicts, least recently
 * used first, keys that are idle (refs = 0, no GPU hold, not loading, last
 * used at least eviction_min_idle_ms ago); if that is not enough it waits
 * on key_cv for keys in use to be released (a timed wait when a key will
 * become old enough), or fails EXHAUSTED when the key could never fit or
 * the caller cannot wait (preload).  Loading and unloading (file reads,
 * munmap, the devices' host free) run without the lock: the bytes are
 * reserved first and the entry marked `loading`; an unload takes the
 * entry's objects out under the lock and frees them after. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "engine/engine_impl.h"
#include "groth16/bp_prove.h"
#include "groth16/pce_tables.h"

typedef unsigned long long ull;

/* What an unload frees, taken out of an entry under the lock. */
typedef struct {
  groth16_key key; /* owning */
  void *mem;       /* what a zkey's key was opened over */
  size_t len;
  const backend_devices *devs; /* mem came from their host_alloc, else mmap */
  bool locked;
} unload_item;

/* devs: the provider whose backend_device_host_alloc made p, or NULL (mmap). */
static void free_copy(void *p, size_t len, const backend_devices *devs, bool locked) {
  if (!p)
    return;
  if (devs) {
    backend_device_host_free(devs, p);
  } else {
    if (locked)
      munlock(p, len);
    munmap(p, len);
  }
}

static void unload_run(unload_item *u) {
  groth16_key_close(&u->key); /* before the memory it may point into */
  free_copy(u->mem, u->len, u->devs, u->locked);
  memset(u, 0, sizeof *u);
}

/* Moves k's loaded objects into *u and returns it to DISK (locked). */
static void unload_take(engine *e, ekey *k, unload_item *u) {
  memset(u, 0, sizeof *u);
  if (k->tier < ENGINE_TIER_MAPPED || k->in_memory) /* the caller's key stays */
    return;
  u->key = k->key; /* moved: k's copy is zeroed below */
  u->mem = k->mem;
  u->len = (size_t)k->file_bytes;
  u->devs = k->mem_dev ? e->devs : NULL;
  u->locked = k->locked;
  k->mem = NULL;
  k->mem_dev = k->locked = false;
  memset(&k->key, 0, sizeof k->key);
  k->tier = ENGINE_TIER_DISK;
  k->evict_pending = false;
  k->stale = false; /* stale_why stays until a load succeeds: a failed reload names it */
  k->points = KEY_POINTS_UNCHECKED; /* the next load may read another file */
  k->evictions++;
  e->keys_used -= k->file_bytes;
  pthread_cond_broadcast(&e->key_cv);
}

/* ------------------------------------------------------------ entries */

/* A GPU's resident copy (shared by its slots): the base and coefficient
 * sections as the file holds them (at most the file), plus what the
 * coefficients' copy adds (cuda/ab_gpu.h: a row index of n + 1 words and
 * its run's witness, a and b, 32 bytes an element).  Changes only while
 * no slot holds k (at registration, before the slots start, at a load). */
static void set_device_bytes(ekey *k) {
  if (k->kind == EKEY_BP) {
    /* The key's vectors (as many bytes on the device as uncompressed in
     * the .params, at most) and the circuit's matrices (as in the PCE
     * file: row pointers, columns, values; less what the value tables
     * save once keys_count_tables counted them) with the a and b
     * queries' index lists (cuda/pce_gpu.h: at most 4 bytes a variable
     * each). */
    k->device_bytes = k->file_bytes + 8 * k->n_vars - k->table_saving;
    return;
  }
  k->device_bytes = k->file_bytes + 4 * (k->domain_size + 1) + 32 * (k->n_vars + 2 * k->domain_size);
}

/* A bellperson key's shape from its circuit's counts: the witness holds
 * ONE, the inputs and the aux (n_vars), the public inputs are the inputs
 * less ONE, the domain the power of two over the constraints. */
static void bp_shape(ekey *k, const pce_file *hdr) {
  k->n_vars = (uint64_t)hdr->num_inputs + hdr->num_aux;
  k->n_public = hdr->num_inputs - 1;
  k->n_aux = hdr->num_aux;
  k->n_a = hdr->num_inputs + hdr->a_aux.popcount;
  k->n_b = hdr->b_input.popcount + hdr->b_aux.popcount;
  k->lg_domain = pce_domain_lg(hdr);
  k->domain_size = (uint64_t)1 << k->lg_domain;
}

/* The shape of the key at path, from its header only (cheap for a large
 * key: the full checks of zkey_open run when it is loaded). */
static cuzk_status read_shape(ekey *k, cuzk_err *err) {
  zkey_file z;
  struct stat sb;
  if (stat(k->path, &sb) != 0)
    return cuzk_err_set(err, CUZK_IO, "%s: cannot stat: %s", k->path, strerror(errno));
  if (k->kind == EKEY_BP) {
    /* The circuit's header gives the shape; the .params is checked
     * against it at load (bp_check_key). */
    struct stat pb;
    pce_file hdr;
    if (stat(k->pce_path, &pb) != 0)
      return cuzk_err_set(err, CUZK_IO, "%s: cannot stat: %s", k->pce_path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
      return cuzk_err_set(err, CUZK_IO, "%s: is %s, expected a regular file", k->path,
                          fileio_kind(sb.st_mode));
    CUZK_TRY(pce_read_header(&hdr, k->pce_path, err));
    bp_shape(k, &hdr);
    k->file_bytes = (uint64_t)sb.st_size + (uint64_t)pb.st_size;
    set_device_bytes(k);
    return CUZK_OK;
  }
  CUZK_TRY(zkey_read_header(&z, k->path, err));
  k->file_bytes = (uint64_t)sb.st_size;
  k->n_vars = z.n_vars;
  k->n_public = z.n_public;
  k->domain_size = z.domain_size;
  k->lg_domain = z.lg_domain;
  set_device_bytes(k);
  return CUZK_OK;
}

void keys_count_tables(engine *e) {
  for (ekey *k = e->keys; k; k = k->next) {
    if (k->kind != EKEY_BP || k->tables_known)
      continue;
    size_t ntab[3];
    uint64_t nnz[3];
    cuzk_err err = {0};
    const double t0 = engine_now();
    /* an in-memory key's circuit is at hand; a file's is read (tens of GB
     * at PoRep scale: seconds) */
    if (!k->in_memory)
      engine_log(e, ENGINE_LOG_INFO,
                 "circuit %s: reading %s's values to plan its resident copy", k->id,
                 k->pce_path);
    if (pce_table_sizes(k->in_memory ? k->key.pce : NULL, k->pce_path, ntab, nnz,
                        &k->tables_ident, &err) != CUZK_OK) {
      engine_log(e, ENGINE_LOG_WARN,
                 "circuit %s: its resident copy is planned at the PCE's size: %s", k->id,
                 err.msg);
      continue;
    }
    uint64_t save = 0; /* against the PCE's 32 bytes a value */
    for (int m = 0; m < 3; m++) save += 32 * nnz[m] - pce_values_bytes(nnz[m], ntab[m]);
    k->table_saving = save;
    k->tables_known = true;
    set_device_bytes(k);
    engine_log(e, ENGINE_LOG_INFO,
               "circuit %s: resident copy planned at %.2f GiB (the PCE's values as tables of "
               "%zd / %zd / %zd entries, -1: whole; counted in %.1f s)",
               k->id, (double)k->device_bytes / 1073741824.0,
               ntab[0] == SIZE_MAX ? -1 : (ssize_t)ntab[0], ntab[1] == SIZE_MAX ? -1 : (ssize_t)ntab[1],
               ntab[2] == SIZE_MAX ? -1 : (ssize_t)ntab[2], engine_now() - t0);
  }
}

static ekey *find_key(engine *e, const char *id) {
  for (ekey *k = e->keys; k; k = k->next)
    if (!strcmp(k->id, id))
      return k;
  return NULL;
}

cuzk_status keys_init(engine *e, cuzk_err *err) {
  for (size_t i = 0; i < e->cfg.ncircuits; i++) {
    const engine_circuit *c = &e->cfg.circuits[i];
    if (!c->id || !*c->id || strlen(c->id) >= ENGINE_ID_MAX)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "circuit %zu: the id must be 1 to %d bytes", i, ENGINE_ID_MAX - 1);
    if (!c->path || !*c->path || strlen(c->path) >= sizeof(((ekey *)0)->path))
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "circuit %s: no key path, or too long",
                          c->id);
    if (find_key(e, c->id))
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "circuit %s is registered twice", c->id);
    const bool bp = (c->pce && *c->pce) || c->bp_mem || c->pce_mem;
    if (bp && (!c->pce || !*c->pce || strlen(c->pce) >= sizeof(((ekey *)0)->pce_path)))
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "circuit %s: a bellperson key needs its PCE file (pce), of at most "
                          "4095 bytes", c->id);
    if (!c->bp_mem != !c->pce_mem)
      return cuzk_err_set(err, CUZK_INVALID_ARGUMENT,
                          "circuit %s: an in-memory key needs both its parameters and its "
                          "circuit", c->id);
    ekey *k = calloc(1, sizeof *k);
    if (!k)
      return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for a key entry");
    snprintf(k->id, sizeof k->id, "%s", c->id);
    snprintf(k->path, sizeof k->path, "%s", c->path);
    k->registered = true;
    k->kind = bp ? EKEY_BP : EKEY_ZKEY;
    k->trusted = c->trusted;
    if (bp)
      snprintf(k->pce_path, sizeof k->pce_path, "%s", c->pce);
    cuzk_status st;
    if (c->bp_mem) {
      /* The caller's key: checked against its circuit once, here, and
       * loaded for good (its bytes count against the keys' share). */
      k->in_memory = true;
      bp_shape(k, c->pce_mem);
      st = bp_check_key(c->bp_mem, c->pce_mem, k->path, k->pce_path, err);
      k->file_bytes = bp_params_size(c->bp_mem) + pce_file_bytes(c->pce_mem);
      set_device_bytes(k);
      if (st == CUZK_OK && k->file_bytes > e->keys_budget - e->keys_used)
        st = cuzk_err_set(err, CUZK_EXHAUSTED,
                          "the in-memory key (%llu bytes) does not fit in the keys' share of the "
                          "host budget (%llu bytes left)",
                          (ull)k->file_bytes, (ull)(e->keys_budget - e->keys_used));
      if (st == CUZK_OK)
        st = groth16_key_of_bp(&k->key, c->bp_mem, c->pce_mem, k->path, k->pce_path, err);
      if (st == CUZK_OK) {
        k->tier = ENGINE_TIER_MAPPED;
        e->keys_used += k->file_bytes;
      }
    } else {
      st = read_shape(k, err);
    }
    if (st != CUZK_OK) {
      free(k);
      return cuzk_err_prefix(err, st, "circuit %s", c->id);
    }
    k->last_used = engine_now();
    k->next = e->keys;
    e->keys = k;
  }
  return CUZK_OK;
}

/* Ids found in param_dir are file names: letters, digits, '.', '_', '-',
 * not starting with '.', so no id reaches outside the directory. */
static bool safe_file_id(const char *id) {
  if (!*id || *id == '.')
    return false;
  for (const char *s = id; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '.' || *s == '_' || *s == '-'))
      return false;
  return true;
}

cuzk_status keys_lookup(engine *e, const char *id, ekey **out, cuzk_err *err) {
  pthread_mutex_lock(&e->mu);
  ekey *k = find_key(e, id);
  pthread_mutex_unlock(&e->mu);
  if (k) {
    *out = k;
    return CUZK_OK;
  }
  if (!e->param_dir || !safe_file_id(id))
    return cuzk_err_set(err, CUZK_NOT_FOUND, "unknown circuit '%s'", id);
  ekey *n = calloc(1, sizeof *n);
  if (!n)
    return cuzk_err_set(err, CUZK_NO_MEMORY, "no memory for a key entry");
  snprintf(n->id, sizeof n->id, "%s", id);
  if (snprintf(n->path, sizeof n->path, "%s/%s.zkey", e->param_dir, id) >= (int)sizeof n->path ||
      snprintf(n->pce_path, sizeof n->pce_path, "%s/%s.pce", e->param_dir, id) >=
          (int)sizeof n->pce_path) {
    free(n);
    return cuzk_err_set(err, CUZK_NOT_FOUND, "unknown circuit '%s' (path too long)", id);
  }
  struct stat sb;
  bool found = stat(n->path, &sb) == 0;
  if (!found) { /* a bellperson key: <id>.params beside <id>.pce */
    snprintf(n->path, sizeof n->path, "%s/%s.params", e->param_dir, id);
    struct stat pb;
    found = stat(n->path, &sb) == 0 && stat(n->pce_path, &pb) == 0;
    if (found)
      n->kind = EKEY_BP;
    else
      snprintf(n->path, sizeof n->path, "%s/%s.zkey", e->param_dir, id);
  }
  if (n->kind != EKEY_BP)
    n->pce_path[0] = 0;
  if (!found || !S_ISREG(sb.st_mode)) {
    if (found) /* a FIFO or the like: said in fileio_open_read's words */
      cuzk_err_set(err, CUZK_NOT_FOUND,
                   "unknown circuit '%s' (not registered; %s: is %s, expected a regular file)", id,
                   n->path, fileio_kind(sb.st_mode));
    else
      cuzk_err_set(err, CUZK_NOT_FOUND,
                   "unknown circuit '%s' (not registered, no %s/%s.zkey, nor %s.params with "
                   "%s.pce)",
                   id, e->param_dir, id, id, id);
    free(n);
    return CUZK_NOT_FOUND;
  }
  cuzk_status st = read_shape(n, err);
  if (st != CUZK_OK) {
    free(n);
    return cuzk_err_prefix(err, st, "circuit %s", id);
  }
  pthread_mutex_lock(&e->mu);
  if ((k = find_key(e, id))) { /* another submit got there first */
    free(n);
  } else {
    n->last_used = engine_now();
    n->next = e->keys;
    e->keys = k = n;
  }
  pthread_mutex_unlock(&e->mu);
  *out = k;
  return CUZK_OK;
}

/* ------------------------------------------------------------ loading */

/* The engine's copy of k's file, `size` bytes (the room reserved for
 * it), and zkey_open_mem over it.  pin: page-locked memory - the
 * devices' when devs is not NULL (a GPU engine with
 * BACKEND_CAP_HOST_PINNED none of whose GPUs is lost: CUDA's
 * cudaMallocHost acts in the calling thread's current context, which may
 * be a lost GPU's), else anonymous memory mlock'ed when the limit allows;
 * !pin: anonymous pageable memory.  *dev: it came from devs.  *id: the
 * file's identity, the same before and after the read (else the file was
 * changing under it: CUZK_IO).  The key's shape must be the registered one
 * (a replacement of another shape: CUZK_FORMAT). */
static cuzk_status load_copy(ekey *k, bool pin, const backend_devices *devs, int ordinal,
                             uint64_t size,
                             groth16_key *gk, void **mem, bool *dev, bool *locked,
                             file_ident *id, cuzk_err *err) {
  *mem = NULL, *dev = *locked = false;
  int fd;
  struct stat sb;
  /* a regular file; a FIFO put in the key's place does not block */
  CUZK_TRY(fileio_open_read(&fd, &sb, k->path, err));
  cuzk_status st = CUZK_OK;
  if ((uint64_t)sb.st_size != size || size > SIZE_MAX / 2)
    st = cuzk_err_set(err, CUZK_IO,
                      "%s changed while being loaded (%llu bytes, %llu when its room was "
                      "reserved)",
                      k->path, (ull)sb.st_size, (ull)size);
  if (st != CUZK_OK) {
    close(fd);
    return st;
  }
  file_ident_of_stat(id, &sb);
  size_t len = (size_t)size;
  void *p = NULL;
  if (pin && devs) {
    if ((st = backend_device_host_alloc(devs, ordinal, &p, len, err)) != CUZK_OK) {
      close(fd);
      return cuzk_err_prefix(err, st, "%s: page-locked copy of %zu bytes", k->path, len);
    }
    *dev = true;
  } else {
    p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      close(fd);
      return cuzk_err_set(err, CUZK_NO_MEMORY, "%s: no memory for a %zu-byte copy", k->path, len);
    }
    if (pin)
      *locked = mlock(p, len) == 0; /* best effort: RLIMIT_MEMLOCK is often small */
  }
  for (size_t got = 0; got < len && st == CUZK_OK;) {
    ssize_t r = pread(fd, (uint8_t *)p + got, len - got, (off_t)got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      st = cuzk_err_set(err, CUZK_IO, "%s: read failed at offset %zu: %s", k->path, got,
                        strerror(errno));
    else if (r == 0)
      st = cuzk_err_set(err, CUZK_IO,
                        "%s changed while being read (it ends at offset %zu now, %zu expected)",
                        k->path, got, len);
    else
      got += (size_t)r;
  }
  file_ident now;
  char what[160];
  if (st == CUZK_OK && (st = file_ident_of_fd(&now, fd, k->path, err)) == CUZK_OK &&
      file_ident_differs(id, &now, what, sizeof what))
    st = cuzk_err_set(err, CUZK_IO, "%s changed while being read (%s)", k->path, what);
  close(fd);
  const zkey_file *zk;
  if (st == CUZK_OK && (st = groth16_key_open_zkey_mem(gk, p, len, k->path, err)) == CUZK_OK &&
      ((zk = gk->zk)->n_vars != k->n_vars || zk->n_public != k->n_public ||
       zk->domain_size != k->domain_size)) {
    st = cuzk_err_set(err, CUZK_FORMAT,
                      "%s was replaced by a key of another shape (nVars %u, nPublic %u, "
                      "domainSize %u; circuit %s has nVars %llu, nPublic %llu, domainSize %llu): "
                      "serve it under a new circuit id, or restart the daemon",
                      k->path, zk->n_vars, zk->n_public, zk->domain_size, k->id,
                      (ull)k->n_vars, (ull)k->n_public, (ull)k->domain_size);
    groth16_key_close(gk);
  }
  if (st != CUZK_OK) {
    free_copy(p, len, *dev ? devs : NULL, *locked);
    *dev = *locked = false;
    return st;
  }
  *mem = p;
  return CUZK_OK;
}

static bool changed(const file_ident *was, const struct stat *sb, int stat_errno, char *what,
                    size_t n);

/* A bellperson key's copies (*gk, owning): the .params decoded (points
 * checked unless k->trusted; bp.h) and the PCE read and checked (pce.h),
 * both into memory the engine owns, then checked against each other
 * (groth16_key_read_bp), after the PCE's header against the shape jobs
 * were checked with at submit.  The files' identities before the
 * header's read and after the whole read must agree, and their sizes with the `size` reserved (else
 * CUZK_IO: they changed while read). */
static cuzk_status load_bp(ekey *k, uint64_t size, groth16_key *gk, file_ident *id,
                           file_ident *pid, cuzk_err *err) {
  memset(gk, 0, sizeof *gk);
  struct stat a0, b0, a1, b1;
  if (stat(k->path, &a0) != 0 || stat(k->pce_path, &b0) != 0)
    return cuzk_err_set(err, CUZK_IO, "circuit %s: cannot stat %s or %s: %s", k->id, k->path,
                        k->pce_path, strerror(errno));
  if ((uint64_t)a0.st_size + (uint64_t)b0.st_size != size)
    return cuzk_err_set(err, CUZK_IO,
                        "circuit %s: %s and %s changed while being loaded (%llu bytes together, "
                        "%llu when the room was reserved)",
                        k->id, k->path, k->pce_path,
                        (ull)((uint64_t)a0.st_size + (uint64_t)b0.st_size), (ull)size);
  pce_file hdr;
  CUZK_TRY(pce_read_header(&hdr, k->pce_path, err));
  if ((uint64_t)hdr.num_inputs + hdr.num_aux != k->n_vars || pce_domain_lg(&hdr) != k->lg_domain)
    return cuzk_err_set(err, CUZK_FORMAT,
                        "%s was replaced by a circuit of another shape (%u inputs and %u aux "
                        "over 2^%u; circuit %s has %llu variables over 2^%u): serve it under a "
                        "new circuit id, or restart the daemon",
                        k->pce_path, hdr.num_inputs, hdr.num_aux, pce_domain_lg(&hdr), k->id,
                        (ull)k->n_vars, k->lg_domain);
  cuzk_status st = groth16_key_read_bp(gk, k->path, k->pce_path, k->trusted, err);
  char what[160];
  if (st == CUZK_OK && (stat(k->path, &a1) != 0 || stat(k->pce_path, &b1) != 0))
    st = cuzk_err_set(err, CUZK_IO, "circuit %s: cannot stat %s or %s: %s", k->id, k->path,
                      k->pce_path, strerror(errno));
  if (st == CUZK_OK) {
    file_ident_of_stat(id, &a0);
    file_ident_of_stat(pid, &b0);
    if (changed(id, &a1, 0, what, sizeof what))
      st = cuzk_err_set(err, CUZK_IO, "%s changed while being read (%s)", k->path, what);
    else if (changed(pid, &b1, 0, what, sizeof what))
      st = cuzk_err_set(err, CUZK_IO, "%s changed while being read (%s)", k->pce_path, what);
  }
  if (st != CUZK_OK)
    groth16_key_close(gk);
  return st;
}

/* A key's files as stat'ed now (without the lock): the key file, and a
 * bellperson key's PCE. */
typedef struct {
  struct stat sb, pb;
  bool have, phave;
  int serr, perr;
} key_stat;

static void stat_key(const ekey *k, key_stat *ks) {
  memset(ks, 0, sizeof *ks);
  if (k->in_memory)
    return;
  ks->have = stat(k->path, &ks->sb) == 0;
  ks->serr = ks->have ? 0 : errno;
  if (k->kind == EKEY_BP) {
    ks->phave = stat(k->pce_path, &ks->pb) == 0;
    ks->perr = ks->phave ? 0 : errno;
  }
}

/* The bytes a load of k reserves: its files' sizes now (those known at
 * registration when a stat failed: the load then fails with the reason). */
static uint64_t load_size(const ekey *k, const key_stat *ks) {
  if (k->kind == EKEY_BP)
    return ks->have && ks->phave ? (uint64_t)ks->sb.st_size + (uint64_t)ks->pb.st_size
                                 : k->file_bytes;
  return ks->have ? (uint64_t)ks->sb.st_size : k->file_bytes;
}

/* What differs between a file's identity when read (was) and now (sb, or
 * NULL when the stat failed with stat_errno) into what: false if nothing. */
static bool changed(const file_ident *was, const struct stat *sb, int stat_errno, char *what,
                    size_t n) {
  if (!sb) {
    snprintf(what, n, "it cannot be read: %s", strerror(stat_errno));
    return true;
  }
  file_ident now;
  file_ident_of_stat(&now, sb);
  return file_ident_differs(was, &now, what, n);
}

/* Marks a loaded k stale when its files, as stat'ed now, are not the
 * ones its copy was read from; logs it once (e->mu held; the caller
 * flushes the log). */
static void mark_if_changed(engine *e, ekey *k, const key_stat *ks) {
  if (k->in_memory || k->tier < ENGINE_TIER_MAPPED || k->loading || k->stale)
    return;
  char what[160];
  const char *file = k->path;
  if (!changed(&k->ident, ks->have ? &ks->sb : NULL, ks->serr, what, sizeof what)) {
    if (k->kind != EKEY_BP ||
        !changed(&k->pce_ident, ks->phave ? &ks->pb : NULL, ks->perr, what, sizeof what))
      return;
    file = k->pce_path;
  }
  k->stale = true;
  k->evict_pending = true;            /* unloaded when its users are done */
  pthread_cond_broadcast(&e->work_cv); /* GPU slots holding it let go */
  snprintf(k->stale_why, sizeof k->stale_why, "%s", what);
  engine_log_queued(e, ENGINE_LOG_WARN,
                    "circuit %s: the key file %s changed since it was loaded (%s): it is read "
                    "again once the old copy's %u users are done",
                    k->id, file, what, k->refs);
}

bool keys_stale(engine *e, ekey *k) {
  key_stat ks;
  stat_key(k, &ks);
  pthread_mutex_lock(&e->mu);
  mark_if_changed(e, k, &ks);
  bool stale = k->stale;
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e);
  return stale;
}

/* The LRU idle key that may be evicted now, or NULL; *soonest: seconds
 * until a key in use-free but too recently used becomes evictable. */
static ekey *lru_victim(engine *e, double now, double *soonest) {
  double min_idle = (double)e->cfg.eviction_min_idle_ms / 1000.0;
  ekey *best = NULL;
  for (ekey *k = e->keys; k; k = k->next) {
    if (k->tier < ENGINE_TIER_MAPPED || k->loading || k->refs || k->holds || k->in_memory)
      continue;
    double wait = k->last_used + min_idle - now;
    if (wait > 0) {
      if (wait < *soonest)
        *soonest = wait;
      continue;
    }
    if (!best || k->last_used < best->last_used)
      best = k;
  }
  return best;
}

/* The LRU key whose only references are GPU slots' holds, idle long
 * enough, not already marked: the next to evict when nothing else can go. */
static ekey *lru_held(engine *e, double now) {
  double min_idle = (double)e->cfg.eviction_min_idle_ms / 1000.0;
  ekey *best = NULL;
  for (ekey *k = e->keys; k; k = k->next)
    if (k->tier >= ENGINE_TIER_MAPPED && !k->loading && k->holds && k->refs == k->holds &&
        !k->in_memory && !k->evict_pending && now - k->last_used >= min_idle &&
        (!best || k->last_used < best->last_used))
      best = k;
  return best;
}

cuzk_status keys_acquire(engine *e, ekey *k, ejob *job, bool wait, bool held, double *load_s,
                         cuzk_err *err) {
  *load_s = 0;
  cuzk_status st = CUZK_OK;
  unload_item u;
  /* The file as it is now: says whether a loaded copy is stale and what a
   * load reserves.  Taken again (fresh) after any wait, before a load. */
  key_stat ks;
  stat_key(k, &ks);
  bool fresh = true;
  pthread_mutex_lock(&e->mu);
  if (!held)
    mark_if_changed(e, k, &ks);
  for (;;) {
    if (job && job->stop) {
      st = cuzk_err_set(err, CUZK_CANCELLED, "cancelled while waiting for key %s", k->id);
      break;
    }
    if (k->tier >= ENGINE_TIER_MAPPED && !k->loading && (!k->stale || held)) {
      k->refs++;
      break;
    }
    if (k->loading) {
      pthread_cond_wait(&e->key_cv, &e->mu);
      fresh = false;
      continue;
    }
    if (k->tier >= ENGINE_TIER_MAPPED) { /* stale: its copy goes once its users are done */
      if (!k->refs) { /* holds count in refs */
        unload_take(e, k, &u);
        pthread_mutex_unlock(&e->mu);
        unload_run(&u);
        pthread_mutex_lock(&e->mu);
        fresh = false;
        continue;
      }
      if (!wait) {
        st = cuzk_err_set(err, CUZK_UNAVAILABLE,
                          "key %s: its file %s changed since it was loaded (%s); the old copy "
                          "is in use by %u partitions, and the key is read again when they "
                          "are done",
                          k->id, k->path, k->stale_why, k->refs);
        break;
      }
      k->evict_pending = true;
      pthread_cond_broadcast(&e->work_cv);
      pthread_cond_wait(&e->key_cv, &e->mu);
      fresh = false;
      continue;
    }
    if (!fresh) { /* the file's size now, for the room to reserve */
      pthread_mutex_unlock(&e->mu);
      stat_key(k, &ks);
      pthread_mutex_lock(&e->mu);
      fresh = true;
      continue;
    }
    const uint64_t size = load_size(k, &ks);
    if (size > e->keys_budget) {
      st = cuzk_err_set(err, CUZK_EXHAUSTED,
                        "key %s needs %llu bytes, more than the keys' share of the host budget "
                        "(%llu = host %llu less queue %llu)",
                        k->id, (ull)size, (ull)e->keys_budget, (ull)e->cfg.host_budget_bytes,
                        (ull)e->cfg.queue_budget_bytes);
      break;
    }
    if (e->keys_used + size > e->keys_budget) {
      double soonest = 1e9;
      ekey *v = lru_victim(e, engine_now(), &soonest);
      if (v) {
        unload_take(e, v, &u);
        pthread_mutex_unlock(&e->mu);
        unload_run(&u);
        pthread_mutex_lock(&e->mu);
        fresh = false;
        continue;
      }
      ekey *h = wait ? lru_held(e, engine_now()) : NULL;
      if (h) {
        /* Only GPU slots' holds keep it: they drop them when woken. */
        h->evict_pending = true;
        pthread_cond_broadcast(&e->work_cv);
      }
      if (!wait) {
        st = cuzk_err_set(err, CUZK_EXHAUSTED,
                          "no room for key %s (%llu bytes): %llu of %llu bytes are held by keys "
                          "in use or used too recently to evict",
                          k->id, (ull)size, (ull)e->keys_used, (ull)e->keys_budget);
        break;
      }
      /* Keys in use are released by running partitions; a recently used
       * one becomes evictable after `soonest` seconds. */
      if (soonest < 1e9) {
        struct timespec dl;
        engine_deadline(&dl, soonest + 0.001);
        pthread_cond_timedwait(&e->key_cv, &e->mu, &dl);
      } else {
        pthread_cond_wait(&e->key_cv, &e->mu);
      }
      fresh = false;
      continue;
    }
    /* Reserve, then load without the lock. */
    e->keys_used += size;
    k->loading = true;
    const bool pin = e->cfg.pin_keys;
    const backend_devices *pin_devs = e->host_pinned && !e->ngpus_lost ? e->devs : NULL;
    /* a GPU it uses: the calling slot's own, else the first */
    const int slot_gpu = workers_thread_gpu();
    const int pin_ordinal = slot_gpu >= 0 ? slot_gpu : e->ndevices ? e->devices[0].ordinal : 0;
    pthread_mutex_unlock(&e->mu);
    double t0 = engine_now();
    groth16_key gk;
    void *mem = NULL;
    bool dev = false, locked = false;
    file_ident id, pid;
    if (k->kind == EKEY_BP)
      st = load_bp(k, size, &gk, &id, &pid, err);
    else
      st = load_copy(k, pin, pin_devs, pin_ordinal, size, &gk, &mem, &dev, &locked, &id, err);
    double dt = engine_now() - t0;
    pthread_mutex_lock(&e->mu);
    k->loading = false;
    pthread_cond_broadcast(&e->key_cv);
    if (st != CUZK_OK) {
      e->keys_used -= size;
      if (k->stale_why[0])
        cuzk_err_prefix(err, st, "circuit %s: the key file changed since it was loaded (%s), "
                        "and reading it again failed", k->id, k->stale_why);
      break;
    }
    if (k->stale_why[0])
      engine_log_queued(e, ENGINE_LOG_INFO,
                        "circuit %s: %s read again and checked after it changed (%s)", k->id,
                        k->path, k->stale_why);
    k->stale_why[0] = 0;
    k->key = gk;
    if (k->kind == EKEY_BP) {
      k->pce_ident = pid;
      /* tables counted of another file than this one: count them whole */
      if (k->tables_known && file_ident_differs(&k->tables_ident, &pid, NULL, 0))
        k->tables_known = false, k->table_saving = 0;
    } else {
      k->mem = mem;
      k->mem_dev = dev;
      k->locked = locked;
    }
    k->ident = id;
    k->file_bytes = size;
    set_device_bytes(k); /* no slot holds k: it was at DISK */
    k->tier = pin && k->kind == EKEY_ZKEY ? ENGINE_TIER_PINNED : ENGINE_TIER_MAPPED;
    k->loads++;
    k->load_s += dt;
    k->refs++;
    *load_s = dt;
    break;
  }
  if (st == CUZK_OK)
    k->last_used = engine_now();
  pthread_mutex_unlock(&e->mu);
  joblog_flush(e); /* the stale and reload lines */
  return st;
}

void keys_release(engine *e, ekey *k) {
  unload_item u = {0};
  pthread_mutex_lock(&e->mu);
  k->refs--;
  k->last_used = engine_now();
  if (!k->refs && !k->holds && k->evict_pending)
    unload_take(e, k, &u);
  pthread_cond_broadcast(&e->key_cv);
  pthread_mutex_unlock(&e->mu);
  unload_run(&u);
}

void keys_free_all(engine *e) {
  for (ekey *k = e->keys, *next; k; k = next) {
    next = k->next;
    unload_item u;
    unload_take(e, k, &u);
    unload_run(&u);
    free(k);
  }
  e->keys = NULL;
}

/* ------------------------------------------------------------ preload, evict */

/* Out-parameters may be NULL. */
static void set_out(bool *b, bool bv, uint64_t *u, uint64_t uv) {
  if (b)
    *b = bv;
  if (u)
    *u = uv;
}

cuzk_status engine_preload(engine *e, const char *circuit_id, bool *already_loaded,
                           uint64_t *load_ms, cuzk_err *err) {
  set_out(already_loaded, false, load_ms, 0);
  if (!circuit_id || !*circuit_id)
    return cuzk_err_set(err, CUZK_INVALID_ARGUMENT, "circuit id is empty");
  pthread_mutex_lock(&e->mu);
  bool ok = e->accepting;
  pthread_mutex_unlock(&e->mu);
  if (!ok)
    return cuzk_err_set(err, CUZK_UNAVAILABLE, "the engine is shutting down");
  ekey *k;
  CUZK_TRY(keys_lookup(e, circuit_id, &k, err));
  pthread_mutex_lock(&e->mu);
  bool already = k->tier >= ENGINE_TIER_MAPPED && !k->loading;
  pthread_mutex_unlock(&e->mu);
  double s;
  cuzk_status st = keys_acquire(e, k, NULL, false, false, &s, err);
  if (st != CUZK_OK)
    return st;
  keys_release(e, k);
  set_out(already_loaded, already, load_ms, (uint64_t)(s * 1000.0 + 0.5));
  return CUZK_OK;
}

cuzk_status engine_evict(engine *e, const char *circuit_id, bool *was_loaded,
                         uint64_t *freed_bytes, cuzk_err *err) {
  set_out(was_loaded, false, freed_bytes, 0);
  unload_item u = {0};
  pthread_mutex_lock(&e->mu);
  ekey *k = circuit_id ? find_key(e, circuit_id) : NULL;
  if (!k) {
    pthread_mutex_unlock(&e->mu);
    return cuzk_err_set(err, CUZK_NOT_FOUND, "unknown circuit '%s' (or never loaded)",
                        circuit_id ? circuit_id : "");
  }
  bool was = k->tier >= ENGINE_TIER_MAPPED || k->loading;
  uint64_t freed = 0;
  if (k->in_memory) {
    /* the caller's key stays loaded: nothing to drop */
  } else if (k->tier >= ENGINE_TIER_MAPPED && !k->loading && !k->refs && !k->holds) {
    freed = k->file_bytes;
    unload_take(e, k, &u);
  } else if (was) {
    k->evict_pending = true;
    pthread_cond_broadcast(&e->work_cv); /* GPU slots holding it drop their copies */
  }
  pthread_mutex_unlock(&e->mu);
  unload_run(&u);
  set_out(was_loaded, was, freed_bytes, freed);
  return CUZK_OK;
}
