#include "Halve.h"
#include <immintrin.h>

// 32 source bytes of each row make 16 outputs: vpmaddubsw against ones gives the 16 horizontal
// pairs' sums as 16-bit words (at most 510), the two rows' words add (at most 1020), + 2, >> 2,
// and vpackuswb packs them (lanes interleave per 128 bits; vpermq puts the halves in order).
__attribute__((target("avx2")))
int32_t cvec_halve_row8_avx2(const uint8_t *a, const uint8_t *b, int32_t count, uint8_t *out) {
    const __m256i ones = _mm256_set1_epi8(1), two = _mm256_set1_epi16(2);
    int32_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i s0 = _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(a + 2 * i)), ones),
                                      _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(b + 2 * i)), ones));
        __m256i s1 = _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(a + 2 * i + 32)), ones),
                                      _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(b + 2 * i + 32)), ones));
        s0 = _mm256_srli_epi16(_mm256_add_epi16(s0, two), 2);
        s1 = _mm256_srli_epi16(_mm256_add_epi16(s1, two), 2);
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(s0, s1), 0xD8);
        _mm256_storeu_si256((__m256i *)(out + i), packed);
    }
    for (; i + 16 <= count; i += 16) {
        __m256i s = _mm256_add_epi16(_mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(a + 2 * i)), ones),
                                     _mm256_maddubs_epi16(_mm256_loadu_si256((const __m256i *)(b + 2 * i)), ones));
        s = _mm256_srli_epi16(_mm256_add_epi16(s, two), 2);
        __m128i packed = _mm_packus_epi16(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        _mm_storeu_si128((__m128i *)(out + i), packed);
    }
    return i;
}

// 16 source words of each row make 8 outputs: a pair is one 32-bit lane, (lane & 0xffff) +
// (lane >> 16) its sum whatever the samples' values (vpmaddwd would read them as signed), the
// rows add, + 2, >> 2, and vpackusdw packs them (every mean fits 16 bits).
__attribute__((target("avx2")))
static inline __m256i cvec_pair_sums16(const uint16_t *p) {
    __m256i x = _mm256_loadu_si256((const __m256i *)p);
    return _mm256_add_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0xffff)), _mm256_srli_epi32(x, 16));
}

__attribute__((target("avx2")))
int32_t cvec_halve_row16_avx2(const uint16_t *a, const uint16_t *b, int32_t count, uint16_t *out) {
    const __m256i two = _mm256_set1_epi32(2);
    int32_t i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i s = _mm256_add_epi32(cvec_pair_sums16(a + 2 * i), cvec_pair_sums16(b + 2 * i));
        s = _mm256_srli_epi32(_mm256_add_epi32(s, two), 2);
        __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
        _mm_storeu_si128((__m128i *)(out + i), packed);
    }
    return i;
}
