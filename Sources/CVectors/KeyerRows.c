// KeyerRows.h says what this is and why. Each line names the Swift it mirrors
// (KeyerVectors.strengthRow, matteRow, smoothRow; ScreenEstimate.spreadRow, measure; the steps they
// share are KeyerLanesAVX2.h's); the order of every operation is the Swift one, and nothing is
// fused, so the results are the same.
#pragma clang fp contract(off)

#include "KeyerRows.h"
#include "KeyerLanesAVX2.h"

#if defined(__x86_64__) || defined(__i386__)

__attribute__((target("avx2")))
int32_t cvec_strength_row_avx2(const cvec_key *key, const uint8_t *u, const uint8_t *v, int32_t count, float *out) {
    int32_t cx = 0;
    const __m256 centre = splat(128);
    for (; cx + 8 <= count; cx += 8) {
        __m256 s = strength(key, _mm256_sub_ps(bytes8(u + cx), centre), _mm256_sub_ps(bytes8(v + cx), centre));
        _mm256_storeu_ps(out + cx, s);
    }
    return cx;
}

__attribute__((target("avx2")))
int32_t cvec_matte_row_avx2(const cvec_matte_row *r, int32_t w, uint8_t *out) {
    const float *sHalf = r->sHalf;
    const __m128i opaque = _mm_set1_epi8((char)r->opaque), transparent = _mm_setzero_si128();
    const __m256 transparentFrom = splat(r->transparentFrom), opaqueUpTo = splat(r->opaqueUpTo);
    const __m256 zero = _mm256_setzero_ps(), quarter = splat(0.25f), threeQuarters = splat(0.75f);
    const __m256 black = splat(r->black), scale = splat(r->scale), one = splat(1), sixteen = splat(16);
    const __m128i lowBytes = _mm_set1_epi16(0xFF);
    int32_t cx = 0;
    for (; 2 * cx + 16 <= w; cx += 8) {
        __m256 before = _mm256_loadu_ps(sHalf + cx - 1), s = _mm256_loadu_ps(sHalf + cx), next = _mm256_loadu_ps(sHalf + cx + 1);
        // Any bit set in the three (a foreground run has strength +0 throughout).
        __m256i any = _mm256_or_si256(_mm256_or_si256(_mm256_castps_si256(before), _mm256_castps_si256(s)), _mm256_castps_si256(next));
        uint64_t coreWord = 0;
        if (r->core) memcpy(&coreWord, r->core + cx, 8);
        if (_mm256_testz_si256(any, any) || coreWord == ~(uint64_t)0) {
            _mm_storeu_si128((__m128i *)(out + 2 * cx), opaque);
            continue;
        }
        // Luma above black at the even and odd columns: the low and high bytes of 16-bit words.
        __m128i lumaWords = _mm_loadu_si128((const __m128i *)(r->luma + 2 * cx));
        __m256 le = vmax(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_and_si128(lumaWords, lowBytes))), sixteen), zero);
        __m256 lo = vmax(_mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_srli_epi16(lumaWords, 8))), sixteen), zero);
        __m256 pe = _mm256_sub_ps(
            _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(threeQuarters, s), _mm256_mul_ps(quarter, before)), _mm256_loadu_ps(r->inverseEven + cx)),
            _mm256_mul_ps(le, _mm256_loadu_ps(r->allowanceEven + cx)));
        __m256 po = _mm256_sub_ps(
            _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(threeQuarters, s), _mm256_mul_ps(quarter, next)), _mm256_loadu_ps(r->inverseOdd + cx)),
            _mm256_mul_ps(lo, _mm256_loadu_ps(r->allowanceOdd + cx)));
        if (coreWord == 0) {
            __m256 past = _mm256_and_ps(_mm256_cmp_ps(pe, transparentFrom, _CMP_GE_OQ), _mm256_cmp_ps(po, transparentFrom, _CMP_GE_OQ));
            if (_mm256_movemask_ps(past) == 0xFF) {
                _mm_storeu_si128((__m128i *)(out + 2 * cx), transparent);
                continue;
            }
        }
        __m256 within = _mm256_and_ps(_mm256_cmp_ps(pe, opaqueUpTo, _CMP_LE_OQ), _mm256_cmp_ps(po, opaqueUpTo, _CMP_LE_OQ));
        if (_mm256_movemask_ps(within) == 0xFF) {
            _mm_storeu_si128((__m128i *)(out + 2 * cx), opaque);
            continue;
        }
        __m256 even = _mm256_mul_ps(_mm256_sub_ps(_mm256_sub_ps(one, pe), black), scale);
        __m256 odd = _mm256_mul_ps(_mm256_sub_ps(_mm256_sub_ps(one, po), black), scale);
        if (r->core && coreWord != 0) {
            __m256 c = bytes8(r->core + cx);
            even = vmax(even, c);
            odd = vmax(odd, c);
        }
        // Even and odd bytes interleaved as one little-endian 16-bit word per sample.
        const __m256i low = _mm256_set1_epi32(0xFF);
        __m256i both = _mm256_or_si256(_mm256_and_si256(clampBits(even), low), _mm256_slli_epi32(_mm256_and_si256(clampBits(odd), low), 8));
        __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(both), _mm256_extracti128_si256(both, 1));
        _mm_storeu_si128((__m128i *)(out + 2 * cx), words);
    }
    return cx;
}

