// C's standard output through a stream of its own over descriptor 1, which keeps the errno of the
// write that failed (StandardOutput.swift, Engine, says why). In C because fopencookie is a GNU
// extension Swift's Glibc module does not declare (it needs _GNU_SOURCE before <stdio.h>).
#ifndef CSTANDARD_OUTPUT_H
#define CSTANDARD_OUTPUT_H

#include <stdio.h>

/// Puts in `stdout` a new stream writing to descriptor 1, buffered by line when `by_line`, else
/// in blocks (the old one flushed first). Returns 0, or -1 (`stdout` left as it was) if the
/// stream cannot be made. Call before anything is printed.
int cso_install(int by_line);

/// Flushes `stdout`. Returns 0 when all it was given is written; else 1, with `*cause` the
/// errno of the first write that failed (0 when unknown).
int cso_finish(int *cause);

#endif
