#!/usr/bin/env python3
"""Speech enhancement, measured: espeak-ng speech mixed with fan, street and babble noise (made with sox) at 0, 5 and
10 dB SNR, cleaned by each candidate, scored against the clean speech.

Candidates: sox's two-pass `noisered` (profile from the first second, noise only), libspeexdsp's preprocessor and
webrtc-audio-processing (Debian 12's 0.3), each through a small filter of its own in Benchmarks/Enhance held to the
same setting (noise suppression alone, then with automatic gain), and, given a voicememo binary, the product itself:
`voicememo enhance` on each mixture imported as a memo. A last table tries dereverberation, which only libspeexdsp
offers, on the speech made reverberant (sox `reverb`) over fan noise at 20 dB.

Scores, for each output aligned to the clean speech (the lag found by cross-correlation):
  SI-SDR   scale-invariant signal-to-distortion ratio against the clean speech, dB (the SNR of the output, blind to
           the gain an AGC applies); its rise over the noisy input is the SNR improvement
  STOI     short-time objective intelligibility (pystoi), 0..1
  PESQ     perceptual quality, wide band (pesq, at 16 kHz), 1..4.5
  pause    the noise left in a 1 s pause between two sentences, relative to the level of the speech, dB (-90: the
           pause is digital silence)
  level    the level of the speech in the output (its frames where the clean speech is active), dBFS

Needs sox, espeak-ng, cc, g++, libspeexdsp-dev, libwebrtc-audio-processing-dev (make deps) and the PyPI packages
numpy, scipy, pystoi and pesq (in a virtual environment: python3 -m venv v && v/bin/pip install numpy scipy pystoi
pesq). Not part of `make test`.

Usage: Benchmarks/enhance.py [PATH/TO/voicememo]     prints Markdown tables on standard output
"""

import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly
from pesq import pesq
from pystoi import stoi

# The memos voicememo writes carry a LIST chunk (their title), which scipy skips with a warning.
warnings.filterwarnings("ignore", category=wavfile.WavFileWarning)
RATE = 48000
HERE = os.path.dirname(os.path.abspath(__file__))
SENTENCES = (
    "The quarterly report is due on Friday, so please send me your figures before Thursday noon.",
    "We moved the meeting to the small room upstairs; bring the printed slides and the budget sheet.",
)
BABBLE = (
    ("en+m1", "I told him the train leaves at seven but he never listens to anything I say."),
    ("en+f2", "Could you pass the salt and the pepper, and maybe the bread basket as well?"),
    ("en+m3", "The football match last night went to extra time and then to penalties."),
    ("en+f4", "My sister is flying to Lisbon next week for a conference on marine biology."),
    ("en-us+m2", "They are repaving the whole street, so parking will be a nightmare until June."),
    ("en+f1", "Honestly the soup was cold, the waiter was rude, and the bill was enormous."),
)


