// KeyerComposite.h says what this is and why. Each line names the Swift it mirrors
// (KeyerVectors.compositeLuma, compositeChroma, despill, despillAll); the order of every
// operation is the Swift one, and nothing is fused, so the results are the same.
#pragma clang fp contract(off)

#include "KeyerComposite.h"
#include "KeyerLanesAVX2.h"

#if defined(__x86_64__) || defined(__i386__)

/// Sixteen bytes of `p` to `out` (either may be the other: a stack keys in place).
AVX2 void copy16(const uint8_t *p, uint8_t *out) { _mm_storeu_si128((__m128i *)out, _mm_loadu_si128((const __m128i *)p)); }

__attribute__((target("avx2")))
int32_t cvec_composite_luma_avx2(
    const uint8_t *a, const uint8_t *p, const uint8_t *q, uint8_t *o, int32_t w, const float *screenY, const int32_t *group0,
    const int32_t *group1, const float *columnT) {
    const __m256 zero = _mm256_setzero_ps(), full = splat(255), inverse255 = splat(1.0f / 255.0f);
    int32_t x = 0;
    for (; x + 16 <= w; x += 16) {
        __m128i m = _mm_loadu_si128((const __m128i *)(a + x));
        if (_mm_test_all_ones(m)) {
            copy16(p + x, o + x);
        } else if (_mm_testz_si128(m, m)) {
            copy16(q + x, o + x);
        } else {
            for (int half = 0; half < 2; half++) {
                // Eight luma columns between the same two grid cells.
                int32_t i = x + 8 * half, j = i / 8;
                float g0 = screenY[group0[j]], g1 = screenY[group1[j]];
                __m256 sy = _mm256_add_ps(splat(g0), _mm256_mul_ps(_mm256_loadu_ps(columnT + i), splat(g1 - g0)));
                __m256 av = bytes8(a + i), pv = bytes8(p + i), qv = bytes8(q + i);
                __m256 k = _mm256_mul_ps(_mm256_sub_ps(full, av), inverse255);
                __m256 mixed = _mm256_add_ps(pv, _mm256_mul_ps(k, _mm256_sub_ps(qv, sy)));
                storeClampedBytes(_mm256_blendv_ps(mixed, qv, _mm256_cmp_ps(av, zero, _CMP_EQ_OQ)), o + i);
            }
        }
    }
    return x;
}

/// KeyerVectors.despill: the spill within its limit (near the screen's hue, or the cast the
/// premultiplied luma carries), times the amount, moved out of u and v.
AVX2 void despill(
    __m256 *u, __m256 *v, __m256 luma, __m256 ratio, __m256 k, __m256 su, __m256 sv, const cvec_despill *d) {
    const __m256 zero = _mm256_setzero_ps();
    __m256 spill = vmax(_mm256_add_ps(_mm256_mul_ps(splat(d->du), *u), _mm256_mul_ps(splat(d->dv), *v)), zero);
    __m256 c = _mm256_add_ps(_mm256_mul_ps(*u, su), _mm256_mul_ps(*v, sv));
    __m256 pp = _mm256_add_ps(_mm256_mul_ps(*u, *u), _mm256_mul_ps(*v, *v));
    __m256 ss = _mm256_add_ps(_mm256_mul_ps(su, su), _mm256_mul_ps(sv, sv));
    __m256 num = _mm256_sub_ps(_mm256_mul_ps(c, c), _mm256_mul_ps(_mm256_mul_ps(splat(d->farCos2), pp), ss));
    __m256 den = _mm256_add_ps(_mm256_mul_ps(_mm256_mul_ps(splat(d->nearCos2 - d->farCos2), pp), ss), splat(1e-6f));
    __m256 clamped = vmin(vmax(_mm256_div_ps(num, den), zero), splat(1));
    __m256 near = _mm256_blendv_ps(zero, clamped, _mm256_cmp_ps(c, zero, _CMP_GT_OQ));
    __m256 allowed = _mm256_mul_ps(_mm256_mul_ps(vmax(luma, zero), ratio), _mm256_add_ps(splat(d->cast), _mm256_mul_ps(splat(d->partial), k)));
    __m256 limit = vmax(allowed, _mm256_mul_ps(near, spill));
    __m256 amount = _mm256_mul_ps(d->limited ? vmin(spill, limit) : spill, splat(d->amount));
    *u = _mm256_add_ps(*u, _mm256_mul_ps(splat(d->moveU), amount));
    *v = _mm256_add_ps(*v, _mm256_mul_ps(splat(d->moveV), amount));
}

/// KeyerVectors.despillAll: all of the spill (no limit), times the amount.
AVX2 void despillAll(__m256 *u, __m256 *v, const cvec_despill *d) {
    __m256 spill = vmax(_mm256_add_ps(_mm256_mul_ps(splat(d->du), *u), _mm256_mul_ps(splat(d->dv), *v)), _mm256_setzero_ps());
    __m256 amount = _mm256_mul_ps(spill, splat(d->amount));
    *u = _mm256_add_ps(*u, _mm256_mul_ps(splat(d->moveU), amount));
    *v = _mm256_add_ps(*v, _mm256_mul_ps(splat(d->moveV), amount));
}

/// ScreenEstimate's grid row at the even luma column of each of eight samples (compositeChroma's `spread`).
AVX2 __m256 spread(const float *row, const cvec_chroma_row *r, int32_t j, __m256 t) {
    __m256 g0 = cells(row, r->group0, j), g1 = cells(row, r->group1, j);
    return _mm256_add_ps(g0, _mm256_mul_ps(t, _mm256_sub_ps(g1, g0)));
}