__attribute__((target("avx2")))
int32_t cvec_mix_rows_avx2(const float *near, const float *far, int32_t count, float *out) {
    int32_t cx = 0;
    for (; cx + 8 <= count; cx += 8) {
        _mm256_storeu_ps(out + cx, _mm256_add_ps(_mm256_mul_ps(splat(0.75f), _mm256_loadu_ps(near + cx)), _mm256_mul_ps(splat(0.25f), _mm256_loadu_ps(far + cx))));
    }
    return cx;
}

/// KeyerVectors.smoothRow's block of sixteen pixels at x.
__attribute__((target("avx2"), always_inline))
static inline void smoothBlock(uint8_t *a, const uint8_t *l, uint8_t *ha, uint8_t *hl, int32_t x, float keep) {
    const __m256 zero = _mm256_setzero_ps(), one = splat(1), tenth = splat(1.0f / 10.0f), sixtyFourth = splat(1.0f / 64.0f);
    const __m256 six = splat(6), sixtyFour = splat(64), kept = splat(keep);
    uint64_t a0, a1, h0, h1;
    memcpy(&a0, a + x, 8); memcpy(&a1, a + x + 8, 8); memcpy(&h0, ha + x, 8); memcpy(&h1, ha + x + 8, 8);
    if (((a0 ^ h0) | (a1 ^ h1)) != 0) {
        for (int half = 0; half < 2; half++) {
            int32_t i = x + 8 * half;
            __m256 lv = bytes8(l + i), hlv = bytes8(hl + i), av = bytes8(a + i), hav = bytes8(ha + i);
            __m256 diff = vmax(_mm256_sub_ps(lv, hlv), _mm256_sub_ps(hlv, lv));
            __m256 jump = vmax(_mm256_sub_ps(av, hav), _mm256_sub_ps(hav, av));
            __m256 byLuma = vmin(vmax(_mm256_mul_ps(_mm256_sub_ps(diff, six), tenth), zero), one);
            __m256 byMatte = vmin(vmax(_mm256_mul_ps(_mm256_sub_ps(jump, sixtyFour), sixtyFourth), zero), one);
            __m256 k = _mm256_mul_ps(kept, _mm256_sub_ps(one, vmax(byLuma, byMatte)));
            storeClampedBytes(_mm256_add_ps(av, _mm256_mul_ps(k, _mm256_sub_ps(hav, av))), a + i);
        }
        memcpy(ha + x, a + x, 16);
    }
    memcpy(hl + x, l + x, 16);
}

__attribute__((target("avx2")))
int32_t cvec_smooth_row_avx2(uint8_t *a, const uint8_t *l, uint8_t *ha, uint8_t *hl, int32_t w, float keep) {
    int32_t x = 0;
    for (; x + 32 <= w; x += 32) {
        // Two blocks whose matte is what it was (most of a still picture): only the luma is
        // kept, thirty-two bytes at once; else each block as below.
        __m256i same = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(a + x)), _mm256_loadu_si256((const __m256i *)(ha + x)));
        if (_mm256_movemask_epi8(same) == -1) {
            _mm256_storeu_si256((__m256i *)(hl + x), _mm256_loadu_si256((const __m256i *)(l + x)));
            continue;
        }
        smoothBlock(a, l, ha, hl, x, keep);
        smoothBlock(a, l, ha, hl, x + 16, keep);
    }
    for (; x + 16 <= w; x += 16) smoothBlock(a, l, ha, hl, x, keep);
    return x;
}

__attribute__((target("avx2")))
int32_t cvec_spread_row_avx2(
    const float *row, const int32_t *group0, const int32_t *group1, const float *evenT, const float *oddT, int32_t width,
    float *even, float *odd) {
    int32_t cx = 0;
    for (; 2 * cx + 16 <= width; cx += 8) {
        __m256 g0 = cells(row, group0, cx / 4), g1 = cells(row, group1, cx / 4);
        __m256 d = _mm256_sub_ps(g1, g0);
        _mm256_storeu_ps(even + cx, _mm256_add_ps(g0, _mm256_mul_ps(_mm256_loadu_ps(evenT + cx), d)));
        _mm256_storeu_ps(odd + cx, _mm256_add_ps(g0, _mm256_mul_ps(_mm256_loadu_ps(oddT + cx), d)));
    }
    return cx;
}

