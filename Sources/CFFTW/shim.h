#ifndef LOCKSTEP_CFFTW_SHIM_H
#define LOCKSTEP_CFFTW_SHIM_H
// FFTW 3: single precision (libfftw3f) for the phase correlation of calibrate and align's
// correlation, double (libfftw3) for the complex transforms of the pure modules (FFTWComplexFFT).
// Swift imports the header as it is; nothing here needs a shim.
#include <fftw3.h>
#endif
