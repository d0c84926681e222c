// MatteMotion.h says what this is and why. Integers only: nothing to round or fuse.

#include "MatteMotion.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>
#include <string.h>

/// The largest of sixteen bytes.
__attribute__((target("avx2"), always_inline)) static inline uint8_t largestByte(__m128i v) {
    v = _mm_max_epu8(v, _mm_srli_si128(v, 8));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 4));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 2));
    v = _mm_max_epu8(v, _mm_srli_si128(v, 1));
    return (uint8_t)_mm_cvtsi128_si32(v);
}

/// |a - b| per byte: one of the two saturated differences is 0.
__attribute__((target("avx2"), always_inline)) static inline __m256i absoluteDifference(__m256i a, __m256i b) {
    return _mm256_or_si256(_mm256_subs_epu8(a, b), _mm256_subs_epu8(b, a));
}

/// The same on sixteen bytes.
__attribute__((target("avx2"), always_inline)) static inline __m128i absoluteDifference16(__m128i a, __m128i b) {
    return _mm_or_si128(_mm_subs_epu8(a, b), _mm_subs_epu8(b, a));
}

__attribute__((target("avx2")))
void cvec_motion_blocks_avx2(
    const uint8_t *luma, ptrdiff_t lumaStride, const uint8_t *history, ptrdiff_t historyStride, int32_t rows, int32_t blocks,
    uint8_t *lanes, uint8_t *change) {
    // Row by row (the planes are read in order), each block's sixteen lanes kept in `lanes`
    // (L1: 16 bytes a block) until the block row is done; two blocks an operation.
    const int32_t pairs = blocks / 2;
    memset(lanes, 0, 16 * (size_t)blocks);
    for (int32_t y = 0; y < rows; y++) {
        const uint8_t *l = luma + y * lumaStride, *h = history + y * historyStride;
        for (int32_t i = 0; i < 32 * pairs; i += 32) {
            __m256i d = absoluteDifference(_mm256_loadu_si256((const __m256i *)(l + i)), _mm256_loadu_si256((const __m256i *)(h + i)));
            _mm256_storeu_si256((__m256i *)(lanes + i), _mm256_max_epu8(_mm256_loadu_si256((const __m256i *)(lanes + i)), d));
        }
        if (blocks % 2) {
            // An odd block count: the last block on sixteen lanes.
            int32_t i = 32 * pairs;
            __m128i a = _mm_loadu_si128((const __m128i *)(l + i)), b = _mm_loadu_si128((const __m128i *)(h + i));
            __m128i d = absoluteDifference16(a, b);
            _mm_storeu_si128((__m128i *)(lanes + i), _mm_max_epu8(_mm_loadu_si128((const __m128i *)(lanes + i)), d));
        }
    }
    for (int32_t c = 0; c < blocks; c++) change[c] = largestByte(_mm_loadu_si128((const __m128i *)(lanes + 16 * c)));
}

/// Thirty-two bytes of one channel: the change from `last`, which becomes `now`.
__attribute__((target("avx2"), always_inline)) static inline __m256i change32(const uint8_t *now, uint8_t *last) {
    __m256i a = _mm256_loadu_si256((const __m256i *)now), b = _mm256_loadu_si256((const __m256i *)last);
    _mm256_storeu_si256((__m256i *)last, a);
    return absoluteDifference(a, b);
}

__attribute__((target("avx2")))
void cvec_chroma_motion_row_avx2(const uint8_t *u, const uint8_t *v, uint8_t *lastU, uint8_t *lastV, int32_t chunks, uint8_t *lanes) {
    int32_t i = 0;
    for (; i + 32 <= 16 * chunks; i += 32) {
        __m256i d = _mm256_max_epu8(change32(u + i, lastU + i), change32(v + i, lastV + i));
        _mm256_storeu_si256((__m256i *)(lanes + i), _mm256_max_epu8(_mm256_loadu_si256((const __m256i *)(lanes + i)), d));
    }
    if (i < 16 * chunks) {
        // An odd chunk count: the last chunk on sixteen bytes.
        __m128i a = _mm_loadu_si128((const __m128i *)(u + i)), b = _mm_loadu_si128((const __m128i *)(lastU + i));
        __m128i c = _mm_loadu_si128((const __m128i *)(v + i)), e = _mm_loadu_si128((const __m128i *)(lastV + i));
        _mm_storeu_si128((__m128i *)(lastU + i), a);
        _mm_storeu_si128((__m128i *)(lastV + i), c);
        __m128i d = _mm_max_epu8(absoluteDifference16(a, b), absoluteDifference16(c, e));
        _mm_storeu_si128((__m128i *)(lanes + i), _mm_max_epu8(_mm_loadu_si128((const __m128i *)(lanes + i)), d));
    }
}

#else

// Never called (cvec_has_avx2 is 0): a call would be a bug, so it stops the process.
void cvec_motion_blocks_avx2(
    const uint8_t *luma, ptrdiff_t lumaStride, const uint8_t *history, ptrdiff_t historyStride, int32_t rows, int32_t blocks,
    uint8_t *lanes, uint8_t *change) {
    (void)luma; (void)lumaStride; (void)history; (void)historyStride; (void)rows; (void)blocks; (void)lanes; (void)change;
    __builtin_trap();
}

void cvec_chroma_motion_row_avx2(const uint8_t *u, const uint8_t *v, uint8_t *lastU, uint8_t *lastV, int32_t chunks, uint8_t *lanes) {
    (void)u; (void)v; (void)lastU; (void)lastV; (void)chunks; (void)lanes;
    __builtin_trap();
}

#endif
