// One of the two candidates of Benchmarks/enhance.py, held to the same setting as the other (speexdsp_filter.c):
// webrtc-audio-processing (0.3, Debian 12) over mono float32 samples from standard input to standard output, in the
// 10 ms chunks it takes: high-pass filter, noise suppression (high), and with ns+agc its adaptive digital gain control.
// Usage: webrtc_filter RATE ns|ns+agc
#include <webrtc/modules/audio_processing/include/audio_processing.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 3) { std::fprintf(stderr, "usage: %s RATE ns|ns+agc\n", argv[0]); return 2; }
    int rate = std::atoi(argv[1]);
    bool agc = std::strcmp(argv[2], "ns+agc") == 0;
    webrtc::Config config;
    config.Set<webrtc::ExperimentalAgc>(new webrtc::ExperimentalAgc(false));
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create(config);
    apm->high_pass_filter()->Enable(true);
    apm->noise_suppression()->set_level(webrtc::NoiseSuppression::kHigh);
    apm->noise_suppression()->Enable(true);
    if (agc) {
        apm->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital);
        apm->gain_control()->set_target_level_dbfs(3);
        apm->gain_control()->set_compression_gain_db(9);
        apm->gain_control()->enable_limiter(true);
        apm->gain_control()->Enable(true);
    }
    webrtc::StreamConfig stream(rate, 1);
    size_t frame = stream.num_frames();
    std::vector<float> samples(frame);
    size_t got;
    while ((got = std::fread(samples.data(), sizeof(float), frame, stdin)) > 0) {
        for (size_t i = got; i < frame; i++) samples[i] = 0;
        float *channels[] = {samples.data()};
        if (apm->ProcessStream(channels, stream, stream, channels) != 0) { std::fprintf(stderr, "ProcessStream failed\n"); return 1; }
        std::fwrite(samples.data(), sizeof(float), got, stdout);
    }
    delete apm;
    return 0;
}
