// MatteMotion.measure's blocks (the largest luma change of each 16x16 block since the last
// frame) with AVX2, for machines that have it (cvec_has_avx2), as KeyerRows.h's matte kernels.
//
// Why C: after the matte's kernels moved to C, this pass (the eighth session's, Swift SIMD16 on
// the baseline x86-64 build) was a fifth of the keyer's time in `perf` (`lockstep kernels`): it
// reads the whole luma plane and its history once a frame, sixteen bytes an operation, and took
// the largest value of every block lane by lane. Here thirty-two bytes an operation, and bytes
// only (|a - b| as the larger of the two saturated differences), so the result is the same
// integers (KeyerVectorsTests holds the two to that).
#ifndef CVEC_MATTE_MOTION_H
#define CVEC_MATTE_MOTION_H

#include <stddef.h>
#include <stdint.h>

/// MatteMotion.measure's whole blocks of one block row: for each block column c < `blocks`, the
/// largest |luma - history| over columns 16c ..< 16c + 16 of rows 0 ..< `rows` (`luma` and
/// `history` each from its first row, `lumaStride` / `historyStride` bytes a row) into
/// `change[c]`. `lanes`: scratch of 16 x `blocks` bytes.
void cvec_motion_blocks_avx2(
    const uint8_t *luma, ptrdiff_t lumaStride, const uint8_t *history, ptrdiff_t historyStride, int32_t rows, int32_t blocks,
    uint8_t *lanes, uint8_t *change);

/// ChromaMotion.mark's sixteen-sample chunks of one chroma row (c < `chunks`): `lanes` (sixteen
/// bytes a chunk) takes the lane-wise larger of itself and |u - lastU|, |v - lastV|, and the row
/// becomes the last frame's (`lastU`, `lastV` take `u`, `v`).
void cvec_chroma_motion_row_avx2(const uint8_t *u, const uint8_t *v, uint8_t *lastU, uint8_t *lastV, int32_t chunks, uint8_t *lanes);

#endif
