#!/usr/bin/env python3
"""How well SoundTouch's time-domain stretching keeps speech in shape, for the settings TimeStretcher could use.

Speech (espeak-ng, resampled to 48 kHz by sox) is stretched by libSoundTouchDll (the library the player links) at
several tempos with each candidate setting of SETTING_SEQUENCE_MS / SETTING_SEEKWINDOW_MS / SETTING_OVERLAP_MS. Two
figures per run:

- envelope: the correlation of the output's loudness envelope (10 ms RMS, in dB) with the input's envelope squeezed by
  the tempo: 1 means every syllable comes out where and as it should; WSOLA that drops or doubles pieces of
  syllables lowers it.
- f0: the median fundamental frequency of the output's voiced frames (autocorrelation) over the input's: 1 means the
  pitch is kept.

Usage: python3 Benchmarks/speech-stretch.py   (needs espeak-ng, sox, numpy)
"""
import ctypes, os, subprocess, sys, tempfile
import numpy as np

RATE = 48000
ST = ctypes.CDLL("libSoundTouchDll.so.1")
ST.soundtouch_createInstance.restype = ctypes.c_void_p
for name, args in [("soundtouch_setSampleRate", [ctypes.c_void_p, ctypes.c_uint]), ("soundtouch_setChannels", [ctypes.c_void_p, ctypes.c_uint]),
                   ("soundtouch_setTempo", [ctypes.c_void_p, ctypes.c_float]), ("soundtouch_setSetting", [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]),
                   ("soundtouch_putSamples", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]), ("soundtouch_flush", [ctypes.c_void_p]),
                   ("soundtouch_receiveSamples", [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]), ("soundtouch_destroyInstance", [ctypes.c_void_p])]:
    getattr(ST, name).argtypes = args
ST.soundtouch_receiveSamples.restype = ctypes.c_uint

SETTINGS = {  # name: (sequence ms, seek window ms, overlap ms[, quick seek]); None = SoundTouch's defaults
    "default (auto/auto/8)": None,
    "soundstretch -speech (40/15/8)": (40, 15, 8),
    "chosen (25/12/8)": (25, 12, 8),
    "25/10/8": (25, 10, 8),
    "30/12/8": (30, 12, 8),
    "too short (20/10/6)": (20, 10, 6),
    "longer (60/20/10)": (60, 20, 10),
    "chosen, quick seek (25/12/8 q)": (25, 12, 8, 1),
    "30/12/8, quick seek": (30, 12, 8, 1),
}
TEMPOS = [0.5, 1.5, 2, 3, 4]


def stretch(samples, tempo, setting):
    handle = ST.soundtouch_createInstance()
    ST.soundtouch_setSampleRate(handle, RATE)
    ST.soundtouch_setChannels(handle, 1)
    if setting:
        for key, value in zip((3, 4, 5, 2), setting):  # SETTING_SEQUENCE_MS, _SEEKWINDOW_MS, _OVERLAP_MS, _USE_QUICKSEEK
            ST.soundtouch_setSetting(handle, key, value)
    ST.soundtouch_setTempo(handle, tempo)
    data = np.ascontiguousarray(samples, dtype=np.float32)
    ST.soundtouch_putSamples(handle, data.ctypes.data, len(data))
    ST.soundtouch_flush(handle)
    out = []
    buffer = np.zeros(8192, dtype=np.float32)
    while (got := ST.soundtouch_receiveSamples(handle, buffer.ctypes.data, len(buffer))) > 0:
        out.append(buffer[:got].copy())
    ST.soundtouch_destroyInstance(handle)
    return np.concatenate(out)[: int(round(len(samples) / tempo))]


def envelope(samples, window=480):
    frames = len(samples) // window
    rms = np.sqrt(np.mean(samples[: frames * window].reshape(frames, window) ** 2, axis=1))
    return 20 * np.log10(np.maximum(rms, 1e-3))


def f0(samples, window=2048):
    values = []
    for start in range(0, len(samples) - window, window):
        frame = samples[start:start + window]
        if np.sqrt(np.mean(frame ** 2)) < 0.02:
            continue
        ac = np.correlate(frame, frame, "full")[window - 1:]
        lo, hi = RATE // 400, RATE // 60
        lag = lo + int(np.argmax(ac[lo:hi]))
        if ac[lag] > 0.3 * ac[0]:
            values.append(RATE / lag)
    return float(np.median(values))


def main():
    with tempfile.TemporaryDirectory() as folder:
        wav, raw = os.path.join(folder, "speech.wav"), os.path.join(folder, "speech.f32")
        subprocess.run(["espeak-ng", "-w", wav, "The quick brown fox jumps over the lazy dog. Learning a language means "
                        "listening to the same sentence again and again, slower and faster, until every syllable is clear."], check=True)
        subprocess.run(["sox", wav, "-t", "f32", "-r", str(RATE), raw], check=True)
        speech = np.fromfile(raw, dtype=np.float32)
    reference_f0 = f0(speech)
    source = envelope(speech)
    print(f"speech: {len(speech) / RATE:.2f} s, f0 {reference_f0:.0f} Hz")
    print(f"{'setting':32} " + " ".join(f"{'x' + str(t):>13}" for t in TEMPOS) + "   (envelope correlation / f0 ratio)")
    for name, setting in SETTINGS.items():
        cells = []
        for tempo in TEMPOS:
            out = stretch(speech, tempo, setting)
            target = np.interp(np.arange(len(out) // 480) * tempo, np.arange(len(source)), source)
            got = envelope(out)
            n = min(len(got), len(target))
            cells.append(f"{np.corrcoef(got[:n], target[:n])[0, 1]:.3f}/{f0(out) / reference_f0:.2f}")
        print(f"{name:32} " + " ".join(f"{c:>13}" for c in cells))


if __name__ == "__main__":
    sys.exit(main())
