// RenderedChange.measure's row (the absolute luma difference from the last rendered picture, at
// every 4th pixel) with AVX2, for machines that have it (cvec_has_avx2).
//
// Why C: the Swift loop (a byte from each 32-bit word, widened, compared and summed one at a
// time) cost 0.41 ms a 1080p frame in the chromakey bench's job (`perf`, 2026-11-30), a
// seventeenth of Lockstep's own 7.1 ms there, for 130 thousand byte differences. Here thirty-two
// samples an operation: the low bytes of 128 bytes packed into 32, and their sum of absolute
// differences from the last picture's (`psadbw`). Integers only: the same total.
#ifndef CVEC_RENDERED_CHANGE_H
#define CVEC_RENDERED_CHANGE_H

#include <stdint.h>

/// Samples 0 ..< 32 * (words / 32) of one row: sample i is `row[4 i]`; adds the sum of
/// |sample - the last picture's| to `*total` and stores the samples into `previous` (in the
/// packs' order, not the Swift loop's: an instance uses one or the other). Reads bytes
/// 0 ..< 4 * (that many samples) of `row`. Returns the samples done (the caller does the rest).
int32_t cvec_rendered_change_row_avx2(const uint8_t *row, uint8_t *previous, int32_t words, uint64_t *total);

#endif
