// The keyer's composite row kernels (KeyerVectors.compositeLuma, compositeChroma; their blocks of
// sixteen luma pixels / eight chroma samples) with AVX2, for machines that have it
// (cvec_has_avx2), as KeyerRows.h's matte kernels.
//
// Why C: after the matte's kernels moved (KeyerRows.h), these two were the largest Swift lanes
// left in a steady 1080p frame by callgrind (`lockstep kernels`): on the baseline x86-64 build
// each eight-lane operation is two SSE instructions and each byte-to-float widening a chain of
// unpacks. The same arithmetic in the same order, nothing fused, min / max choosing as
// VectorMath's: the same bytes (KeyerVectorsTests holds the two to that).
#ifndef CVEC_KEYER_COMPOSITE_H
#define CVEC_KEYER_COMPOSITE_H

#include <stdint.h>

/// KeyerVectors.compositeLuma's blocks of sixteen pixels (x = 0, 16, ... while x + 16 <= width):
/// `alpha` 255 takes the foreground `p`, 0 the background `q`, else p + (1 - alpha) (q - screen),
/// the screen's luma interpolated along the row from the grid row `screenY` (cells `group0`,
/// `group1` per eight columns, weight `columnT` per column). `out` may be `q`. Returns the pixel
/// where the blocks stopped.
int32_t cvec_composite_luma_avx2(
    const uint8_t *alpha, const uint8_t *p, const uint8_t *q, uint8_t *out, int32_t width, const float *screenY,
    const int32_t *group0, const int32_t *group1, const float *columnT);

/// Despill's numbers (`Despill`): the spill's form (du, dv), how u and v move per unit, the
/// amount, the cast and its partial share, the hue's cosines squared, and whether the limit holds.
typedef struct {
    float du, dv, moveU, moveV, amount, cast, partial, nearCos2, farCos2;
    int32_t limited;
} cvec_despill;

/// What KeyerVectors.compositeChroma's blocks read and write: the two matte rows, the two luma
/// rows, the foreground's and background's chroma rows, the output rows (which may be the
/// background's), the grid rows of the screen's luma, chroma and ratio, the grid cells of each
/// group of eight luma columns and the weight of each sample's even column (ScreenEstimate).
typedef struct {
    const uint8_t *alpha0, *alpha1, *luma0, *luma1;
    const uint8_t *fu, *fv, *bu, *bv;
    uint8_t *ou, *ov;
    const float *screenY, *screenU, *screenV, *ratio;
    const int32_t *group0, *group1;
    const float *evenT;
    cvec_despill despill;
} cvec_chroma_row;

/// KeyerVectors.compositeChroma's blocks of eight chroma samples (cx = 0, 8, ... while
/// 2 cx + 16 <= width). Returns the chroma sample where the blocks stopped.
int32_t cvec_composite_chroma_avx2(const cvec_chroma_row *row, int32_t width);

#endif
