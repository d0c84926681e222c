// ForegroundSmoothing.h says what this is and why. Each step names the Swift it mirrors
// (ForegroundSmoothing.apply's chroma loop and `lumaRow`); the order of every operation is the
// Swift one and nothing is fused, so the results are the same.
#pragma clang fp contract(off)

#include "ForegroundSmoothing.h"
#include "KeyerLanesAVX2.h"

#if defined(__x86_64__) || defined(__i386__)

/// The filter's numbers, splat once a call: the partial range of one matte byte (`from` ..< `full`)
/// and of a chroma sample's sum of four (`from4` ..< `full4`).
typedef struct {
    __m256 keep, gateFrom, gateSpan, zero, one;
    __m256i from, full, from4, full4;
} numbers;

/// `share`: keep x (1 - clamp((d - gateFrom) / (gateTo - gateFrom), 0, 1)).
AVX2 __m256 share(const numbers *n, __m256 d) {
    __m256 t = vmin(vmax(_mm256_div_ps(_mm256_sub_ps(d, n->gateFrom), n->gateSpan), n->zero), n->one);
    return _mm256_mul_ps(n->keep, _mm256_sub_ps(n->one, t));
}

/// |x| (the sign bit cleared, as Swift's `abs`).
AVX2 __m256 magnitude(__m256 x) { return _mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF))); }

/// `partial`: from <= x < full (Int32 lanes).
AVX2 __m256 partial(__m256i x, __m256i from, __m256i full) {
    __m256i inside = _mm256_and_si256(_mm256_cmpgt_epi32(x, _mm256_sub_epi32(from, _mm256_set1_epi32(1))), _mm256_cmpgt_epi32(full, x));
    return _mm256_castsi256_ps(inside);
}

/// `lumaRow` on eight pixels: where the matte is partial, the colour F = (out - k q) / m;
/// where it was partial and the block stood still, F keeps its share of the last; the composite
/// is written again where a share was kept.
AVX2 void lumaEight(const numbers *n, const uint8_t *a, const uint8_t *p, const uint8_t *q, uint8_t *o, float *last, __m256 still) {
    __m256i ai = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)a));
    __m256 now = partial(ai, n->from, n->full);
    if (_mm256_testz_ps(now, now)) return;
    __m256i pi = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
    __m256 m = _mm256_mul_ps(_mm256_cvtepi32_ps(ai), splat(1.0f / 255.0f)), k = _mm256_sub_ps(n->one, m);
    __m256 qv = bytes8(q), ov = bytes8(o), lv = _mm256_loadu_ps(last);
    __m256 f = _mm256_div_ps(_mm256_sub_ps(ov, _mm256_mul_ps(k, qv)), m);
    __m256 held = _mm256_and_ps(_mm256_and_ps(now, partial(pi, n->from, n->full)), still);
    __m256 kk = share(n, _mm256_mul_ps(m, magnitude(_mm256_sub_ps(f, lv))));
    __m256 kept = _mm256_add_ps(f, _mm256_mul_ps(kk, _mm256_sub_ps(lv, f)));
    _mm256_storeu_ps(last, _mm256_blendv_ps(lv, _mm256_blendv_ps(f, kept, held), now));
    __m256 write = _mm256_and_ps(held, _mm256_cmp_ps(kk, n->zero, _CMP_GT_OQ));
    if (_mm256_testz_ps(write, write)) return;
    __m256 composite = _mm256_add_ps(_mm256_mul_ps(m, kept), _mm256_mul_ps(k, qv));
    storeClampedBytes(_mm256_blendv_ps(ov, composite, write), o);
}

/// The eight sums of two neighbouring bytes of two rows (sixteen columns from `r0`, `r1`), as Int32 lanes.
AVX2 __m256i quadSums(const uint8_t *r0, const uint8_t *r1) {
    const __m128i ones = _mm_set1_epi8(1);
    __m128i s = _mm_add_epi16(
        _mm_maddubs_epi16(_mm_loadu_si128((const __m128i *)r0), ones), _mm_maddubs_epi16(_mm_loadu_si128((const __m128i *)r1), ones));
    return _mm256_cvtepu16_epi32(s);
}

