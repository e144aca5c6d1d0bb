/* cuzk's version, written in this one place; `cuzk --version` and
 * `cuzk-daemon --version` print it. */
#ifndef CUZK_VERSION_H
#define CUZK_VERSION_H

#define CUZK_VERSION "0.1.0"

/* The build's `git describe --always --dirty`, which the Makefile passes
 * to the objects that print the version; "" when the build had none (a
 * tree that is not a git checkout). */
#ifndef CUZK_GIT_DESCRIBE
#define CUZK_GIT_DESCRIBE ""
#endif

/* "0.1.0" or "0.1.0 (git 25affae-dirty)", for a printf "%s%s%s%s". */
#define CUZK_VERSION_ARGS                                                                  \
  CUZK_VERSION, *CUZK_GIT_DESCRIBE ? " (git " : "", CUZK_GIT_DESCRIBE, *CUZK_GIT_DESCRIBE ? ")" : ""

#endif
