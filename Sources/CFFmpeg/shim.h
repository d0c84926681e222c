#ifndef LOCKSTEP_CFFMPEG_SHIM_H
#define LOCKSTEP_CFFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/samplefmt.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

// Macros Swift cannot import (function-like or built from other macros).

/// AVERROR(e): FFmpeg's negated errno.
static inline int swift_AVERROR(int e) { return AVERROR(e); }
/// AVERROR_EOF is built with FFERRTAG, a function-like macro.
static inline int swift_AVERROR_EOF(void) { return AVERROR_EOF; }
/// AVERROR_EXIT (what an interrupt callback makes a blocking call return), likewise.
static inline int swift_AVERROR_EXIT(void) { return AVERROR_EXIT; }
/// AVERROR_INVALIDDATA, likewise.
static inline int swift_AVERROR_INVALIDDATA(void) { return AVERROR_INVALIDDATA; }
/// AV_NOPTS_VALUE is a cast expression Swift does not import.
static inline int64_t swift_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
/// AV_CHANNEL_LAYOUT_STEREO is a compound literal.
static inline AVChannelLayout swift_AV_CHANNEL_LAYOUT_STEREO(void) {
    AVChannelLayout l = AV_CHANNEL_LAYOUT_STEREO; return l;
}
/// av_make_q is inline but kept here beside its friends for clarity.
static inline AVRational swift_av_q(int num, int den) { AVRational r = { num, den }; return r; }
/// AV_TIME_BASE_Q is a compound literal.
static inline AVRational swift_AV_TIME_BASE_Q(void) { AVRational r = { 1, AV_TIME_BASE }; return r; }

#endif
