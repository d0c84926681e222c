// Warp.h says what this is and why.
#include "Warp.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

// One pixel at a time, the reference the vector paths must equal bit for bit: the coordinate
// from the row's nodes, clamped to the plane; the integer corner kept one short of the last
// column and row, so the right and bottom neighbours always exist and a coordinate on the edge
// samples the edge pixel with a weight of exactly 1 (edges repeat). `right` and `down` are 0 for
// a plane one pixel wide or tall.
#define SCALAR_PIXELS(T, FROM, TO)                                                \
    for (int32_t k = (FROM); k < (TO); k++) {                                     \
        const float *a = row.nodes + 2 * row.col[k];                              \
        float f = row.frac[k];                                                    \
        float sx = a[0] + (a[2] - a[0]) * f, sy = a[1] + (a[3] - a[1]) * f;       \
        sx = sx < 0 ? 0 : (sx > maxX ? maxX : sx);                                \
        sy = sy < 0 ? 0 : (sy > maxY ? maxY : sy);                                \
        int32_t ix = (int32_t)sx, iy = (int32_t)sy;                               \
        ix = ix > lastX ? lastX : ix;                                             \
        iy = iy > lastY ? lastY : iy;                                             \
        float fx = sx - (float)ix, fy = sy - (float)iy;                           \
        const T *p = src + (ptrdiff_t)iy * stride + ix;                           \
        float p00 = p[0], p01 = p[right], p10 = p[down], p11 = p[down + right];   \
        float top = p00 + (p01 - p00) * fx, bottom = p10 + (p11 - p10) * fx;      \
        dst[k] = (T)(int32_t)(top + (bottom - top) * fy + 0.5f);                  \
    }

#define SCALAR_SETUP                                                              \
    float maxX = (float)(sw - 1), maxY = (float)(sh - 1);                         \
    int32_t lastX = sw > 1 ? sw - 2 : 0, lastY = sh > 1 ? sh - 2 : 0;             \
    ptrdiff_t right = sw > 1 ? 1 : 0, down = sh > 1 ? stride : 0;

static void warp_u8_scalar(const uint8_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint8_t *dst, int32_t from, int32_t n) {
    SCALAR_SETUP
    SCALAR_PIXELS(uint8_t, from, n)
}

static void warp_u16_scalar(const uint16_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint16_t *dst, int32_t from, int32_t n) {
    SCALAR_SETUP
    SCALAR_PIXELS(uint16_t, from, n)
}

#if defined(__x86_64__)
// Eight pixels at a time with AVX2 (chosen at run time: the product is built for any x86-64):
// the row's nodes and the source pixels fetched by gathers instead of 32 scalar loads, the
// arithmetic the scalar path's, in the same order and without fused multiply-adds, so the
// results are the same to the bit. The earlier version built its vectors a lane at a time
// (ext_vector_type element writes), which clang compiled to stack round trips: 3 to 5 times
// slower than plain scalar code (perf, 1080p: 55% of a stabilise run's CPU time).

// (x, y) of the eight pixels from x0: clamped coordinates, integer corners, weights.
__attribute__((target("avx2"))) static inline void corners8(
    cvec_warp_row row, int32_t x0, float maxX, float maxY, int32_t lastX, int32_t lastY, __m256i *ix, __m256i *iy, __m256 *fx, __m256 *fy) {
    __m256i c2 = _mm256_slli_epi32(_mm256_loadu_si256((const __m256i *)(row.col + x0)), 1);
    __m256 f = _mm256_loadu_ps(row.frac + x0);
    __m256 ax = _mm256_i32gather_ps(row.nodes, c2, 4), ay = _mm256_i32gather_ps(row.nodes + 1, c2, 4);
    __m256 bx = _mm256_i32gather_ps(row.nodes + 2, c2, 4), by = _mm256_i32gather_ps(row.nodes + 3, c2, 4);
    __m256 sx = _mm256_add_ps(ax, _mm256_mul_ps(_mm256_sub_ps(bx, ax), f));
    __m256 sy = _mm256_add_ps(ay, _mm256_mul_ps(_mm256_sub_ps(by, ay), f));
    __m256 zero = _mm256_setzero_ps();
    sx = _mm256_min_ps(_mm256_max_ps(sx, zero), _mm256_set1_ps(maxX));
    sy = _mm256_min_ps(_mm256_max_ps(sy, zero), _mm256_set1_ps(maxY));
    *ix = _mm256_min_epi32(_mm256_cvttps_epi32(sx), _mm256_set1_epi32(lastX));
    *iy = _mm256_min_epi32(_mm256_cvttps_epi32(sy), _mm256_set1_epi32(lastY));
    *fx = _mm256_sub_ps(sx, _mm256_cvtepi32_ps(*ix));
    *fy = _mm256_sub_ps(sy, _mm256_cvtepi32_ps(*iy));
}

// The bilinear blend of the four neighbours, rounded, as 32-bit integers.
__attribute__((target("avx2"))) static inline __m256i blend8(__m256 p00, __m256 p01, __m256 p10, __m256 p11, __m256 fx, __m256 fy) {
    __m256 top = _mm256_add_ps(p00, _mm256_mul_ps(_mm256_sub_ps(p01, p00), fx));
    __m256 bottom = _mm256_add_ps(p10, _mm256_mul_ps(_mm256_sub_ps(p11, p10), fx));
    return _mm256_cvttps_epi32(_mm256_add_ps(_mm256_add_ps(top, _mm256_mul_ps(_mm256_sub_ps(bottom, top), fy)), _mm256_set1_ps(0.5f)));
}

