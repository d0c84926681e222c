// Lane conversions for the compositor's kernels (Vectors.swift, KeyerVectors.swift).
//
// Why C: Swift's SIMD conversions (`SIMD8<Float>(SIMD8<Int32>)`, `init(truncatingIfNeeded:)`) are
// generic stdlib code that the optimiser left as out-of-line calls inside the large row kernels
// (about a tenth of the keyer's time in `perf`, baseline x86-64). Clang's `__builtin_convertvector`
// is one vector instruction sequence (punpck / cvtdq2ps / pack), always inlined into Swift.
// Swift imports these vector types as SIMD8<Float>, SIMD8<Int32>, SIMD8<UInt16>, SIMD8<UInt8>.
// Every function is exact: the same values as the Swift conversions it replaces.
#ifndef CVEC_H
#define CVEC_H

#include "ColorChain.h"
#include "Warp.h"
#include "KeyerRows.h"
#include "KeyerComposite.h"
#include "Halve.h"
#include "MatteMotion.h"
#include "ForegroundSmoothing.h"
#include "RenderedChange.h"

typedef float cvec_f8 __attribute__((ext_vector_type(8)));
typedef int cvec_i8 __attribute__((ext_vector_type(8)));
typedef unsigned short cvec_u16x8 __attribute__((ext_vector_type(8)));
typedef unsigned char cvec_u8x8 __attribute__((ext_vector_type(8)));

#define CVEC_INLINE static inline __attribute__((always_inline))

/// Int32 lanes as Float (exact below 2^24).
CVEC_INLINE cvec_f8 cvec_float(cvec_i8 x) { return __builtin_convertvector(x, cvec_f8); }
/// Bytes widened to Int32 lanes.
CVEC_INLINE cvec_i8 cvec_widen8(cvec_u8x8 x) { return __builtin_convertvector(x, cvec_i8); }
/// 16-bit lanes widened to Int32 lanes.
CVEC_INLINE cvec_i8 cvec_widen16(cvec_u16x8 x) { return __builtin_convertvector(x, cvec_i8); }
/// The low byte of each Int32 lane (truncation, as `init(truncatingIfNeeded:)`).
CVEC_INLINE cvec_u8x8 cvec_narrow8(cvec_i8 x) { return __builtin_convertvector(x, cvec_u8x8); }
/// The low 16 bits of each Int32 lane (truncation).
CVEC_INLINE cvec_u16x8 cvec_narrow16(cvec_i8 x) { return __builtin_convertvector(x, cvec_u16x8); }

#endif
