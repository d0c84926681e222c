// The colour conversion's chain through light (ColorConvertKernel.evaluate), eight colours at a
// time with AVX2, for machines that have it (cvec_has_avx2).
//
// Why C: the build targets baseline x86-64, where each of the chain's six table lookups is eight
// scalar loads and a rebuild of two vectors (about half the kernel's time in `perf`); Swift
// cannot compile one function for another instruction set. Here one function is compiled for
// AVX2 (target attribute) and chosen at run time, its lookups hardware gathers.
//
// It is the Swift chain's arithmetic in the Swift chain's order, without fused multiply-adds, so
// it gives the same floats, bit for bit (ColorConversionTests holds the two to that).
#ifndef CVEC_COLOR_CHAIN_H
#define CVEC_COLOR_CHAIN_H

#include <stdint.h>

/// The tone curve's kind, as ToneVectors.
enum { CVEC_TONE_NONE = 0, CVEC_TONE_HABLE, CVEC_TONE_REINHARD, CVEC_TONE_CLIP, CVEC_TONE_MOBIUS };

/// Everything the chain reads: ColorConvertKernel's constants and tables (not owned here).
typedef struct {
    // Source samples to normalised Y'CbCr: (s - offset) * scale; the source matrix.
    float yOffset, yScale, cOffset, cScale;
    float crToR, cbToG, crToG, cbToB;
    // Signal to light: UniformTable's (value, step) pairs, its scale, count and last index.
    const float *toLinear;
    float linearScale, linearCount, linearLast;
    // Source light to target light (row major).
    float gamut[9];
    // ToneVectors: the curve, 1 / target peak, and its constants.
    int32_t tone;
    float inverseTarget, k, a, b, scale;
    // Light to signal: LogTable's (value, slope) pairs, its range and first index.
    const float *toSignal;
    float signalLow, signalHigh;
    int32_t signalBase, signalShift;
    // The target matrix, and normalised target Y'CbCr to target samples.
    float kr, kg, kb, toCb, toCr;
    float outYScale, outYOffset, outCScale, outCOffset;
} cvec_chain;

/// 1 where the processor (and the system) runs AVX2.
int cvec_has_avx2(void);

/// The chain on `count` groups of eight colours. Each group is 48 floats: source samples in
/// (y[8], cb[8], cr[8]), then target samples out, not rounded (the same layout). Only where
/// cvec_has_avx2() is 1.
void cvec_chain_avx2(const cvec_chain *chain, float *slots, int32_t count);

#endif
