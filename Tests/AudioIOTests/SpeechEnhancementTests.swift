import AudioIO
import Foundation
import TestSupport
import Testing

/// Speech enhancement (webrtc-audio-processing) on the real paths: a conversion, and a recording's writer thread. The
/// material: 1.5 s of pink noise, a phrase of espeak-ng, 1.5 s of the noise alone, another phrase, all over the noise.
/// What a listener checks cheaply: the noise alone drops, the speech keeps its level (or, with the gain adjusted,
/// comes to the target), nothing clips, and not a frame is added or lost. Quality figures are in the benchmark.
@Suite(.timeLimit(.minutes(1))) struct SpeechEnhancementTests {
    let scratch: ScratchDirectory
    let noisy: URL
    /// Where the second stretch of noise alone lies: its last second, by when the suppressor has learned the noise.
    let noiseAlone: Range<Int>
    /// Where the two phrases are.
    let speech: [Range<Int>]

    /// The material at `speechPeak` dBFS, over noise at `noiseLevel` dBFS (RMS), written as a 16-bit `channels` WAV.
    init() throws {
        let scratch = try ScratchDirectory()
        self.scratch = scratch
        let first = try Speech.phrase("the quarterly figures are due on friday", in: scratch.url, peak: -6)
        let second = try Speech.phrase("please send them to me before noon", in: scratch.url, peak: -6)
        let gap = [Float](repeating: 0, count: 72000)
        let clean = gap + first + gap + second + [Float](repeating: 0, count: 24000)
        let noise = try Speech.noise("pinknoise", frames: clean.count, in: scratch.url, peak: -25)
        speech = [72000..<(72000 + first.count), (144000 + first.count)..<(144000 + first.count + second.count)]
        noiseAlone = (speech[0].upperBound + 24000)..<(speech[0].upperBound + 72000)
        noisy = scratch.file("noisy.wav")
        let writer = try AudioFileWriter(url: noisy, settings: AudioSettings(format: .wav, channelCount: 1, bitDepth: .float32))
        try zip(clean, noise).map { $0 + $1 }.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
    }

    /// The RMS level, in dBFS, of `range` of `samples` (mono).
    func level(_ samples: [Float], _ range: Range<Int>) -> Double {
        AudioLevels.decibels((samples[range].reduce(0) { $0 + Double($1 * $1) } / Double(range.count)).squareRoot())
    }

    func samples(_ url: URL) throws -> [Float] {
        let file = try AudioFile(forReading: url)
        return try file.read(frameCount: Int(file.frameCount))
    }

    @Test func noiseSuppressionLowersTheNoiseAndKeepsTheSpeech() throws {
        let output = scratch.file("clean.wav")
        let summary = try AudioFileConverter.convert(
            contentsOf: noisy, to: output, settings: AudioSettings(format: .wav, channelCount: 1),
            speechEnhancement: SpeechEnhancement(adjustsGain: false))
        let before = try samples(noisy), after = try samples(output)
        #expect(after.count == before.count && summary.frameCount == Int64(before.count), "not a frame more or less")
        let drop = level(before, noiseAlone) - level(after, noiseAlone)
        #expect(drop >= 12, "the noise alone drops by \(drop) dB")
        for phrase in speech {
            let change = level(after, phrase) - level(before, phrase)
            #expect(abs(change) <= 2, "the speech changes by \(change) dB")
        }
    }

    @Test func withTheGainAdjustedQuietSpeechComesUpAndNothingClips() throws {
        let quiet = scratch.file("quiet.wav")
        try Tool.output("sox", [noisy.path, quiet.path, "gain", "-14"])
        let output = scratch.file("louder.wav")
        let summary = try AudioFileConverter.convert(
            contentsOf: quiet, to: output, settings: AudioSettings(format: .wav, channelCount: 1), speechEnhancement: SpeechEnhancement())
        let before = try samples(quiet), after = try samples(output)
        let rise = level(after, speech[1]) - level(before, speech[1])
        #expect(rise >= 6, "the speech comes up by \(rise) dB")
        #expect(summary.levels.peak[0] < -0.1, "peak \(summary.levels.peak[0]) dBFS: the limiter keeps it under full scale")
        #expect(level(after, noiseAlone) < level(before, noiseAlone), "and the noise alone still goes down")
    }

    @Test func aRecordingIsCleanedUpByItsWriterThread() async throws {
        let rig = try RecordingRig()
        let device = try rig.microphone(playing: noisy.path)
        let recorder = try rig.recorder("live.wav", AudioSettings(format: .wav, channelCount: 1), device: device)
        recorder.speechEnhancement = SpeechEnhancement(adjustsGain: false)
        let duration = Double(speech[1].upperBound) / 48000
        try await rig.record(recorder) { $0.record(forDuration: duration) }
        let recorded = try samples(rig.scratch.file("live.wav"))
        #expect(recorded.count == speech[1].upperBound, "exactly the duration asked for")
        let before = try samples(noisy)
        let drop = level(before, noiseAlone) - level(recorded, noiseAlone)
        #expect(drop >= 12, "the noise alone drops by \(drop) dB")
        #expect(abs(level(recorded, speech[0]) - level(before, speech[0])) <= 2)
        #expect(try Waveform(measuring: AudioFile(forReading: rig.scratch.file("live.wav"))) == recorder.summary?.waveform,
                "the waveform is the enhanced file's")
    }

    @Test func moreThanTwoChannelsAreRefusedWithAReason() throws {
        let surround = scratch.path("surround.wav")
        try Sox.synth(to: surround, rate: 48000, channels: 3, seconds: 0.2, "sine 300 sine 400 sine 500")
        #expect {
            try AudioFileConverter.convert(
                contentsOf: URL(fileURLWithPath: surround), to: scratch.file("out.wav"), settings: AudioSettings(format: .wav, channelCount: 3),
                speechEnhancement: SpeechEnhancement())
        } throws: { error in
            "\(error)".contains("speech enhancement takes mono or stereo, not 3 channels")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.wav")))
    }
}
