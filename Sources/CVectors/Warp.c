// Warp.h says what this is and why.
#include "Warp.h"

typedef float f8 __attribute__((ext_vector_type(8)));
typedef int i8 __attribute__((ext_vector_type(8)));

// The eight coordinates of output pixels x0..x0+7, clamped to the plane, split into integer
// corners and fractional weights.
static inline __attribute__((always_inline)) void coordinates(
    cvec_warp_row row, int32_t x0, float maxX, float maxY, i8 *ix, i8 *iy, f8 *fx, f8 *fy) {
    f8 sx, sy;
    for (int k = 0; k < 8; k++) {
        int32_t c = row.col[x0 + k];
        float f = row.frac[x0 + k];
        const float *a = row.nodes + 2 * c;
        sx[k] = a[0] + (a[2] - a[0]) * f;
        sy[k] = a[1] + (a[3] - a[1]) * f;
    }
    f8 zero = 0;
    sx = __builtin_elementwise_min(__builtin_elementwise_max(sx, zero), (f8)maxX);
    sy = __builtin_elementwise_min(__builtin_elementwise_max(sy, zero), (f8)maxY);
    *ix = __builtin_convertvector(sx, i8);
    *iy = __builtin_convertvector(sy, i8);
    *fx = sx - __builtin_convertvector(*ix, f8);
    *fy = sy - __builtin_convertvector(*iy, f8);
}

#define WARP_ROW(NAME, T)                                                                                  \
    void NAME(const T *src, ptrdiff_t stride, int32_t sw, int32_t sh, cvec_warp_row row, T *dst, int32_t n) { \
        float maxX = (float)(sw - 1), maxY = (float)(sh - 1);                                              \
        if (n < 8) {                                                                                       \
            /* Rows narrower than eight pixels: one at a time. */                                          \
            for (int32_t k = 0; k < n; k++) {                                                              \
                const float *a = row.nodes + 2 * row.col[k];                                               \
                float f = row.frac[k];                                                                     \
                float sx = a[0] + (a[2] - a[0]) * f, sy = a[1] + (a[3] - a[1]) * f;                        \
                sx = sx < 0 ? 0 : (sx > maxX ? maxX : sx);                                                 \
                sy = sy < 0 ? 0 : (sy > maxY ? maxY : sy);                                                 \
                int32_t ix = (int32_t)sx, iy = (int32_t)sy;                                                \
                float fx = sx - ix, fy = sy - iy;                                                          \
                int32_t x1 = ix < sw - 1 ? ix + 1 : ix;                                                    \
                ptrdiff_t down = iy < sh - 1 ? stride : 0;                                                 \
                const T *p = src + (ptrdiff_t)iy * stride;                                                 \
                float top = p[ix] + (p[x1] - (float)p[ix]) * fx;                                           \
                float bottom = p[down + ix] + (p[down + x1] - (float)p[down + ix]) * fx;                   \
                dst[k] = (T)(int32_t)(top + (bottom - top) * fy + 0.5f);                                   \
            }                                                                                              \
            return;                                                                                        \
        }                                                                                                  \
        /* Eight at a time; the last group overlaps the one before when n is not a multiple of 8. */       \
        for (int32_t x = 0;; x += 8) {                                                                     \
            int32_t x0 = x + 8 <= n ? x : n - 8;                                                           \
            i8 ix, iy;                                                                                     \
            f8 fx, fy;                                                                                     \
            coordinates(row, x0, maxX, maxY, &ix, &iy, &fx, &fy);                                          \
            f8 p00, p01, p10, p11;                                                                         \
            for (int k = 0; k < 8; k++) {                                                                  \
                int32_t x1 = ix[k] < sw - 1 ? ix[k] + 1 : ix[k];                                           \
                ptrdiff_t down = iy[k] < sh - 1 ? stride : 0;                                              \
                const T *p = src + (ptrdiff_t)iy[k] * stride;                                              \
                p00[k] = p[ix[k]]; p01[k] = p[x1];                                                         \
                p10[k] = p[down + ix[k]]; p11[k] = p[down + x1];                                           \
            }                                                                                              \
            f8 top = p00 + (p01 - p00) * fx, bottom = p10 + (p11 - p10) * fx;                              \
            f8 v = top + (bottom - top) * fy + 0.5f;                                                       \
            i8 out = __builtin_convertvector(v, i8);                                                       \
            for (int k = 0; k < 8; k++) dst[x0 + k] = (T)out[k];                                           \
            if (x0 + 8 >= n) break;                                                                        \
        }                                                                                                  \
    }

WARP_ROW(cvec_warp_row_u8, uint8_t)
WARP_ROW(cvec_warp_row_u16, uint16_t)
