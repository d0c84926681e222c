// The keyer's busiest row kernels (KeyerVectors.strengthRow, matteRow, smoothRow,
// ScreenEstimate.spreadRow, measure; their blocks of eight or sixteen) with AVX2, for machines that have
// it (cvec_has_avx2).
//
// Why C: the build targets baseline x86-64, where each eight-lane operation of the Swift kernels
// is two SSE instructions and each byte-to-float widening a chain of unpacks; these two kernels
// were about two thirds of the keyer's instructions (callgrind, 1080p `lockstep kernels`). Swift cannot
// compile one function for another instruction set; here each is compiled for AVX2 (target
// attribute) and chosen at run time, as the colour chain is (ColorChain.h).
//
// They are the Swift kernels' arithmetic in the Swift kernels' order, without fused
// multiply-adds, and min / max choose as VectorMath's (`a < b ? a : b`, `a > b ? a : b`), so they
// give the same bytes and floats, bit for bit (KeyerVectorsTests holds the two to that).
#ifndef CVEC_KEYER_ROWS_H
#define CVEC_KEYER_ROWS_H

#include <stdint.h>

/// ColourDifference's forms (ku, kv; d1u, d1v; d2u, d2v) and cap.
typedef struct {
    float ku, kv, d1u, d1v, d2u, d2v, cap;
} cvec_key;

/// KeyerVectors.strengthRow's eight-lane loop: the screen strength of chroma samples
/// 0 ..< 8 * (count / 8) into `out`. Returns the samples done (the caller's scalar tail does the rest).
int32_t cvec_strength_row_avx2(const cvec_key *key, const uint8_t *u, const uint8_t *v, int32_t count, float *out);

/// What KeyerVectors.matteRow's blocks read, besides the row: `sHalf` valid from index -1,
/// the local screen's 1 / strength and allowance at the even and odd columns, the luma row,
/// the core flags (NULL: no core matte), and MatteLevels' black, scale and cuts; `opaque` is
/// the levels' byte of 1.
typedef struct {
    const float *sHalf;
    const float *inverseEven, *inverseOdd, *allowanceEven, *allowanceOdd;
    const uint8_t *luma;
    const uint8_t *core;
    float black, scale, transparentFrom, opaqueUpTo;
    uint8_t opaque;
} cvec_matte_row;

/// KeyerVectors.matteRow's blocks of sixteen luma pixels (chroma samples cx, cx + 8, ... while
/// 2 cx + 16 <= width) into `out`. Returns the chroma sample where the blocks stopped.
int32_t cvec_matte_row_avx2(const cvec_matte_row *row, int32_t width, uint8_t *out);

/// KeyerVectors.matteRow's first step: 0.75 near + 0.25 far for samples 0 ..< 8 * (count / 8).
/// Returns the samples done.
int32_t cvec_mix_rows_avx2(const float *near, const float *far, int32_t count, float *out);

/// KeyerVectors.smoothRow's blocks of sixteen pixels (x = 0, 16, ... while x + 16 <= width): the
/// matte `alpha` filtered against its history `historyAlpha` by the luma's change from
/// `historyLuma`, keeping `keep`; the history takes the row. Returns the pixel where the blocks stopped.
int32_t cvec_smooth_row_avx2(
    uint8_t *alpha, const uint8_t *luma, uint8_t *historyAlpha, uint8_t *historyLuma, int32_t width, float keep);

/// ScreenEstimate.spreadRow's blocks: the interpolated grid row `row` at the even and odd luma
/// column of chroma samples cx ..< cx + 8 (cx = 0, 8, ... while 2 cx + 16 <= width), from the two
/// grid cells of each group of eight luma columns (`group0`, `group1`) and the weights `evenT`,
/// `oddT`. Returns the chroma sample where the blocks stopped.
int32_t cvec_spread_row_avx2(
    const float *row, const int32_t *group0, const int32_t *group1, const float *evenT, const float *oddT, int32_t width,
    float *even, float *odd);

/// ScreenEstimate.measure's lanes on one measured chroma row: every other sample (cx = 0, 2, 4, ...),
/// sixteen chroma samples and thirty-two luma columns a step while cx + 16 <= cw and
/// 2 cx + 32 <= width. Per sample its weight (0 unless its strength is over `threshold`), the
/// mean of its four luma pixels (rows `luma0`, `luma1`), u and v, into `weight`, `luma`, `su`,
/// `sv` from index 0. Returns the chroma sample where the steps stopped (cx / 2 samples written).
int32_t cvec_screen_samples_avx2(
    const cvec_key *key, const uint8_t *u, const uint8_t *v, const uint8_t *luma0, const uint8_t *luma1, int32_t cw, int32_t width,
    float threshold, float inverseReference, float *weight, float *luma, float *su, float *sv);

#endif