/// The chroma loop on the eight samples of sixteen columns from `x`: each with the mean alpha of
/// its four pixels, the larger of the two channels' changes gating both.
AVX2 void chromaEight(const numbers *n, const cvec_foreground_rows *r, int32_t x, __m256 still) {
    const int32_t c = x / 2;
    __m256i sum = quadSums(r->a0 + x, r->a1 + x);
    __m256 now = partial(sum, n->from4, n->full4);
    if (_mm256_testz_ps(now, now)) return;
    __m256 held = _mm256_and_ps(_mm256_and_ps(now, partial(quadSums(r->p0 + x, r->p1 + x), n->from4, n->full4)), still);
    __m256 m = _mm256_mul_ps(_mm256_cvtepi32_ps(sum), splat(1.0f / 1020.0f)), k = _mm256_sub_ps(n->one, m);
    __m256 bu = bytes8(r->bu + c), bv = bytes8(r->bv + c), ou = bytes8(r->ou + c), ov = bytes8(r->ov + c);
    __m256 fu = _mm256_div_ps(_mm256_sub_ps(ou, _mm256_mul_ps(k, bu)), m);
    __m256 fv = _mm256_div_ps(_mm256_sub_ps(ov, _mm256_mul_ps(k, bv)), m);
    __m256 lu = _mm256_loadu_ps(r->u + c), lv = _mm256_loadu_ps(r->v + c);
    __m256 kk = share(n, _mm256_mul_ps(m, vmax(magnitude(_mm256_sub_ps(fu, lu)), magnitude(_mm256_sub_ps(fv, lv)))));
    __m256 nu = _mm256_add_ps(fu, _mm256_mul_ps(kk, _mm256_sub_ps(lu, fu)));
    __m256 nv = _mm256_add_ps(fv, _mm256_mul_ps(kk, _mm256_sub_ps(lv, fv)));
    _mm256_storeu_ps(r->u + c, _mm256_blendv_ps(lu, _mm256_blendv_ps(fu, nu, held), now));
    _mm256_storeu_ps(r->v + c, _mm256_blendv_ps(lv, _mm256_blendv_ps(fv, nv, held), now));
    __m256 write = _mm256_and_ps(held, _mm256_cmp_ps(kk, n->zero, _CMP_GT_OQ));
    if (_mm256_testz_ps(write, write)) return;
    storeClampedBytes(_mm256_blendv_ps(ou, _mm256_add_ps(_mm256_mul_ps(m, nu), _mm256_mul_ps(k, bu)), write), r->ou + c);
    storeClampedBytes(_mm256_blendv_ps(ov, _mm256_add_ps(_mm256_mul_ps(m, nv), _mm256_mul_ps(k, bv)), write), r->ov + c);
}

/// Sixteen matte bytes all 0 or all 255 (`plain`).
AVX2 int plain16(const uint8_t *a) {
    __m128i m = _mm_loadu_si128((const __m128i *)a);
    return _mm_test_all_ones(m) || _mm_testz_si128(m, m);
}

__attribute__((target("avx2")))
int32_t cvec_foreground_rows_avx2(
    const cvec_foreground_rows *r, const cvec_foreground_rows *next, const uint8_t *moving, int32_t width, int32_t secondRow,
    float keep, float gateFrom, float gateTo, int32_t partialFrom) {
    const numbers n = {
        .keep = splat(keep), .gateFrom = splat(gateFrom), .gateSpan = splat(gateTo - gateFrom), .zero = _mm256_setzero_ps(),
        .one = splat(1), .from = _mm256_set1_epi32(partialFrom), .full = _mm256_set1_epi32(255),
        .from4 = _mm256_set1_epi32(4 * partialFrom), .full4 = _mm256_set1_epi32(4 * 255)};
    int32_t x = 0;
    for (; x + 16 <= width; x += 16) {
        // Both rows plain (`plain`, on words there): nothing partial, no history needed.
        if (plain16(r->a0 + x) && plain16(r->a1 + x)) continue;
        if (next) {
            // The next chroma row's history lines of these columns (ForegroundSmoothing.h: why).
            __builtin_prefetch(next->y0 + x, 1);
            __builtin_prefetch(next->y1 + x, 1);
            __builtin_prefetch(next->u + x / 2, 1);
            __builtin_prefetch(next->v + x / 2, 1);
        }
        // `still`: the filter on (keep > 0) and the block did not move; one block a call.
        int still = keep > 0 && !(moving && moving[x / 16]);
        __m256 s = _mm256_castsi256_ps(_mm256_set1_epi32(still ? -1 : 0));
        chromaEight(&n, r, x, s);
        for (int32_t half = 0; half < 16; half += 8) {
            lumaEight(&n, r->a0 + x + half, r->p0 + x + half, r->by0 + x + half, r->o0 + x + half, r->y0 + x + half, s);
            if (secondRow) lumaEight(&n, r->a1 + x + half, r->p1 + x + half, r->by1 + x + half, r->o1 + x + half, r->y1 + x + half, s);
        }
    }
    return x;
}

#else

// Never called (cvec_has_avx2 is 0): a call would be a bug, so it stops the process.
int32_t cvec_foreground_rows_avx2(
    const cvec_foreground_rows *r, const cvec_foreground_rows *next, const uint8_t *moving, int32_t width, int32_t secondRow,
    float keep, float gateFrom, float gateTo, int32_t partialFrom) {
    (void)r; (void)next; (void)moving; (void)width; (void)secondRow; (void)keep; (void)gateFrom; (void)gateTo; (void)partialFrom;
    __builtin_trap();
}

#endif
