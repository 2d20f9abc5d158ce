#ifndef VOICEMEMO_CFFMPEG_H
#define VOICEMEMO_CFFMPEG_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>

// libavformat, libavcodec and libavutil are not linked: with what they bring, a hundred libraries that every start of
// the process would load and relocate, most runs without a use for them. The first file that needs FFmpeg loads them
// (ffmpeg_libraries.c, on CLibraryLoader); the functions the headers above declare reach them from there.

/// Loads FFmpeg's libraries (once, whichever thread asks first) and finds every function AudioIO calls. Returns NULL
/// when they are there, else the dynamic loader's sentence for what is missing. Call it before any other FFmpeg
/// function: one called while FFmpeg could not be loaded ends the process.
const char *cffmpeg_load(void);

// FFmpeg's error codes and "no timestamp" are macros Swift cannot import.
static inline int cffmpeg_error_again(void) { return AVERROR(EAGAIN); }
static inline int cffmpeg_error_eof(void) { return AVERROR_EOF; }
static inline int cffmpeg_error_io(void) { return AVERROR(EIO); }
static inline int cffmpeg_error_unavailable(void) { return AVERROR(ENOSYS); }
static inline int cffmpeg_seek_size(void) { return AVSEEK_SIZE; }
static inline int cffmpeg_error_invalid_data(void) { return AVERROR_INVALIDDATA; }
static inline int cffmpeg_error_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int cffmpeg_error_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cffmpeg_error_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int cffmpeg_error_no_memory(void) { return AVERROR(ENOMEM); }
static inline int64_t cffmpeg_no_timestamp(void) { return AV_NOPTS_VALUE; }

#endif
