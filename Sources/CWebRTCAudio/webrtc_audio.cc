// The C shim of include/webrtc_audio.h over webrtc::AudioProcessing.
#include "webrtc_audio.h"

// What webrtc-audio-processing.pc's Cflags define, here rather than in Package.swift, where SwiftPM would take
// them only as unsafe flags.
#define WEBRTC_POSIX
#define WEBRTC_AUDIO_PROCESSING_ONLY_BUILD
#include <webrtc/modules/audio_processing/include/audio_processing.h>

struct webrtc_audio {
    webrtc::AudioProcessing *processing;
    webrtc::StreamConfig stream;
};

extern "C" webrtc_audio *webrtc_audio_create(int sample_rate, int channels, int suppression_level, int automatic_gain, int target_level_dbfs) {
    webrtc::Config config;
    // The experimental AGC steers a microphone's analog volume, which a file has not: the digital one is used.
    config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    webrtc::AudioProcessing *processing = webrtc::AudioProcessing::Create(config);
    if (processing == nullptr) return nullptr;
    webrtc::StreamConfig stream(sample_rate, channels);
    webrtc::ProcessingConfig processing_config = {{stream, stream, stream, stream}};
    bool failed = processing->Initialize(processing_config) != 0
        || processing->high_pass_filter()->Enable(true) != 0
        || processing->noise_suppression()->set_level(static_cast<webrtc::NoiseSuppression::Level>(suppression_level)) != 0
        || processing->noise_suppression()->Enable(true) != 0;
    if (!failed && automatic_gain) {
        failed = processing->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital) != 0
            || processing->gain_control()->set_target_level_dbfs(target_level_dbfs) != 0
            || processing->gain_control()->set_compression_gain_db(9) != 0
            || processing->gain_control()->enable_limiter(true) != 0
            || processing->gain_control()->Enable(true) != 0;
    }
    if (failed) {
        delete processing;
        return nullptr;
    }
    return new webrtc_audio{processing, stream};
}

extern "C" int webrtc_audio_chunk_frames(const webrtc_audio *audio) {
    return static_cast<int>(audio->stream.num_frames());
}

extern "C" int webrtc_audio_process(webrtc_audio *audio, float *const *channels) {
    return audio->processing->ProcessStream(channels, audio->stream, audio->stream, channels);
}

extern "C" void webrtc_audio_destroy(webrtc_audio *audio) {
    delete audio->processing;
    delete audio;
}
