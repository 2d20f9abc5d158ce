@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// Loudness as EBU R 128 measures it (libebur128): EBU Tech 3341's minimum requirements, synthesized as the
/// specification describes its test signals (sines at given levels and lengths), within its tolerances (±0.1 LU;
/// true peak +0.2/−0.4 dB), and ffmpeg's `ebur128` filter on real speech within 0.1 LU (the range within 0.15).
@Suite struct LoudnessTests {
    /// A 1 kHz sine at `level` dBFS (peak) for `seconds`, the same in each of `channels` interleaved channels.
    static func sine(level: Double, seconds: Double, channels: Int = 2, rate: Double = 48000, frequency: Double = 1000) -> [Float] {
        sine(levels: Array(repeating: level, count: channels), seconds: seconds, rate: rate, frequency: frequency)
    }

    /// A sine at `levels[c]` dBFS in channel `c`; faded in and out over `fade` seconds, when given, so that no edge
    /// rings in an interpolator (as a true-peak meter's does at a sine that starts at full level).
    static func sine(
        levels: [Double], seconds: Double, rate: Double = 48000, frequency: Double = 1000, phase: Double = 0, fade: Double = 0
    ) -> [Float] {
        let frames = Int((seconds * rate).rounded())
        let fadeFrames = Int(fade * rate)
        // A whole number of frames a period, unfaded: one period, repeated (minutes of test signal in a moment).
        if fade == 0, let period = Int(exactly: rate / frequency), period > 1, frames % period == 0, frames > period {
            let one = sine(levels: levels, seconds: Double(period) / rate, rate: rate, frequency: frequency, phase: phase, fade: 0)
            var samples: [Float] = []
            samples.reserveCapacity(frames * levels.count)
            for _ in 0..<(frames / period) { samples += one }
            return samples
        }
        var samples = [Float](repeating: 0, count: frames * levels.count)
        for frame in 0..<frames {
            let edge = min(frame, frames - 1 - frame)
            let envelope = edge < fadeFrames ? 0.5 - 0.5 * cos(.pi * Double(edge) / Double(fadeFrames)) : 1
            let value = envelope * sin(2 * .pi * frequency * Double(frame) / rate + phase)
            for (channel, level) in levels.enumerated() {
                samples[frame * levels.count + channel] = Float(pow(10, level / 20) * value)
            }
        }
        return samples
    }

    /// The loudness libebur128 measures of `parts` played one after another.
    static func loudness(of parts: [[Float]], channels: Int = 2, rate: Double = 48000) throws -> AudioLoudness {
        let meter = try LoudnessMeter(channelCount: channels, sampleRate: rate)
        for part in parts { part.withUnsafeBufferPointer { meter.add($0) } }
        return try meter.loudness()
    }

    /// Tech 3341 Table 1, cases 1 to 5 (stereo 1 kHz sines) and 6 (five channels, then the same with an LFE channel).
    @Test func theIntegratedLoudnessCasesOfTech3341ReadWithinATenthOfAnLU() throws {
        let cases: [(String, [[Float]], Double)] = [
            ("1: -23 dBFS, 20 s", [Self.sine(level: -23, seconds: 20)], -23),
            ("2: -33 dBFS, 20 s", [Self.sine(level: -33, seconds: 20)], -33),
            ("3: -36, -23, -36 dBFS, 10, 60, 10 s", [
                Self.sine(level: -36, seconds: 10), Self.sine(level: -23, seconds: 60), Self.sine(level: -36, seconds: 10),
            ], -23),
            ("4: -72, -36, -23, -36, -72 dBFS, 10, 10, 60, 10, 10 s", [
                Self.sine(level: -72, seconds: 10), Self.sine(level: -36, seconds: 10), Self.sine(level: -23, seconds: 60),
                Self.sine(level: -36, seconds: 10), Self.sine(level: -72, seconds: 10),
            ], -23),
            ("5: -26, -20, -26 dBFS, 20, 20.1, 20 s", [
                Self.sine(level: -26, seconds: 20), Self.sine(level: -20, seconds: 20.1), Self.sine(level: -26, seconds: 20),
            ], -23),
        ]
        for (name, parts, expected) in cases {
            let integrated = try Self.loudness(of: parts).integrated
            #expect(abs(integrated - expected) <= 0.1, "case \(name): \(integrated) LUFS")
        }
        // L, R, C, Ls, Rs: the surrounds weighted +1.5 dB; with an LFE channel (5.1) it reads the same, the LFE left out.
        let five = try Self.loudness(of: [Self.sine(levels: [-28, -28, -24, -30, -30], seconds: 20)], channels: 5).integrated
        #expect(abs(five - -23) <= 0.1, "case 6, 5.0: \(five) LUFS")
        let six = try Self.loudness(of: [Self.sine(levels: [-28, -28, -24, -20, -30, -30], seconds: 20)], channels: 6).integrated
        #expect(abs(six - five) < 0.001, "case 6, 5.1: \(six) LUFS")
    }

