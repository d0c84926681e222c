// scripts/tools/asan-kernels: each AVX2 row kernel of Sources/CVectors on exactly sized heap buffers
// (no padding: the sizes the Swift callers allocate), and the stabiliser's warp, every width 0..300, under ASan, so a read or
// write past a row's end is reported. The Swift suites cannot show this: their rows have padding
// or neighbours. Not part of the product.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "Halve.h"
#include "KeyerRows.h"
#include "KeyerComposite.h"
#include "ColorChain.h"
#include "Warp.h"
#include "MatteMotion.h"
#include "ForegroundSmoothing.h"
#include "RenderedChange.h"

static unsigned seed = 1;
static unsigned rnd(void) { seed = seed * 1664525u + 1013904223u; return seed >> 8; }
static void *bytes(size_t n) { unsigned char *p = malloc(n ? n : 1); for (size_t i = 0; i < n; i++) p[i] = rnd(); return p; }
static float *floats(size_t n, float lo, float hi) { float *p = malloc((n ? n : 1) * sizeof(float)); for (size_t i = 0; i < n; i++) p[i] = lo + (hi - lo) * (rnd() % 1000) / 1000.0f; return p; }
static int32_t *zeros32(size_t n) { return calloc(n ? n : 1, sizeof(int32_t)); }

