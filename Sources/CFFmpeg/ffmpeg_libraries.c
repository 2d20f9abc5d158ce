// FFmpeg's libraries, opened the first time AudioIO needs them rather than linked. Linked, libavformat, libavcodec and
// libavutil bring about a hundred libraries (codecs, TLS, XML, fonts...) that the dynamic loader maps and relocates
// before main, on every start of the process: most of what start-up cost, for runs that mostly never read or write a
// file through FFmpeg (library_loader.h).
#include "shim.h"

#include <library_loader.h>

#define CFFMPEG_STRING(x) #x
#define CFFMPEG_SONAME(major) "libavformat.so." CFFMPEG_STRING(major)

// Every FFmpeg function AudioIO calls. libavformat brings libavcodec and libavutil, where the library's lookups find
// theirs.
#define CFFMPEG_FUNCTIONS(FUNCTION, PROCEDURE, FOUND) \
    FUNCTION(int, av_channel_layout_copy, (AVChannelLayout *dst, const AVChannelLayout *src), (dst, src)) \
    PROCEDURE(av_channel_layout_default, (AVChannelLayout *ch_layout, int nb_channels), (ch_layout, nb_channels)) \
    PROCEDURE(av_dict_free, (AVDictionary **m), (m)) \
    FUNCTION(AVDictionaryEntry *, av_dict_get, (const AVDictionary *m, const char *key, const AVDictionaryEntry *prev, int flags), (m, key, prev, flags)) \
    FUNCTION(int, av_dict_set, (AVDictionary **pm, const char *key, const char *value, int flags), (pm, key, value, flags)) \
    FUNCTION(const AVInputFormat *, av_find_input_format, (const char *short_name), (short_name)) \
    FUNCTION(int, av_find_best_stream, (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream, const AVCodec **decoder_ret, int flags), (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags)) \
    FUNCTION(AVFrame *, av_frame_alloc, (void), ()) \
    PROCEDURE(av_frame_free, (AVFrame **frame), (frame)) \
    FUNCTION(int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align)) \
    FUNCTION(int, av_frame_make_writable, (AVFrame *frame), (frame)) \
    PROCEDURE(av_free, (void *ptr), (ptr)) \
    PROCEDURE(av_freep, (void *ptr), (ptr)) \
    FUNCTION(enum AVSampleFormat, av_get_packed_sample_fmt, (enum AVSampleFormat sample_fmt), (sample_fmt)) \
    PROCEDURE(av_log_set_level, (int level), (level)) \
    FUNCTION(void *, av_malloc, (size_t size), (size)) \
    FUNCTION(void *, av_mallocz, (size_t size), (size)) \
    FUNCTION(AVPacket *, av_packet_alloc, (void), ()) \
    PROCEDURE(av_packet_free, (AVPacket **pkt), (pkt)) \
    PROCEDURE(av_packet_move_ref, (AVPacket *dst, AVPacket *src), (dst, src)) \
    PROCEDURE(av_packet_rescale_ts, (AVPacket *pkt, AVRational tb_src, AVRational tb_dst), (pkt, tb_src, tb_dst)) \
    PROCEDURE(av_packet_unref, (AVPacket *pkt), (pkt)) \
    FUNCTION(int, av_probe_input_buffer2, (AVIOContext *pb, const AVInputFormat **fmt, const char *url, void *logctx, unsigned int offset, unsigned int max_probe_size), (pb, fmt, url, logctx, offset, max_probe_size)) \
    FUNCTION(int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt)) \
    FUNCTION(void *, av_realloc_array, (void *ptr, size_t nmemb, size_t size), (ptr, nmemb, size)) \
    FUNCTION(int64_t, av_rescale_q, (int64_t a, AVRational bq, AVRational cq), (a, bq, cq)) \
    FUNCTION(int, av_sample_fmt_is_planar, (enum AVSampleFormat sample_fmt), (sample_fmt)) \
    FUNCTION(int, av_seek_frame, (AVFormatContext *s, int stream_index, int64_t timestamp, int flags), (s, stream_index, timestamp, flags)) \
    FUNCTION(int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size)) \
    FUNCTION(int, av_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt)) \
    FUNCTION(int, av_write_trailer, (AVFormatContext *s), (s)) \
    FUNCTION(AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec)) \
    FUNCTION(const AVCodecDescriptor *, avcodec_descriptor_get, (enum AVCodecID id), (id)) \
    FUNCTION(const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name)) \
    PROCEDURE(avcodec_flush_buffers, (AVCodecContext *avctx), (avctx)) \
    PROCEDURE(avcodec_free_context, (AVCodecContext **avctx), (avctx)) \
    FUNCTION(const char *, avcodec_get_name, (enum AVCodecID id), (id)) \
    FUNCTION(int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options), (avctx, codec, options)) \
    FUNCTION(int, avcodec_parameters_copy, (AVCodecParameters *dst, const AVCodecParameters *src), (dst, src)) \
    FUNCTION(int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), (par, codec)) \
    FUNCTION(int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par)) \
    FUNCTION(int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame)) \
    FUNCTION(int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt)) \
    FUNCTION(int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame)) \
    FUNCTION(int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt)) \
    FUNCTION(unsigned, avcodec_version, (void), ()) \
    FUNCTION(AVFormatContext *, avformat_alloc_context, (void), ()) \
    FUNCTION(int, avformat_alloc_output_context2, (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename), (ctx, oformat, format_name, filename)) \
    PROCEDURE(avformat_close_input, (AVFormatContext **s), (s)) \
    FUNCTION(int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options)) \
    PROCEDURE(avformat_free_context, (AVFormatContext *s), (s)) \
    FUNCTION(AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c)) \
    FUNCTION(int, avformat_open_input, (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options)) \
    FUNCTION(unsigned, avformat_version, (void), ()) \
    FUNCTION(int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options)) \
    FUNCTION(AVIOContext *, avio_alloc_context, (unsigned char *buffer, int buffer_size, int write_flag, void *opaque, int (*read_packet)(void *opaque, uint8_t *buf, int buf_size), int (*write_packet)(void *opaque, uint8_t *buf, int buf_size), int64_t (*seek)(void *opaque, int64_t offset, int whence)), (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek)) \
    FUNCTION(int, avio_closep, (AVIOContext **s), (s)) \
    PROCEDURE(avio_context_free, (AVIOContext **s), (s)) \
    PROCEDURE(avio_flush, (AVIOContext *s), (s)) \
    FUNCTION(int, avio_open, (AVIOContext **s, const char *url, int flags), (s, url, flags))

LIBRARY_FUNCTIONS(CFFMPEG_SONAME(LIBAVFORMAT_VERSION_MAJOR), CFFMPEG_FUNCTIONS)

const char *cffmpeg_load(void) { return library_load(&this_library); }
