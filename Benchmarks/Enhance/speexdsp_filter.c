// One of the two candidates of Benchmarks/enhance.py, held to the same setting as the other (webrtc_filter.cc):
// libspeexdsp's preprocessor over mono float32 samples from standard input to standard output, in 20 ms frames.
// Usage: speexdsp_filter RATE ns|ns+agc|ns+dereverb
#include <speex/speex_preprocess.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s RATE ns|ns+agc|ns+dereverb\n", argv[0]); return 2; }
    int rate = atoi(argv[1]);
    int agc = strcmp(argv[2], "ns+agc") == 0;
    int dereverb = strcmp(argv[2], "ns+dereverb") == 0;
    int frame = rate / 50;
    SpeexPreprocessState *state = speex_preprocess_state_init(frame, rate);
    int on = 1, off = 0, suppress = -30;
    float level = 8000;
    speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on);
    speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppress);
    speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, agc ? &on : &off);
    speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level);
    speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DEREVERB, dereverb ? &on : &off);
    float *in = calloc(frame, sizeof *in);
    spx_int16_t *samples = calloc(frame, sizeof *samples);
    size_t got;
    while ((got = fread(in, sizeof *in, frame, stdin)) > 0) {
        for (int i = 0; i < frame; i++) {
            float v = i < (int)got ? in[i] * 32768.0f : 0;
            samples[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : (spx_int16_t)v;
        }
        speex_preprocess_run(state, samples);
        for (size_t i = 0; i < got; i++) in[i] = samples[i] / 32768.0f;
        fwrite(in, sizeof *in, got, stdout);
    }
    speex_preprocess_state_destroy(state);
    return 0;
}