int main(void) {
    if (!cvec_has_avx2()) { puts("no avx2"); return 2; }
    long calls = 0;
    for (int w = 0; w <= 300; w++) {
        int cw = (w + 1) / 2;
        // halve: count outputs from 2*count inputs per row.
        { uint8_t *a = bytes(2 * w), *b = bytes(2 * w), *o = bytes(w); cvec_halve_row8_avx2(a, b, w, o); free(a); free(b); free(o); }
        { uint16_t *a = (uint16_t *)bytes(4 * w), *b = (uint16_t *)bytes(4 * w), *o = (uint16_t *)bytes(2 * w); cvec_halve_row16_avx2(a, b, w, o); free(a); free(b); free(o); }
        cvec_key key = {0.3f, -0.4f, 0.5f, 0.1f, -0.1f, 0.5f, 1.0f};
        // strength: count chroma samples.
        { uint8_t *u = bytes(cw), *v = bytes(cw); float *o = floats(cw, 0, 1); cvec_strength_row_avx2(&key, u, v, cw, o); free(u); free(v); free(o); }
        // mix rows: count floats.
        { float *n = floats(cw, 0, 1), *f = floats(cw, 0, 1), *o = floats(cw, 0, 1); cvec_mix_rows_avx2(n, f, cw, o); free(n); free(f); free(o); }
        // smooth: width pixels.
        { uint8_t *a = bytes(w), *l = bytes(w), *ha = bytes(w), *hl = bytes(w); cvec_smooth_row_avx2(a, l, ha, hl, w, 0.5f); free(a); free(l); free(ha); free(hl); }
        // matte: sHalf valid from -1 to cw (cw + 2 floats, as KeyerBuffers allocates, pointer at +1), per-chroma-sample arrays, luma/core/out width.
        {
            float *sh = floats(cw + 2, 0, 1), *ie = floats(cw, 1, 2), *io = floats(cw, 1, 2), *ae = floats(cw, 0, 0.1f), *ao = floats(cw, 0, 0.1f);
            uint8_t *luma = bytes(w), *core = bytes(w), *out = bytes(w);
            cvec_matte_row r = {sh + 1, ie, io, ae, ao, luma, core, 0.02f, 1.1f, 0.1f, 0.9f, 255};
            cvec_matte_row_avx2(&r, w, out);
            r.core = NULL; cvec_matte_row_avx2(&r, w, out);
            free(sh); free(ie); free(io); free(ae); free(ao); free(luma); free(core); free(out);
        }
        // spread: grid row (2 cells), a group per eight luma columns, weights per chroma sample.
        {
            int groups = (w + 7) / 8;
            float *row = floats(2, 0, 1), *et = floats(cw, 0, 1), *ot = floats(cw, 0, 1), *e = floats(cw, 0, 1), *o = floats(cw, 0, 1);
            int32_t *g0 = zeros32(groups), *g1 = zeros32(groups);
            cvec_spread_row_avx2(row, g0, g1, et, ot, w, e, o);
            free(row); free(et); free(ot); free(e); free(o); free(g0); free(g1);
        }
        // screen samples: chroma row cw, two luma rows w; outputs cw/2 (+1) samples.
        {
            uint8_t *u = bytes(cw), *v = bytes(cw), *l0 = bytes(w), *l1 = bytes(w);
            int n = cw / 2 + 1;
            float *wt = floats(n, 0, 1), *lu = floats(n, 0, 1), *su = floats(n, 0, 1), *sv = floats(n, 0, 1);
            cvec_screen_samples_avx2(&key, u, v, l0, l1, cw, w, 0.3f, 1.0f, wt, lu, su, sv);
            free(u); free(v); free(l0); free(l1); free(wt); free(lu); free(su); free(sv);
        }
        // composite luma: width pixels, a group per eight columns, a weight per column.
        {
            int groups = (w + 7) / 8;
            uint8_t *a = bytes(w), *p = bytes(w), *q = bytes(w), *o = bytes(w);
            float *sy = floats(2, 16, 235), *ct = floats(w, 0, 1);
            int32_t *g0 = zeros32(groups), *g1 = zeros32(groups);
            cvec_composite_luma_avx2(a, p, q, o, w, sy, g0, g1, ct);
            cvec_composite_luma_avx2(a, p, q, q, w, sy, g0, g1, ct);
            free(a); free(p); free(q); free(o); free(sy); free(ct); free(g0); free(g1);
        }
        // composite chroma: matte and luma rows of width, chroma rows of cw.
        {
            int groups = (w + 7) / 8;
            uint8_t *a0 = bytes(w), *a1 = bytes(w), *l0 = bytes(w), *l1 = bytes(w);
            uint8_t *fu = bytes(cw), *fv = bytes(cw), *bu = bytes(cw), *bv = bytes(cw), *ou = bytes(cw), *ov = bytes(cw);
            float *sy = floats(2, 16, 235), *su = floats(2, 16, 240), *sv = floats(2, 16, 240), *ra = floats(2, 0.5f, 1.5f), *et = floats(cw, 0, 1);
            int32_t *g0 = zeros32(groups), *g1 = zeros32(groups);
            for (int limited = 0; limited < 2; limited++) {
                cvec_chroma_row r = {a0, a1, l0, l1, fu, fv, bu, bv, ou, ov, sy, su, sv, ra, g0, g1, et,
                    {0.3f, -0.4f, 0.5f, 0.5f, 1.0f, 0.08f, 0.5f, 0.7f, 0.3f, limited}};
                cvec_composite_chroma_avx2(&r, w);
            }
            free(a0); free(a1); free(l0); free(l1); free(fu); free(fv); free(bu); free(bv); free(ou); free(ov);
            free(sy); free(su); free(sv); free(ra); free(et); free(g0); free(g1);
        }
        // warp: a plane of exactly sw x 3 pixels, coordinates well outside it (edges repeat).
        {
            int sw = w ? w : 1, sh = 3;
            uint8_t *src = bytes((size_t)sw * sh), *dst = bytes(w);
            uint16_t *src16 = (uint16_t *)bytes((size_t)2 * sw * sh), *dst16 = (uint16_t *)bytes((size_t)2 * w);
            int32_t *col = zeros32(w);
            float *frac = floats(w, 0, 1), *nodes = floats(4, -50, (float)sw + 50);
            cvec_warp_row row = {col, frac, nodes};
            cvec_warp_row_u8(src, sw, sw, sh, row, dst, w);
            cvec_warp_row_u16(src16, sw, sw, sh, row, dst16, w);
            free(src); free(dst); free(src16); free(dst16); free(col); free(frac); free(nodes);
        }
        // motion blocks: a block row of 1..16 rows over whole blocks (w / 16), planes exactly w wide.
        for (int rows = 1; rows <= 16; rows += 15) {
            int blocks = w / 16;
            uint8_t *luma = bytes((size_t)w * rows), *hist = bytes((size_t)w * rows), *lanes = bytes(16 * (size_t)blocks), *change = bytes(blocks);
            cvec_motion_blocks_avx2(luma, w, hist, w, rows, blocks, lanes, change);
            free(luma); free(hist); free(lanes); free(change);
        }
        // chroma motion: one chroma row of cw samples, its whole chunks (cw / 16).
        {
            int chunks = cw / 16;
            uint8_t *u = bytes(cw), *v = bytes(cw), *lu = bytes(cw), *lv = bytes(cw), *lanes = bytes(16 * (size_t)chunks);
            cvec_chroma_motion_row_avx2(u, v, lu, lv, chunks, lanes);
            free(u); free(v); free(lu); free(lv); free(lanes);
        }
        // foreground smoothing: two luma rows (and one), the chroma row, their colour history and
        // the next row's (prefetched), the blocks' motion flags; random mattes are mostly partial.
        for (int second = 0; second <= 1; second++) {
            uint8_t *r8[12];
            for (int i = 0; i < 8; i++) r8[i] = bytes(w);
            for (int i = 8; i < 12; i++) r8[i] = bytes(cw);
            float *hist[8];
            for (int i = 0; i < 8; i++) hist[i] = floats(i % 4 < 2 ? w : cw, -40, 300);
            uint8_t *moving = bytes((w + 15) / 16);
            cvec_foreground_rows rows = {r8[0], second ? r8[1] : r8[0], r8[2], second ? r8[3] : r8[2], r8[4], second ? r8[5] : r8[4],
                                         r8[8], r8[9], r8[6], second ? r8[7] : r8[6], r8[10], r8[11], hist[0], second ? hist[1] : hist[0],
                                         hist[2], hist[3]};
            cvec_foreground_rows next = rows;
            next.y0 = hist[4]; next.y1 = hist[5]; next.u = hist[6]; next.v = hist[7];
            cvec_foreground_rows_avx2(&rows, &next, moving, w, second, 0.8f, 6, 16, 6);
            cvec_foreground_rows_avx2(&rows, NULL, NULL, w, second, 0.8f, 6, 16, 6);
            for (int i = 0; i < 12; i++) free(r8[i]);
            for (int i = 0; i < 8; i++) free(hist[i]);
            free(moving);
        }
        // rendered change: a row of width pixels, a byte of the last picture per 4th pixel.
        {
            uint8_t *row = bytes(w), *previous = bytes(w / 4);
            uint64_t total = 0;
            cvec_rendered_change_row_avx2(row, previous, w / 4, &total);
            free(row); free(previous);
        }
        calls += 23;
    }
    printf("ok: %ld kernel calls, widths 0..300, no report\n", calls);
    return 0;
}
