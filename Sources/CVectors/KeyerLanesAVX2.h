// The eight-lane steps the keyer's AVX2 kernels share (KeyerRows.c, KeyerComposite.c): each the
// AVX2 form of the Swift it names, with the same result bit for bit. Private to CVectors (not in
// include/): Swift never sees these.
//
// Each file that includes this sets `#pragma clang fp contract(off)` first: no multiply and add
// may fuse, or the results would differ from the Swift lanes'.
#ifndef CVEC_KEYER_LANES_AVX2_H
#define CVEC_KEYER_LANES_AVX2_H

#if defined(__x86_64__) || defined(__i386__)

#include "KeyerRows.h"
#include <immintrin.h>
#include <string.h>

#define AVX2 __attribute__((target("avx2"), always_inline)) static inline

/// VectorMath.min / max: `a < b ? a : b`, `a > b ? a : b` (minps / maxps return their second
/// operand unless the first wins: the same choice, zeros and all).
AVX2 __m256 vmin(__m256 a, __m256 b) { return _mm256_min_ps(a, b); }
AVX2 __m256 vmax(__m256 a, __m256 b) { return _mm256_max_ps(a, b); }
AVX2 __m256 splat(float x) { return _mm256_set1_ps(x); }

/// KeyerVectors.bytes: eight bytes as Float lanes.
AVX2 __m256 bytes8(const uint8_t *p) {
    int64_t word;
    memcpy(&word, p, 8);
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(word)));
}

/// KeyerVectors.strength: max(min(ku u + kv v, cap min(e1, e2)), 0).
AVX2 __m256 strength(const cvec_key *k, __m256 u, __m256 v) {
    __m256 s = _mm256_add_ps(_mm256_mul_ps(splat(k->ku), u), _mm256_mul_ps(splat(k->kv), v));
    __m256 e1 = _mm256_add_ps(_mm256_mul_ps(splat(k->d1u), u), _mm256_mul_ps(splat(k->d1v), v));
    __m256 e2 = _mm256_add_ps(_mm256_mul_ps(splat(k->d2u), u), _mm256_mul_ps(splat(k->d2v), v));
    return vmax(vmin(s, _mm256_mul_ps(splat(k->cap), vmin(e1, e2))), _mm256_setzero_ps());
}

/// KeyerVectors.clampBits: clamp(x, 0, 255) + 1.5 * 2^23, as Int32 bits (the rounded byte in
/// the low eight).
AVX2 __m256i clampBits(__m256 x) {
    return _mm256_castps_si256(_mm256_add_ps(vmin(vmax(x, _mm256_setzero_ps()), splat(255)), splat(12582912.0f)));
}

/// KeyerVectors.clampBytes: clampBits' low byte of each lane.
AVX2 void storeClampedBytes(__m256 x, uint8_t *p) {
    __m256i b = _mm256_and_si256(clampBits(x), _mm256_set1_epi32(0xFF));
    __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
    _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(words, words));
}

/// ScreenEstimate.cells: the cells of two groups of four chroma samples, each broadcast to its four lanes.
AVX2 __m256 cells(const float *row, const int32_t *group, int32_t j) {
    return _mm256_set_m128(_mm_set1_ps(row[group[j + 1]]), _mm_set1_ps(row[group[j]]));
}

#endif

#endif