/// ScreenEstimate.measure's lanes: every other chroma sample of a measured row, eight a step.
__attribute__((target("avx2")))
int32_t cvec_screen_samples_avx2(
    const cvec_key *key, const uint8_t *u, const uint8_t *v, const uint8_t *luma0, const uint8_t *luma1, int32_t cw, int32_t w,
    float threshold, float inverseReference, float *weight, float *luma, float *su, float *sv) {
    const __m256 centre = splat(128), sixteen = splat(16), eight = splat(8), quarter = splat(0.25f);
    const __m256 lumaScale = splat(255.0f / 219.0f), above = splat(threshold), inverse = splat(inverseReference);
    const __m128i lowBytes = _mm_set1_epi16(0xFF);
    const __m256i low = _mm256_set1_epi32(0xFF);
    int32_t cx = 0, n = 0;
    for (; cx + 16 <= cw && 2 * cx + 32 <= w; cx += 16, n += 8) {
        // Samples cx, cx + 2, ... cx + 14: the low byte of each 16-bit word (KeyerVectors.evenBytes).
        __m256 uf = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(u + cx)), lowBytes))), centre);
        __m256 vf = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(_mm_and_si128(_mm_loadu_si128((const __m128i *)(v + cx)), lowBytes))), centre);
        __m256 s = strength(key, uf, vf);
        // Columns 2cx and 2cx + 1 of each sample: the two low bytes of 32-bit words, in both rows.
        __m256i q0 = _mm256_loadu_si256((const __m256i *)(luma0 + 2 * cx)), q1 = _mm256_loadu_si256((const __m256i *)(luma1 + 2 * cx));
        __m256i sum = _mm256_add_epi32(
            _mm256_add_epi32(_mm256_add_epi32(_mm256_and_si256(q0, low), _mm256_and_si256(_mm256_srli_epi32(q0, 8), low)), _mm256_and_si256(q1, low)),
            _mm256_and_si256(_mm256_srli_epi32(q1, 8), low));
        __m256 mean = _mm256_mul_ps(_mm256_cvtepi32_ps(sum), quarter);
        __m256 ratio = _mm256_div_ps(s, vmax(_mm256_mul_ps(_mm256_sub_ps(mean, sixteen), lumaScale), eight));
        __m256 t = _mm256_mul_ps(_mm256_mul_ps(s, inverse), ratio), t2 = _mm256_mul_ps(t, t);
        _mm256_storeu_ps(weight + n, _mm256_and_ps(_mm256_mul_ps(t2, t2), _mm256_cmp_ps(s, above, _CMP_GT_OQ)));
        _mm256_storeu_ps(luma + n, mean);
        _mm256_storeu_ps(su + n, uf);
        _mm256_storeu_ps(sv + n, vf);
    }
    return cx;
}

#else

// Never called (cvec_has_avx2 is 0): a call would be a bug, so it stops the process.
int32_t cvec_strength_row_avx2(const cvec_key *key, const uint8_t *u, const uint8_t *v, int32_t count, float *out) {
    (void)key; (void)u; (void)v; (void)count; (void)out;
    __builtin_trap();
}
int32_t cvec_matte_row_avx2(const cvec_matte_row *r, int32_t w, uint8_t *out) {
    (void)r; (void)w; (void)out;
    __builtin_trap();
}
int32_t cvec_mix_rows_avx2(const float *near, const float *far, int32_t count, float *out) {
    (void)near; (void)far; (void)count; (void)out;
    __builtin_trap();
}
int32_t cvec_smooth_row_avx2(uint8_t *a, const uint8_t *l, uint8_t *ha, uint8_t *hl, int32_t w, float keep) {
    (void)a; (void)l; (void)ha; (void)hl; (void)w; (void)keep;
    __builtin_trap();
}
int32_t cvec_spread_row_avx2(
    const float *row, const int32_t *group0, const int32_t *group1, const float *evenT, const float *oddT, int32_t width,
    float *even, float *odd) {
    (void)row; (void)group0; (void)group1; (void)evenT; (void)oddT; (void)width; (void)even; (void)odd;
    __builtin_trap();
}

int32_t cvec_screen_samples_avx2(
    const cvec_key *key, const uint8_t *u, const uint8_t *v, const uint8_t *luma0, const uint8_t *luma1, int32_t cw, int32_t w,
    float threshold, float inverseReference, float *weight, float *luma, float *su, float *sv) {
    (void)key; (void)u; (void)v; (void)luma0; (void)luma1; (void)cw; (void)w; (void)threshold; (void)inverseReference;
    (void)weight; (void)luma; (void)su; (void)sv;
    __builtin_trap();
}

#endif
