#ifndef LOCKSTEP_CAVFILTER_SHIM_H
#define LOCKSTEP_CAVFILTER_SHIM_H
// FFmpeg's libavfilter: the deinterlacers (bwdif, yadif) run as a filter graph
// (Media/Deinterlacer.swift). Nothing here needs a shim: the headers import as they are.
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>
#endif