    /// Tech 3341 Table 1, cases 15 to 19: sines at a quarter, a sixth and an eighth of the rate, whose samples fall
    /// short of their peaks by their phase (faded in and out over 0.1 s); and 20 to 23, a signal whose true peak is 0 dBTP sampled at 48 kHz with
    /// four offsets from its peak (the specification's files are a 192 kHz signal decimated at its four phases; here a
    /// pulse band-limited to 20 kHz, taken the same four ways).
    @Test func theTruePeakCasesOfTech3341ReadWithinTheirTolerance() throws {
        func degrees(_ angle: Double) -> Double { angle * .pi / 180 }
        let sines: [(String, Double, Double, Double, Double)] = [
            ("15: fs/4, 0.50 FFS, 0°", 12000, 0.5, 0, -6.02),
            ("16: fs/4, 0.50 FFS, 45°", 12000, 0.5, 45, -6.02),
            ("17: fs/6, 0.50 FFS, 60°", 8000, 0.5, 60, -6.02),
            ("18: fs/8, 0.50 FFS, 67.5°", 6000, 0.5, 67.5, -6.02),
            ("19: fs/4, 1.41 FFS, 45°", 12000, 1.41, 45, 2.98),
        ]
        for (name, frequency, amplitude, phase, expected) in sines {
            let level = 20 * log10(amplitude)
            let signal = Self.sine(levels: [level, level], seconds: 1, frequency: frequency, phase: degrees(phase), fade: 0.1)
            let peak = try Self.loudness(of: [signal]).truePeak
            #expect(peak >= expected - 0.4 && peak <= expected + 0.2, "case \(name): \(peak) dBTP")
            if phase != 0 { #expect(Double(AudioLevels.decibels(Double(signal.map(\.magnitude).max()!))) < expected - 0.5, "case \(name): the samples miss the peak") }
        }
        for offset in 0..<4 {
            let peak = try Self.loudness(of: [Self.pulse(offset: offset)]).truePeak
            #expect(peak >= -0.4 && peak <= 0.2, "case \(20 + offset): \(peak) dBTP")
        }
    }

    /// The true-peak meter oversamples only the blocks that could raise the peak, in streams that start and end with
    /// the context the filter reaches: what it finds is what oversampling the whole signal in one pass finds, however
    /// the frames come. The signal, in stereo: silence, then quiet noise (passed over); a 1 kHz burst at 0.8; then a
    /// pulse whose samples (0.74) stay under that but whose peak, between two of them, is 1 (a block the meter must not
    /// pass over), right on the edge between two of the meter's 0.1 s blocks.
    @Test func theTruePeakIsWhatOversamplingTheWholeSignalFinds() throws {
        var seed: UInt32 = 1
        func noise() -> Float {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return 0.01 * Float(Int32(bitPattern: seed)) / Float(Int32.max)
        }
        let rate = 48000.0
        var signal = [Float](repeating: 0, count: 2 * 24000)
        for frame in 24000..<(3 * 48000) {
            let time = Double(frame) / rate
            let burst = (0.7..<0.75).contains(time) ? 0.8 * Float(sin(2 * .pi * 1000 * time)) : 0
            signal += [noise() + burst, noise() + burst]
        }
        // The pulse of Tech 3341's cases 20 to 23, its peak half a sample after frame 72000 (1.5 s, a block's edge).
        let pulse = Self.pulse(offset: 2)
        for index in pulse.indices { signal[2 * (72000 - 4800) + index] += pulse[index] }
        let oversampler = try Resampler(inputRate: rate, outputRate: 4 * rate, channelCount: 2)
        let buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: 16384)
        defer { buffer.deallocate() }
        var whole: Float = 0
        try signal.withUnsafeBufferPointer { samples in
            try oversampler.processAll(samples, through: buffer) { whole = max(whole, $0.map(\.magnitude).max() ?? 0) }
        }
        try oversampler.flushAll(through: buffer) { whole = max(whole, $0.map(\.magnitude).max() ?? 0) }
        #expect(whole > 0.99 && signal[(2 * 72000)...].prefix(9600).map(\.magnitude).max()! < 0.8, "its peak lies between samples: \(whole)")
        for chunk in [2 * 4800, 2 * 1000, 2 * 7] {
            let meter = try TruePeakMeter(channelCount: 2, sampleRate: rate)
            try signal.withUnsafeBufferPointer { samples in
                for start in stride(from: 0, to: samples.count, by: chunk) {
                    try meter.add(UnsafeBufferPointer(rebasing: samples[start..<min(start + chunk, samples.count)]))
                }
            }
            let peak = try meter.finish()
            #expect(abs(peak - Double(whole)) <= 1e-5, "in pieces of \(chunk / 2) frames: \(peak) against \(whole)")
        }
    }

