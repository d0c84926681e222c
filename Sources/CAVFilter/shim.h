#ifndef LOCKSTEP_CAVFILTER_SHIM_H
#define LOCKSTEP_CAVFILTER_SHIM_H
// FFmpeg's libavfilter: the deinterlacers (bwdif, yadif) run as a filter graph
// (Media/Deinterlacer.swift). It is opened when the first deinterlacer is made, not linked:
// Debian's libavfilter brings 32 more shared libraries (flite's voices, librsvg, libplacebo,
// lapack...) whose relocations the dynamic loader did at every `lockstep` launch, deinterlacing
// or not: 0.06 of the 0.17 CPU-seconds `lockstep --version` took (perf: 65% of a launch in
// ld.so's symbol lookups). Only the headers are used at build time, for the types below.
#include <dlfcn.h>
#include <stddef.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersrc.h>
#include <libavfilter/buffersink.h>

/// The libavfilter functions the deinterlacer calls, with their own types.
typedef struct LockstepAVFilter {
    __typeof__(&avfilter_graph_alloc) graph_alloc;
    __typeof__(&avfilter_graph_free) graph_free;
    __typeof__(&avfilter_get_by_name) get_by_name;
    __typeof__(&avfilter_graph_create_filter) graph_create_filter;
    __typeof__(&avfilter_link) link;
    __typeof__(&avfilter_graph_config) graph_config;
    __typeof__(&av_buffersrc_add_frame_flags) buffersrc_add_frame_flags;
    __typeof__(&av_buffersink_get_frame) buffersink_get_frame;
    __typeof__(&av_buffersink_get_time_base) buffersink_get_time_base;
} LockstepAVFilter;

#define LOCKSTEP_AVFILTER_STRING_(x) #x
#define LOCKSTEP_AVFILTER_STRING(x) LOCKSTEP_AVFILTER_STRING_(x)

/// The library the headers describe: its soname carries the headers' major version.
static inline const char *lockstep_avfilter_soname(void) {
    return "libavfilter.so." LOCKSTEP_AVFILTER_STRING(LIBAVFILTER_VERSION_MAJOR);
}

/// Opens libavfilter (for the process's life: never closed) and fills `api`. NULL when done,
/// else the dynamic loader's message (dlerror: the file or the symbol it could not find).
static inline const char *lockstep_avfilter_open(LockstepAVFilter *api) {
    void *library = dlopen(lockstep_avfilter_soname(), RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return dlerror();
#define LOCKSTEP_AVFILTER_LOAD(field, symbol) \
    if ((api->field = (__typeof__(api->field))dlsym(library, #symbol)) == NULL) return dlerror();
    LOCKSTEP_AVFILTER_LOAD(graph_alloc, avfilter_graph_alloc)
    LOCKSTEP_AVFILTER_LOAD(graph_free, avfilter_graph_free)
    LOCKSTEP_AVFILTER_LOAD(get_by_name, avfilter_get_by_name)
    LOCKSTEP_AVFILTER_LOAD(graph_create_filter, avfilter_graph_create_filter)
    LOCKSTEP_AVFILTER_LOAD(link, avfilter_link)
    LOCKSTEP_AVFILTER_LOAD(graph_config, avfilter_graph_config)
    LOCKSTEP_AVFILTER_LOAD(buffersrc_add_frame_flags, av_buffersrc_add_frame_flags)
    LOCKSTEP_AVFILTER_LOAD(buffersink_get_frame, av_buffersink_get_frame)
    LOCKSTEP_AVFILTER_LOAD(buffersink_get_time_base, av_buffersink_get_time_base)
#undef LOCKSTEP_AVFILTER_LOAD
    return NULL;
}
#endif
