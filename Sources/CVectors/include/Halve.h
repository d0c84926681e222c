// The 2x2 box's rows (BoxDownscale.halveRow: a grid's cells, an exact half) with AVX2, for machines
// that have it (cvec_has_avx2).
//
// Why C: the Swift SIMD16 row (baseline x86-64: SSE2, widening and narrowing by unpacks) was 4.0%
// of the four-camera grid's CPU (perf, 1080p30 x4), about 1 ms a 1080p input picture; here 64
// source bytes of each row are a step (vpmaddubsw sums each horizontal pair, one add joins the rows).
// The same rounding: (a + b + c + d + 2) >> 2 (BoxDownscaleTests hold the two to the same bytes).
#ifndef CVEC_HALVE_H
#define CVEC_HALVE_H

#include <stdint.h>

/// Output samples 0 ..< 16 * (count / 16) of the 8-bit row pair `a`, `b` (2 * count samples each
/// read, no more); returns the samples done (the caller's loop does the rest).
int32_t cvec_halve_row8_avx2(const uint8_t *a, const uint8_t *b, int32_t count, uint8_t *out);

/// The same for 16-bit samples (10- and 12-bit planes; any 16-bit values), 8 a step.
int32_t cvec_halve_row16_avx2(const uint16_t *a, const uint16_t *b, int32_t count, uint16_t *out);

#endif