/// The sum of the four bytes of each sample (the two bytes of a 16-bit word, in two rows), as Float.
AVX2 __m256 fourSum(const uint8_t *row0, const uint8_t *row1) {
    const __m128i low = _mm_set1_epi16(0xFF);
    __m128i w0 = _mm_loadu_si128((const __m128i *)row0), w1 = _mm_loadu_si128((const __m128i *)row1);
    __m128i sum = _mm_add_epi16(
        _mm_add_epi16(_mm_add_epi16(_mm_and_si128(w0, low), _mm_srli_epi16(w0, 8)), _mm_and_si128(w1, low)), _mm_srli_epi16(w1, 8));
    return _mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(sum));
}

__attribute__((target("avx2")))
int32_t cvec_composite_chroma_avx2(const cvec_chroma_row *r, int32_t w) {
    const cvec_despill *d = &r->despill;
    const __m256 zero = _mm256_setzero_ps(), centre = splat(128), sixteen = splat(16);
    const __m256 lumaScale = splat(255.0f / 219.0f), quarter = splat(0.25f), inverse1020 = splat(1.0f / 1020.0f);
    const __m256 full = splat(1020);
    int32_t cx = 0;
    for (; 2 * cx + 16 <= w; cx += 8) {
        int32_t x = 2 * cx, j = cx / 4;
        __m128i m0 = _mm_loadu_si128((const __m128i *)(r->alpha0 + x)), m1 = _mm_loadu_si128((const __m128i *)(r->alpha1 + x));
        __m128i any = _mm_or_si128(m0, m1);
        if (_mm_testz_si128(any, any)) {
            // All background: its chroma as it is.
            _mm_storel_epi64((__m128i *)(r->ou + cx), _mm_loadl_epi64((const __m128i *)(r->bu + cx)));
            _mm_storel_epi64((__m128i *)(r->ov + cx), _mm_loadl_epi64((const __m128i *)(r->bv + cx)));
            continue;
        }
        __m256 u = _mm256_sub_ps(bytes8(r->fu + cx), centre), v = _mm256_sub_ps(bytes8(r->fv + cx), centre);
        // The screen at the even luma column of each sample (as ScreenEstimate.spreadRow).
        __m256 t = _mm256_loadu_ps(r->evenT + cx);
        if (_mm_test_all_ones(_mm_and_si128(m0, m1))) {
            // All foreground: k = 0, so only the despill changes anything.
            if (d->limited) {
                __m256 luma = _mm256_mul_ps(_mm256_sub_ps(_mm256_mul_ps(fourSum(r->luma0 + x, r->luma1 + x), quarter), sixteen), lumaScale);
                despill(&u, &v, luma, spread(r->ratio, r, j, t), zero, spread(r->screenU, r, j, t), spread(r->screenV, r, j, t), d);
            } else {
                despillAll(&u, &v, d);
            }
        } else {
            __m256 su = spread(r->screenU, r, j, t), sv = spread(r->screenV, r, j, t);
            __m256 sum = fourSum(r->alpha0 + x, r->alpha1 + x);
            __m256 k = _mm256_mul_ps(_mm256_sub_ps(full, sum), inverse1020);
            u = _mm256_sub_ps(u, _mm256_mul_ps(k, su));
            v = _mm256_sub_ps(v, _mm256_mul_ps(k, sv));
            if (d->limited) {
                __m256 meanLuma = _mm256_mul_ps(fourSum(r->luma0 + x, r->luma1 + x), quarter);
                __m256 screenY = spread(r->screenY, r, j, t);
                __m256 premultiplied =
                    _mm256_mul_ps(_mm256_sub_ps(_mm256_sub_ps(meanLuma, sixteen), _mm256_mul_ps(k, _mm256_sub_ps(screenY, sixteen))), lumaScale);
                despill(&u, &v, premultiplied, spread(r->ratio, r, j, t), k, su, sv, d);
            } else {
                despillAll(&u, &v, d);
            }
            __m256 bgU = _mm256_sub_ps(bytes8(r->bu + cx), centre), bgV = _mm256_sub_ps(bytes8(r->bv + cx), centre);
            u = _mm256_add_ps(u, _mm256_mul_ps(k, bgU));
            v = _mm256_add_ps(v, _mm256_mul_ps(k, bgV));
            __m256 none = _mm256_cmp_ps(sum, zero, _CMP_EQ_OQ);
            u = _mm256_blendv_ps(u, bgU, none);
            v = _mm256_blendv_ps(v, bgV, none);
        }
        storeClampedBytes(_mm256_add_ps(u, centre), r->ou + cx);
        storeClampedBytes(_mm256_add_ps(v, centre), r->ov + cx);
    }
    return cx;
}

#else

// Never called (cvec_has_avx2 is 0): a call would be a bug, so it stops the process.
int32_t cvec_composite_luma_avx2(
    const uint8_t *a, const uint8_t *p, const uint8_t *q, uint8_t *o, int32_t w, const float *screenY, const int32_t *group0,
    const int32_t *group1, const float *columnT) {
    (void)a; (void)p; (void)q; (void)o; (void)w; (void)screenY; (void)group0; (void)group1; (void)columnT;
    __builtin_trap();
}
int32_t cvec_composite_chroma_avx2(const cvec_chroma_row *r, int32_t w) {
    (void)r; (void)w;
    __builtin_trap();
}

#endif
