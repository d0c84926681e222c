// RenderedChange.h says what this is and why.

#include "RenderedChange.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

__attribute__((target("avx2")))
int32_t cvec_rendered_change_row_avx2(const uint8_t *row, uint8_t *previous, int32_t words, uint64_t *total) {
    const __m256i low = _mm256_set1_epi32(0xFF);
    __m256i sums = _mm256_setzero_si256();
    int32_t i = 0;
    for (; i + 32 <= words; i += 32) {
        const uint8_t *p = row + 4 * i;
        __m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)p), low);
        __m256i b = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(p + 32)), low);
        __m256i c = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(p + 64)), low);
        __m256i d = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(p + 96)), low);
        // The packs work within 128-bit halves, so the samples come out in groups of four as
        // 0-3, 8-11, 16-19, 24-27, 4-7, ...: `previous` keeps them so, the same order every
        // frame, which is all a sum of differences needs.
        __m256i samples = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
        __m256i last = _mm256_loadu_si256((const __m256i *)(previous + i));
        sums = _mm256_add_epi64(sums, _mm256_sad_epu8(samples, last));
        _mm256_storeu_si256((__m256i *)(previous + i), samples);
    }
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    *total += (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
    return i;
}

#else

// Never called (cvec_has_avx2 is 0): a call would be a bug, so it stops the process.
int32_t cvec_rendered_change_row_avx2(const uint8_t *row, uint8_t *previous, int32_t words, uint64_t *total) {
    (void)row; (void)previous; (void)words; (void)total;
    __builtin_trap();
}

#endif