// 8-bit: a pixel pair is one 32-bit gather at the pair's address (bytes 0 and 1; the two after
// are read and ignored), so a group whose bottom pair would read past the plane's last byte,
// (sh - 1) * stride + sw - 1, is left to the scalar loop.
__attribute__((target("avx2"))) static void warp_u8_avx2(const uint8_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint8_t *dst, int32_t n) {
    float maxX = (float)(sw - 1), maxY = (float)(sh - 1);
    int32_t lastX = sw - 2, lastY = sh - 2;
    const __m256i vstride = _mm256_set1_epi32((int32_t)stride), byte = _mm256_set1_epi32(0xFF);
    const __m256i limit = _mm256_set1_epi32((int32_t)((sh - 1) * stride + sw - 1 - 3));
    // The last group overlaps the one before when n is not a multiple of 8.
    for (int32_t x = 0;; x += 8) {
        int32_t x0 = x + 8 <= n ? x : n - 8;
        __m256i ix, iy;
        __m256 fx, fy;
        corners8(row, x0, maxX, maxY, lastX, lastY, &ix, &iy, &fx, &fy);
        __m256i o = _mm256_add_epi32(_mm256_mullo_epi32(iy, vstride), ix), od = _mm256_add_epi32(o, vstride);
        __m256i over = _mm256_cmpgt_epi32(od, limit);
        if (!_mm256_testz_si256(over, over)) {
            warp_u8_scalar(src, stride, sw, sh, row, dst, x0, x0 + 8);
        } else {
            __m256i t = _mm256_i32gather_epi32((const int *)src, o, 1), b = _mm256_i32gather_epi32((const int *)src, od, 1);
            __m256 p00 = _mm256_cvtepi32_ps(_mm256_and_si256(t, byte)), p01 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(t, 8), byte));
            __m256 p10 = _mm256_cvtepi32_ps(_mm256_and_si256(b, byte)), p11 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(b, 8), byte));
            __m256i v = blend8(p00, p01, p10, p11, fx, fy);
            __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
            _mm_storel_epi64((__m128i *)(dst + x0), _mm_packus_epi16(w, w));
        }
        if (x0 + 8 >= n) return;
    }
}

// 16-bit: a pair of samples is exactly one 32-bit gather (ix <= sw - 2): nothing past the plane.
__attribute__((target("avx2"))) static void warp_u16_avx2(const uint16_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint16_t *dst, int32_t n) {
    float maxX = (float)(sw - 1), maxY = (float)(sh - 1);
    int32_t lastX = sw - 2, lastY = sh - 2;
    const __m256i vstride = _mm256_set1_epi32((int32_t)stride), low = _mm256_set1_epi32(0xFFFF);
    for (int32_t x = 0;; x += 8) {
        int32_t x0 = x + 8 <= n ? x : n - 8;
        __m256i ix, iy;
        __m256 fx, fy;
        corners8(row, x0, maxX, maxY, lastX, lastY, &ix, &iy, &fx, &fy);
        __m256i o = _mm256_add_epi32(_mm256_mullo_epi32(iy, vstride), ix), od = _mm256_add_epi32(o, vstride);
        __m256i t = _mm256_i32gather_epi32((const int *)src, o, 2), b = _mm256_i32gather_epi32((const int *)src, od, 2);
        __m256 p00 = _mm256_cvtepi32_ps(_mm256_and_si256(t, low)), p01 = _mm256_cvtepi32_ps(_mm256_srli_epi32(t, 16));
        __m256 p10 = _mm256_cvtepi32_ps(_mm256_and_si256(b, low)), p11 = _mm256_cvtepi32_ps(_mm256_srli_epi32(b, 16));
        __m256i v = blend8(p00, p01, p10, p11, fx, fy);
        _mm_storeu_si128((__m128i *)(dst + x0), _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
        if (x0 + 8 >= n) return;
    }
}

// AVX2 usable: the CPU has it (CPUID leaf 7) and the OS saves the YMM registers (XGETBV).
// Asked once; the cache is an atomic (a benign race otherwise, which TSan would report).
static int has_avx2(void) {
    static int known = 0;  // 0 unknown, 1 no, 2 yes
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k == 0) {
        unsigned a, b, c, d;
        int yes = 0;
        if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_OSXSAVE) && (c & bit_AVX)) {
            unsigned lo, hi;
            __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            if ((lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2)) yes = 1;
        }
        k = yes ? 2 : 1;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 2;
}

// The vector paths need eight pixels, a plane at least 2 x 2 and offsets that fit 32 bits.
static int vector_fits(ptrdiff_t stride, int32_t sw, int32_t sh, int32_t n) {
    return n >= 8 && sw >= 2 && sh >= 2 && stride >= sw && (int64_t)sh * stride < INT32_MAX && has_avx2();
}
#endif

void cvec_warp_row_u8(const uint8_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint8_t *dst, int32_t n) {
#if defined(__x86_64__)
    if (vector_fits(stride, sw, sh, n)) {
        warp_u8_avx2(src, stride, sw, sh, row, dst, n);
        return;
    }
#endif
    warp_u8_scalar(src, stride, sw, sh, row, dst, 0, n);
}

void cvec_warp_row_u16(const uint16_t *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, uint16_t *dst, int32_t n) {
#if defined(__x86_64__)
    if (vector_fits(stride, sw, sh, n)) {
        warp_u16_avx2(src, stride, sw, sh, row, dst, n);
        return;
    }
#endif
    warp_u16_scalar(src, stride, sw, sh, row, dst, 0, n);
}