    /// A pulse of peak 1 (0 dBTP) band-limited to 20 kHz (a sinc in a Hann window of ±2 ms), in two channels, sampled
    /// at 48 kHz `offset` quarter samples (192 kHz samples) after its peak.
    static func pulse(offset: Int) -> [Float] {
        let rate = 48000.0
        var samples: [Float] = []
        for frame in -4800..<4800 {
            let time = (Double(frame) + Double(offset) / 4) / rate
            let sinc = time == 0 ? 1 : sin(2 * .pi * 20000 * time) / (2 * .pi * 20000 * time)
            let window = abs(time) < 0.002 ? 0.5 + 0.5 * cos(.pi * time / 0.002) : 0
            samples += Array(repeating: Float(sinc * window), count: 2)
        }
        return samples
    }

    @Test func silenceReadsAtTheGateWithNoRangeAndNoPeak() throws {
        let loudness = try Self.loudness(of: [[Float](repeating: 0, count: 96000)])
        #expect(loudness == AudioLoudness(integrated: AudioLoudness.silence, range: 0, truePeak: AudioLevels.floor))
        #expect(loudness.normalizationGain(toLoudness: -16) == 0, "silence is not raised")
    }

    @Test func theNormalizationGainReachesTheTargetUnlessTheTruePeakLimitsIt() {
        let quiet = AudioLoudness(integrated: -30, range: 5, truePeak: -20)
        #expect(quiet.normalizationGain(toLoudness: -16) == 14)
        let peaky = AudioLoudness(integrated: -30, range: 5, truePeak: -6)
        #expect(peaky.normalizationGain(toLoudness: -16) == 5, "raised until its true peak is at -1 dBTP")
        let loud = AudioLoudness(integrated: -10, range: 5, truePeak: 0)
        #expect(loud.normalizationGain(toLoudness: -16) == -6)
        #expect(loud.normalizationGain(toLoudness: -16, truePeakLimit: -8) == -8)
    }

    /// The loudness ffmpeg's `ebur128` filter reports of `path`: integrated (LUFS), range (LU) and true peak (dBFS).
    static func ffmpeg(_ path: String) throws -> (integrated: Double, range: Double, truePeak: Double) {
        let result = try Tool.run("ffmpeg", ["-nostats", "-hide_banner", "-i", path, "-filter_complex", "ebur128=peak=true", "-f", "null", "-"])
        let summary = try #require(result.standardError.components(separatedBy: "Summary:").last, "\(result.standardError)")
        func value(_ label: String) throws -> Double {
            let line = try #require(summary.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) })
            return try #require(Double(line.split(separator: " ", omittingEmptySubsequences: true)[1]), "\(line)")
        }
        return (try value("I:"), try value("LRA:"), try value("Peak:"))
    }

    @Test(arguments: [1, 2])
    func speechMeasuresAsFFmpegMeasuresIt(channels: Int) throws {
        let scratch = try ScratchDirectory()
        let spoken = scratch.path("spoken.wav")
        try Tool.output("espeak-ng", ["-w", spoken, "A memo of some length, spoken loud and soft, with pauses. Then a second sentence, quieter, so that the gate and the range have work to do."])
        let speech = scratch.path("speech.wav")
        // The second channel (in stereo) 6 dB down: channels are summed by their power, not averaged.
        try Tool.output("sox", [spoken, "-r", "48000", "-b", "24", speech] + (channels == 2 ? ["remix", "1", "1v0.5"] : []))
        let ours = try AudioFile(forReading: URL(fileURLWithPath: speech)).measureLoudness()
        let theirs = try Self.ffmpeg(speech)
        #expect(abs(ours.integrated - theirs.integrated) <= 0.1, "\(ours) vs ffmpeg's \(theirs)")
        // libebur128 counts blocks in 0.075 LU bins (a histogram: memory that does not grow with the recording), ffmpeg
        // in 0.01 LU ones and prints a tenth: the ranges agree within a bin and ffmpeg's rounding.
        #expect(abs(ours.range - theirs.range) <= 0.15, "\(ours) vs ffmpeg's \(theirs)")
        #expect(abs(ours.truePeak - theirs.truePeak) <= 0.2, "\(ours) vs ffmpeg's \(theirs)")
    }
}
