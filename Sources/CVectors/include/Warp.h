// The stabiliser's warp (Compositor's WarpMap): one output row of a plane sampled bilinearly
// from the source plane at coordinates interpolated from a coarse grid of the inverse map.
//
// Why C: the row loop computes eight coordinates and weights at a time in vector lanes
// (ext_vector_type), with the gathers between them scalar; clang keeps the lanes in registers,
// where Swift's generic SIMD types left calls in the loop. Edges are repeated: a coordinate
// outside the plane samples its nearest edge pixel.
#ifndef CVEC_WARP_H
#define CVEC_WARP_H

#include <stddef.h>
#include <stdint.h>

/// The row's inverse map: for output pixel x, column node `col[x]` and the fraction `frac[x]` of the
/// way to the next; `nodes` holds the (x, y) source coordinates of the row's grid nodes (this
/// output row's, already interpolated between grid rows).
typedef struct {
    const int32_t *col;
    const float *frac;
    const float *nodes;
} cvec_warp_row;

/// 8-bit plane (`stride` bytes per row), `sw` x `sh` pixels, into `n` output pixels.
void cvec_warp_row_u8(const uint8_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint8_t *dst, int32_t n);
/// 16-bit plane (10-bit samples; `stride` in samples).
void cvec_warp_row_u16(const uint16_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint16_t *dst, int32_t n);

#endif
