// A C face on webrtc-audio-processing's AudioProcessing module (Debian 12: 0.3), for speech enhancement: noise
// suppression, automatic gain (adaptive digital, with a limiter) and a high-pass filter, over 10 ms chunks of float
// samples. AudioIO's SpeechEnhancer is its only caller. Functions return 0 or webrtc's negative error code.
#ifndef VOICEMEMO_WEBRTC_AUDIO_H
#define VOICEMEMO_WEBRTC_AUDIO_H

#ifdef __cplusplus
extern "C" {
#endif

/// One audio processing module for one stream.
typedef struct webrtc_audio webrtc_audio;

/// Makes a module for `channels` channels at `sample_rate` Hz with noise suppression at `suppression_level` (0 low,
/// 1 moderate, 2 high, 3 very high) and, when `automatic_gain`, gain control that brings speech to
/// `target_level_dbfs` below full scale (webrtc's target is a peak-like envelope: 3 gives speech about 19 dBFS
/// average). NULL when the library refuses.
webrtc_audio *webrtc_audio_create(int sample_rate, int channels, int suppression_level, int automatic_gain, int target_level_dbfs);

/// Frames in one chunk: 10 ms at the module's rate.
int webrtc_audio_chunk_frames(const webrtc_audio *audio);

/// Processes one chunk in place: `channels` pointers to `webrtc_audio_chunk_frames` samples each, in -1…1.
int webrtc_audio_process(webrtc_audio *audio, float *const *channels);

void webrtc_audio_destroy(webrtc_audio *audio);

#ifdef __cplusplus
}
#endif

#endif
