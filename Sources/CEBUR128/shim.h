#ifndef LOCKSTEP_CEBUR128_SHIM_H
#define LOCKSTEP_CEBUR128_SHIM_H
// libebur128 (EBU R128 loudness): composite's --loudness. Swift imports the header as it is;
// nothing here needs a shim.
#include <ebur128.h>
#endif
