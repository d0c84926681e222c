// ColorChain.h says what this is and why. Each step below names the Swift it mirrors
// (ColorConvertKernel.evaluate, UniformTable, ToneVectors.gain, LogTable); the order of every
// operation is the Swift one, and nothing is fused, so the floats are the same.
#pragma clang fp contract(off)

#include "ColorChain.h"
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

int cvec_has_avx2(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

#if defined(__x86_64__) || defined(__i386__)

#define AVX2 __attribute__((target("avx2"), always_inline)) static inline

/// VectorMath.clamp: min(max(x, lo), hi), each as `a > b ? a : b` (maxps and minps return their
/// second operand unless the first wins: the same choice).
AVX2 __m256 clamp(__m256 x, float lo, float hi) {
    return _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
}

/// UniformTable: t = clamp(x * scale, 0, count); i = floor(min(t, last)); v + (t - i) * step.
AVX2 __m256 uniform(const cvec_chain *c, __m256 x) {
    __m256 t = clamp(_mm256_mul_ps(x, _mm256_set1_ps(c->linearScale)), 0, c->linearCount);
    __m256 f = _mm256_floor_ps(_mm256_min_ps(t, _mm256_set1_ps(c->linearLast)));
    __m256i i = _mm256_slli_epi32(_mm256_cvttps_epi32(f), 1);
    __m256 v = _mm256_i32gather_ps(c->toLinear, i, 4), s = _mm256_i32gather_ps(c->toLinear + 1, i, 4);
    return _mm256_add_ps(v, _mm256_mul_ps(_mm256_sub_ps(t, f), s));
}

/// LogTable: c = clamp(x, low, high); the index is c's exponent and top mantissa bits; x0 the
/// float those bits start; v + (c - x0) * slope.
AVX2 __m256 logarithmic(const cvec_chain *c, __m256 x) {
    __m256 v = clamp(x, c->signalLow, c->signalHigh);
    __m256i bits = _mm256_srai_epi32(_mm256_castps_si256(v), c->signalShift);
    __m256 x0 = _mm256_castsi256_ps(_mm256_slli_epi32(bits, c->signalShift));
    __m256i i = _mm256_slli_epi32(_mm256_sub_epi32(bits, _mm256_set1_epi32(c->signalBase)), 1);
    __m256 e = _mm256_i32gather_ps(c->toSignal, i, 4), s = _mm256_i32gather_ps(c->toSignal + 1, i, 4);
    return _mm256_add_ps(e, _mm256_mul_ps(_mm256_sub_ps(v, x0), s));
}

/// ToneVectors.gain: the factor the tone curve applies to colours whose largest channel is m.
AVX2 __m256 gain(const cvec_chain *c, __m256 m) {
    __m256 x = _mm256_max_ps(m, _mm256_set1_ps(1e-6f)), u = _mm256_mul_ps(x, _mm256_set1_ps(c->inverseTarget));
    __m256 k = _mm256_set1_ps(c->k);
    switch (c->tone) {
    case CVEC_TONE_HABLE: {
        __m256 n = _mm256_add_ps(_mm256_mul_ps(u, _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(0.15f), u), _mm256_set1_ps(0.05f))), _mm256_set1_ps(0.004f));
        __m256 d = _mm256_add_ps(_mm256_mul_ps(u, _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(0.15f), u), _mm256_set1_ps(0.5f))), _mm256_set1_ps(0.06f));
        __m256 h = _mm256_sub_ps(_mm256_div_ps(n, d), _mm256_set1_ps((float)(0.02 / 0.3)));
        return _mm256_div_ps(_mm256_mul_ps(k, h), x);
    }
    case CVEC_TONE_REINHARD:
        return _mm256_div_ps(k, _mm256_add_ps(u, _mm256_set1_ps(c->a)));
    case CVEC_TONE_CLIP:
        return _mm256_min_ps(_mm256_set1_ps(1), _mm256_div_ps(_mm256_set1_ps(1), u));
    default: {  // mobius
        __m256 rolled = _mm256_div_ps(_mm256_mul_ps(_mm256_set1_ps(c->scale), _mm256_add_ps(u, _mm256_set1_ps(c->a))),
                                      _mm256_mul_ps(_mm256_add_ps(u, _mm256_set1_ps(c->b)), x));
        return _mm256_blendv_ps(rolled, _mm256_set1_ps(1), _mm256_cmp_ps(u, k, _CMP_LE_OQ));
    }
    }
}