def run(*command, stdin=None):
    return subprocess.run(command, check=True, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout


def read(path):
    rate, data = wavfile.read(path)
    assert rate == RATE, (path, rate)
    if data.dtype == np.int16:
        data = data / 32768.0
    return data.astype(np.float64).reshape(-1)


def write(path, samples):
    wavfile.write(path, RATE, samples.astype(np.float32))


def speak(work, name, text, voice="en", speed=160):
    raw = os.path.join(work, name + ".22k.wav")
    run("espeak-ng", "-v", voice, "-s", str(speed), "-w", raw, text)
    out = os.path.join(work, name + ".wav")
    run("sox", raw, "-r", str(RATE), "-e", "floating-point", out)
    return read(out)


def active_power(speech):
    """Mean power over the frames (10 ms) within 40 dB of the loudest: the speech, not its pauses."""
    frames = speech[: len(speech) // 480 * 480].reshape(-1, 480)
    power = (frames ** 2).mean(axis=1)
    return power[power > power.max() * 1e-4].mean()


def material(work):
    """The clean speech (1 s lead, sentence, 1 s pause, sentence, 0.5 s tail) and where its middle pause lies."""
    first = speak(work, "first", SENTENCES[0])
    second = speak(work, "second", SENTENCES[1])
    second_silence = np.zeros(RATE)
    speech = np.concatenate([np.zeros(RATE), first, second_silence, second, np.zeros(RATE // 2)])
    speech *= 10 ** (-26 / 20) / np.sqrt(active_power(speech))        # speech at -26 dBFS, as a voice memo has it
    pause = (RATE + len(first) + RATE // 5, RATE + len(first) + RATE * 4 // 5)
    return speech, pause


def noises(work, seconds):
    length = f"{seconds:.3f}"
    made = {}
    fan = os.path.join(work, "fan.wav")
    brown = os.path.join(work, "brown.wav")
    pink = os.path.join(work, "pink.wav")
    run("sox", "-R", "-n", "-r", str(RATE), "-c", "1", "-e", "floating-point", brown, "synth", length, "brownnoise", "vol", "0.8")
    run("sox", "-R", "-n", "-r", str(RATE), "-c", "1", "-e", "floating-point", pink, "synth", length, "pinknoise", "vol", "0.3")
    run("sox", "-m", brown, pink, fan, "lowpass", "4000", "highpass", "60")
    made["fan"] = read(fan)
    # Street: a rumble that swells and fades as cars pass, tyre hiss, two horns.
    rumble = os.path.join(work, "rumble.wav")
    hiss = os.path.join(work, "hiss.wav")
    horn = os.path.join(work, "horn.wav")
    street = os.path.join(work, "street.wav")
    run("sox", "-R", "-n", "-r", str(RATE), "-c", "1", "-e", "floating-point", rumble, "synth", length, "brownnoise",
        "lowpass", "800", "tremolo", "0.15", "80")
    run("sox", "-R", "-n", "-r", str(RATE), "-c", "1", "-e", "floating-point", hiss, "synth", length, "pinknoise",
        "highpass", "1500", "vol", "0.25", "tremolo", "0.11", "60")
    run("sox", "-R", "-n", "-r", str(RATE), "-c", "1", "-e", "floating-point", horn, "synth", "0.5", "square", "440",
        "square", "554", "remix", "1,2", "vol", "0.15", "pad", "6", f"{seconds - 6.5 - 0.5:.3f}")
    run("sox", "-m", rumble, hiss, horn, street)
    made["street"] = read(street)[: int(seconds * RATE)]
    # Babble: six voices talking at once, each looped to the length.
    voices = []
    for index, (voice, text) in enumerate(BABBLE):
        talk = speak(work, f"babble{index}", text, voice=voice, speed=150 + 10 * index)
        talk = np.concatenate([np.zeros(RATE * index // 7), talk])
        voices.append(np.resize(talk, int(seconds * RATE)))
    made["babble"] = np.sum(voices, axis=0)
    return {name: noise[: int(seconds * RATE)] for name, noise in made.items()}


def mixture(speech, noise, snr):
    noise = noise[: len(speech)]
    scale = np.sqrt(active_power(speech) / np.mean(noise ** 2) / 10 ** (snr / 10))
    mixed = speech + noise * scale
    assert np.max(np.abs(mixed)) < 1, "the mixture clips"
    return mixed


def aligned(output, clean):
    """`output` shifted by the lag (within 100 ms) that best correlates it with `clean`, at its length."""
    window = RATE // 10
    n = len(clean)
    spectrum = np.fft.rfft(output[:n], 2 * n) * np.conj(np.fft.rfft(clean, 2 * n))
    correlation = np.fft.irfft(spectrum)
    lags = np.concatenate([correlation[: window + 1], correlation[-window:]])
    lag = int(np.argmax(lags))
    lag = lag if lag <= window else lag - 2 * window - 1
    shifted = np.roll(np.pad(output, (0, max(0, n - len(output)))), -lag)[:n]
    return shifted


def si_sdr(estimate, reference):
    alpha = np.dot(estimate, reference) / np.dot(reference, reference)
    target = alpha * reference
    return 10 * np.log10(np.sum(target ** 2) / np.sum((estimate - target) ** 2))


def scores(output, clean, pause):
    output = aligned(output, clean)
    sixteen = resample_poly(output, 1, 3)
    clean16 = resample_poly(clean, 1, 3)
    noise = np.mean(output[pause[0]:pause[1]] ** 2)
    speech = active_power(np.where(np.abs(clean) > 0, output, 0))
    return {
        "level": 10 * np.log10(speech),
        "si_sdr": si_sdr(output, clean),
        "stoi": stoi(clean, output, RATE, extended=False),
        "pesq": pesq(16000, clean16, sixteen, "wb"),
        "pause": max(10 * np.log10(max(noise, 1e-20) / speech), -90),
    }


def filters(work):
    speex = os.path.join(work, "speexdsp_filter")
    webrtc = os.path.join(work, "webrtc_filter")
    cflags = lambda package: run("pkg-config", "--cflags", "--libs", package).decode().split()
    run("cc", "-O2", "-o", speex, os.path.join(HERE, "Enhance", "speexdsp_filter.c"), *cflags("speexdsp"))
    run("g++", "-O2", "-o", webrtc, os.path.join(HERE, "Enhance", "webrtc_filter.cc"),
        *cflags("webrtc-audio-processing"), "-lpthread")
    return speex, webrtc


def through(filter_path, mode, samples):
    out = run(filter_path, str(RATE), mode, stdin=samples.astype("<f4").tobytes())
    return np.frombuffer(out, dtype="<f4").astype(np.float64)


def noisered(work, samples):
    noisy = os.path.join(work, "noisy.wav")
    profile = os.path.join(work, "noise.prof")
    cleaned = os.path.join(work, "noisered.wav")
    write(noisy, samples)
    run("sox", noisy, "-n", "trim", "0", "1", "noiseprof", profile)
    run("sox", noisy, cleaned, "noisered", profile, "0.21")
    return read(cleaned)


def voicememo_enhance(voicememo, work, samples):
    store = os.path.join(work, "store")
    noisy = os.path.join(work, "noisy-memo.wav")
    write(noisy, samples)
    environment = dict(os.environ, VOICEMEMO_HOME=store)
    imported = json.loads(subprocess.run(
        [voicememo, "import", noisy, "--json"], check=True, stdout=subprocess.PIPE, env=environment).stdout)
    enhanced = json.loads(subprocess.run(
        [voicememo, "enhance", imported["id"], "--json"], check=True, stdout=subprocess.PIPE, env=environment).stdout)
    return read(enhanced["file"])


def main():
    voicememo = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory(prefix="voicememo-enhance-") as work:
        speech, pause = material(work)
        noise = noises(work, len(speech) / RATE + 0.1)
        speex, webrtc = filters(work)
        methods = [
            ("noisy input", lambda x: x),
            ("sox noisered 0.21 (2-pass)", lambda x: noisered(work, x)),
            ("speexdsp NS", lambda x: through(speex, "ns", x)),
            ("speexdsp NS+AGC", lambda x: through(speex, "ns+agc", x)),
            ("webrtc NS", lambda x: through(webrtc, "ns", x)),
            ("webrtc NS+AGC", lambda x: through(webrtc, "ns+agc", x)),
        ]
        if voicememo:
            methods.append(("voicememo enhance", lambda x: voicememo_enhance(voicememo, work, x)))
        results = {}
        for kind in ("fan", "street", "babble"):
            for snr in (0, 5, 10):
                noisy = mixture(speech, noise[kind], snr)
                for name, method in methods:
                    results[(kind, snr, name)] = scores(method(noisy), speech, pause)
        print(f"Speech: espeak-ng, {len(speech) / RATE:.1f} s at {RATE} Hz, -26 dBFS; SNR over the active speech.\n")
        print("| noise | SNR | method | SI-SDR dB | ΔSI-SDR | STOI | PESQ-WB | pause noise dB |")
        print("|---|---|---|---|---|---|---|---|")
        for kind in ("fan", "street", "babble"):
            for snr in (0, 5, 10):
                base = results[(kind, snr, "noisy input")]
                for name, _ in methods:
                    r = results[(kind, snr, name)]
                    print(f"| {kind} | {snr} | {name} | {r['si_sdr']:.1f} | {r['si_sdr'] - base['si_sdr']:+.1f} | "
                          f"{r['stoi']:.3f} | {r['pesq']:.2f} | {r['pause']:.1f} |")
        print("\nMeans over the three noises and three SNRs:\n")
        print("| method | ΔSI-SDR dB | STOI | PESQ-WB | pause noise dB | speech level dBFS |")
        print("|---|---|---|---|---|---|")
        for name, _ in methods:
            rows = [results[(k, s, name)] for k in ("fan", "street", "babble") for s in (0, 5, 10)]
            bases = [results[(k, s, "noisy input")] for k in ("fan", "street", "babble") for s in (0, 5, 10)]
            delta = np.mean([r["si_sdr"] - b["si_sdr"] for r, b in zip(rows, bases)])
            print(f"| {name} | {delta:+.1f} | {np.mean([r['stoi'] for r in rows]):.3f} | "
                  f"{np.mean([r['pesq'] for r in rows]):.2f} | {np.mean([r['pause'] for r in rows]):.1f} | "
                  f"{np.mean([r['level'] for r in rows]):.1f} |")

        reverberation(work, speech, pause, noise["fan"], speex, webrtc)


def reverberation(work, speech, pause, fan, speex, webrtc):
    """The speech in a reverberant room (sox reverb: reverberance 60 %, room scale 100 %) over fan noise at 20 dB."""
    dry = os.path.join(work, "dry.wav")
    wet = os.path.join(work, "wet.wav")
    write(dry, speech)
    run("sox", dry, wet, "reverb", "60", "50", "100")
    reverberant = read(wet)[: len(speech)]
    noisy = mixture(reverberant, fan, 20)
    methods = [
        ("reverberant input", lambda x: x),
        ("speexdsp NS", lambda x: through(speex, "ns", x)),
        ("speexdsp NS+dereverb", lambda x: through(speex, "ns+dereverb", x)),
        ("webrtc NS+AGC", lambda x: through(webrtc, "ns+agc", x)),
    ]
    print("\nReverberant speech (sox reverb 60 50 100) over fan noise at 20 dB SNR, scored against the dry speech:\n")
    print("| method | SI-SDR dB | STOI | PESQ-WB |")
    print("|---|---|---|---|")
    for name, method in methods:
        r = scores(method(noisy), speech, pause)
        print(f"| {name} | {r['si_sdr']:.1f} | {r['stoi']:.3f} | {r['pesq']:.2f} |")

if __name__ == "__main__":
    main()
