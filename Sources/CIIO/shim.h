#ifndef LOCKSTEP_CIIO_SHIM_H
#define LOCKSTEP_CIIO_SHIM_H
#include <iio.h>
#endif