#define MUL(a, b) _mm256_mul_ps(a, b)
#define ADD(a, b) _mm256_add_ps(a, b)
#define SUB(a, b) _mm256_sub_ps(a, b)
#define K(x) _mm256_set1_ps(x)

/// One group: in[0..<24] to out[0..<24].
AVX2 void group(const cvec_chain *c, const float *in, float *out) {
    // Each input as two 16-byte halves: the Swift caller stored them so (SSE), and a 32-byte
    // load of two 16-byte stores waits for both to reach the cache (no store forwarding).
    __m256 sy = _mm256_loadu2_m128(in + 4, in), scb = _mm256_loadu2_m128(in + 12, in + 8), scr = _mm256_loadu2_m128(in + 20, in + 16);
    __m256 y = MUL(SUB(sy, K(c->yOffset)), K(c->yScale));
    __m256 pb = MUL(SUB(scb, K(c->cOffset)), K(c->cScale)), pr = MUL(SUB(scr, K(c->cOffset)), K(c->cScale));
    __m256 r = ADD(y, MUL(K(c->crToR), pr));
    __m256 g = ADD(ADD(y, MUL(K(c->cbToG), pb)), MUL(K(c->crToG), pr));
    __m256 b = ADD(y, MUL(K(c->cbToB), pb));
    __m256 lr = uniform(c, r), lg = uniform(c, g), lb = uniform(c, b);
    const float *m = c->gamut;
    __m256 tr = ADD(ADD(MUL(K(m[0]), lr), MUL(K(m[1]), lg)), MUL(K(m[2]), lb));
    __m256 tg = ADD(ADD(MUL(K(m[3]), lr), MUL(K(m[4]), lg)), MUL(K(m[5]), lb));
    __m256 tb = ADD(ADD(MUL(K(m[6]), lr), MUL(K(m[7]), lg)), MUL(K(m[8]), lb));
    if (c->tone != CVEC_TONE_NONE) {
        __m256 k = gain(c, _mm256_max_ps(_mm256_max_ps(tr, tg), tb));
        tr = MUL(tr, k); tg = MUL(tg, k); tb = MUL(tb, k);
    }
    __m256 er = logarithmic(c, tr), eg = logarithmic(c, tg), eb = logarithmic(c, tb);
    __m256 ny = ADD(ADD(MUL(K(c->kr), er), MUL(K(c->kg), eg)), MUL(K(c->kb), eb));
    __m256 nb = MUL(SUB(eb, ny), K(c->toCb)), nr = MUL(SUB(er, ny), K(c->toCr));
    _mm256_storeu_ps(out, ADD(MUL(ny, K(c->outYScale)), K(c->outYOffset)));
    _mm256_storeu_ps(out + 8, ADD(MUL(nb, K(c->outCScale)), K(c->outCOffset)));
    _mm256_storeu_ps(out + 16, ADD(MUL(nr, K(c->outCScale)), K(c->outCOffset)));
}

__attribute__((target("avx2")))
void cvec_chain_avx2(const cvec_chain *c, float *slots, int32_t count) {
    for (int32_t i = 0; i < count; i++) group(c, slots + 48 * i, slots + 48 * i + 24);
}

#else

// Never called (cvec_has_avx2 is 0): a call would be a bug, so it stops the process.
void cvec_chain_avx2(const cvec_chain *c, float *slots, int32_t count) { (void)c; (void)slots; (void)count; __builtin_trap(); }

#endif
