// ForegroundSmoothing.apply's blocks of sixteen luma columns (two luma rows and the chroma row
// between them) with AVX2, for machines that have it (cvec_has_avx2), as KeyerRows.h's matte
// kernels.
//
// Why C: in a steady 1080p frame of `lockstep kernels` (perf, tenth session) the Swift loop took
// 0.93 ms of the keyer's 6.9, although only about 6,000 of its 2 million pixels are partial:
// nearly all of it waiting on the colour history (a plane of floats, 8 MB for luma), one cache
// line a partial pixel, which the hardware's prefetch does not see coming (the edges run down
// the picture: each row's partial pixels a new line). Here each block with a partial pixel asks
// for the next chroma row's lines of the same columns before its own arithmetic (an edge that
// crosses this row mostly crosses the next), and the arithmetic is eight lanes an operation.
// The same operations in the same order as the Swift, nothing fused: the same bytes and the
// same history (ForegroundSmoothingTests holds the two to that).
#ifndef CVEC_FOREGROUND_SMOOTHING_H
#define CVEC_FOREGROUND_SMOOTHING_H

#include <stdint.h>

/// The rows of one chroma row's filter (`ForegroundSmoothing.apply`): the matte now (`a0`, `a1`)
/// and in the last frame (`p0`, `p1`), the background's luma rows, chroma samples, the
/// composite's rows (written where the colour is held), and the colour history (`y0`, `y1`
/// floats a luma pixel, `u`, `v` a chroma sample). With one luma row, every second-row pointer
/// is the first's.
typedef struct {
    const uint8_t *a0, *a1, *p0, *p1;
    const uint8_t *by0, *by1, *bu, *bv;
    uint8_t *o0, *o1, *ou, *ov;
    float *y0, *y1, *u, *v;
} cvec_foreground_rows;

/// The blocks of sixteen luma columns (x = 0, 16, ... while x + 16 <= width) of `rows`: `moving`
/// (one byte a block, nonzero: moved; NULL: none moved), keeping `keep` of the last colour,
/// gated from `gateFrom` to `gateTo` levels, partial from `partialFrom` to 254; `secondRow` 0
/// when the chroma row has one luma row. `next` (NULL: none): the history rows of the next
/// chroma row, whose lines are prefetched. Returns the column where the blocks stopped.
int32_t cvec_foreground_rows_avx2(
    const cvec_foreground_rows *rows, const cvec_foreground_rows *next, const uint8_t *moving, int32_t width, int32_t secondRow,
    float keep, float gateFrom, float gateTo, int32_t partialFrom);

#endif
