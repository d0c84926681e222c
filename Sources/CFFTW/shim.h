#ifndef LOCKSTEP_CFFTW_SHIM_H
#define LOCKSTEP_CFFTW_SHIM_H
// FFTW 3, single precision (libfftw3f): the phase correlation of calibrate. Swift imports the
// header as it is; nothing here needs a shim.
#include <fftw3.h>
#endif
