// Lane conversions for the compositor's kernels (FilterLanes.swift, KeyerLanes.swift).
//
// Why C: Swift's SIMD conversions (`SIMD8<Float>(SIMD8<Int32>)`, `init(truncatingIfNeeded:)`) are
// generic stdlib code that the optimiser left as out-of-line calls inside the large row kernels
// (about a tenth of the keyer's time in `perf`, baseline x86-64). Clang's `__builtin_convertvector`
// is one vector instruction sequence (punpck / cvtdq2ps / pack), always inlined into Swift.
// Swift imports these vector types as SIMD8<Float>, SIMD8<Int32>, SIMD8<UInt16>, SIMD8<UInt8>.
// Every function is exact: the same values as the Swift conversions it replaces.
#ifndef CLANES_H
#define CLANES_H

#include "ColorChain.h"

typedef float clanes_f8 __attribute__((ext_vector_type(8)));
typedef int clanes_i8 __attribute__((ext_vector_type(8)));
typedef unsigned short clanes_u16x8 __attribute__((ext_vector_type(8)));
typedef unsigned char clanes_u8x8 __attribute__((ext_vector_type(8)));

#define CLANES_INLINE static inline __attribute__((always_inline))

/// Int32 lanes as Float (exact below 2^24).
CLANES_INLINE clanes_f8 clanes_float(clanes_i8 x) { return __builtin_convertvector(x, clanes_f8); }
/// Bytes widened to Int32 lanes.
CLANES_INLINE clanes_i8 clanes_widen8(clanes_u8x8 x) { return __builtin_convertvector(x, clanes_i8); }
/// 16-bit lanes widened to Int32 lanes.
CLANES_INLINE clanes_i8 clanes_widen16(clanes_u16x8 x) { return __builtin_convertvector(x, clanes_i8); }
/// The low byte of each Int32 lane (truncation, as `init(truncatingIfNeeded:)`).
CLANES_INLINE clanes_u8x8 clanes_narrow8(clanes_i8 x) { return __builtin_convertvector(x, clanes_u8x8); }
/// The low 16 bits of each Int32 lane (truncation).
CLANES_INLINE clanes_u16x8 clanes_narrow16(clanes_i8 x) { return __builtin_convertvector(x, clanes_u16x8); }

#endif
