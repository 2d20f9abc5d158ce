import AudioIO
import Foundation
import TestSupport
import Testing

/// Every recording format from a microphone that delivers it as fast as the CPU reads (an ALSA `file` PCM): WAV and
/// CAF of 16, 24 and 32-bit float, FLAC of 16 and 24, Opus and M4A, mono and stereo, long and shorter than a period, as
/// it comes and through `--enhance`; and from a device gone wrong, whose float samples are random bytes (NaN and
/// infinity among them): the memo is made, the file reads back in sox or ffprobe, and `info` counts what could not be
/// recorded as it came. (Pauses and markers, which keys make in real time: `PulseRecordingFormatTests`.)
@Suite(.timeLimit(.minutes(2))) struct RecordingFormatTests {
    /// A format as `record` takes it, with the sample format its device is asked for (DESIGN §7).
    struct Format: CustomTestStringConvertible, Sendable {
        var name: String
        var bitDepth: Int?
        var device: ALSATestDevices.SampleFormat

        var testDescription: String { bitDepth.map { "\(name) \($0)-bit" } ?? name }
        var arguments: [String] { ["--format", name] + (bitDepth.map { ["--bit-depth", "\($0)"] } ?? []) }
        var isLossless: Bool { name == "wav" || name == "caf" || name == "flac" }
        /// sox's arguments for a source of this sample format.
        var soxEncoding: [String] {
            switch device {
            case .int16: ["-b", "16"]
            case .int24: ["-b", "24"]
            case .int32: ["-b", "32"]
            case .float32: ["-e", "floating-point", "-b", "32"]
            }
        }

        static let all: [Format] = ["wav", "caf"].flatMap { name in
            [Format(name: name, bitDepth: 16, device: .int16), Format(name: name, bitDepth: 24, device: .int24),
             Format(name: name, bitDepth: 32, device: .float32)]
        } + [Format(name: "flac", bitDepth: 16, device: .int16), Format(name: "flac", bitDepth: 24, device: .int24),
             Format(name: "opus", device: .float32), Format(name: "m4a", device: .float32)]

        /// The formats that can be fed NaN: those recorded from a float device.
        static let fromFloatDevices = all.filter { $0.device == .float32 }
    }

    /// Records `seconds` of `microphone` as `format` and returns the memo `record --json` prints.
    func record(_ cli: CLI, _ microphone: String, _ format: Format, channels: Int, seconds: String) throws -> [String: Any] {
        let result = try cli.run(
            ["record", "--device", microphone, "--duration", seconds, "--sample-rate", "48000", "--channels", "\(channels)",
             "--json"] + format.arguments, with: [:])
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        return try cli.json(result)
    }

    /// A lossy `file` decoded to WAV by its own format's reference tool (opusdec, ffmpeg), for sox to read.
    func decoded(_ file: String, _ format: Format, in cli: CLI) throws -> String {
        let wav = cli.scratch.path("decoded-\(UUID().uuidString.prefix(8)).wav")
        if format.name == "opus" {
            try Tool.output("opusdec", ["--quiet", "--rate", "48000", file, wav])
        } else {
            try Tool.output("ffmpeg", ["-v", "error", "-i", file, wav])
        }
        return wav
    }

    /// The frames of a lossy `file`: what opusdec decodes, or the length ffprobe reads from an M4A's edit list (the
    /// ffmpeg command decodes its last AAC frame whole).
    func frames(of file: String, _ format: Format, in cli: CLI) throws -> Int {
        format.name == "opus" ? try Sox.info(decoded(file, format, in: cli)).frames : try FFprobe.codec(of: file).frames
    }

    /// The samples of a lossless `file`, as sox reads them: ffmpeg's for 32-bit float, which sox reads from a CAF at
    /// twice their scale.
    func samples(of file: String, _ format: Format, in cli: CLI) throws -> [Float] {
        guard format.device != .float32 else { return try FFmpeg.samples(of: file, in: cli.scratch) }
        return try Sox.samples(of: file).map { Float($0) / 2_147_483_648 }
    }

    @Test(arguments: Format.all, [1, 2])
    func aRecordingHoldsWhatTheMicrophoneDelivered(format: Format, channels: Int) throws {
        let cli = try CLI()
        // Two seconds of a 440 Hz sine at -6 dBFS, in the device's own sample format, of which 1.5 s are recorded.
        let source = cli.scratch.path("source.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "\(channels)"] + format.soxEncoding
            + [source, "synth", "2", "sine", "440", "vol", "0.5"])
        let microphone = try ALSATestDevices.microphone(playing: source, format: format.device, channels: channels)
        let memo = try record(cli, microphone, format, channels: channels, seconds: "1.5")
        let file = try #require(memo["file"] as? String)
        #expect(memo["duration"] as? Double == 1.5 && memo["channels"] as? Int == channels)
        #expect(memo["nonFiniteSamples"] == nil, "counted only when there are any")
        let peaks = try #require(memo["peakDBFS"] as? [Double])
        #expect(peaks.count == channels && peaks.allSatisfy { abs($0 - -6.02) < 0.1 }, "\(peaks)")
        if format.isLossless {
            let info = try Sox.info(file)
            #expect(info.frames == 72000 && info.channels == channels && info.bits == format.bitDepth)
            #expect(try samples(of: file, format, in: cli) == Array(samples(of: source, format, in: cli).prefix(72000 * channels)),
                    "every sample as it came")
        } else {
            let wav = try decoded(file, format, in: cli)
            #expect(try frames(of: file, format, in: cli) == 72000 && Sox.info(wav).channels == channels)
            // The average level: a lossy encoder's peaks stray (FFmpeg's AAC puts this sine's at -0.9 dBFS).
            let levels = try Sox.levels(of: wav, channels: channels)
            #expect(levels.rms.allSatisfy { abs($0 - -9.03) < 0.5 }, "\(levels.rms)")
        }
    }

    @Test(arguments: Format.all)
    func aRecordingShorterThanAPeriodIsExactlyAsLongAsAsked(format: Format) throws {
        let cli = try CLI()
        let source = cli.scratch.path("source.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "1"] + format.soxEncoding + [source, "synth", "1", "sine", "440", "vol", "0.5"])
        let microphone = try ALSATestDevices.microphone(playing: source, format: format.device)
        // 5 ms, 240 frames: less than any period the device is opened with.
        let memo = try record(cli, microphone, format, channels: 1, seconds: "0.005")
        let file = try #require(memo["file"] as? String)
        #expect(memo["duration"] as? Double == 0.005)
        if format.isLossless {
            #expect(try samples(of: file, format, in: cli) == Array(samples(of: source, format, in: cli).prefix(240)))
        } else {
            #expect(try frames(of: file, format, in: cli) == 240)
        }
    }

    @Test(arguments: Format.all, ["1.5", "0.005"])
    func anEnhancedRecordingIsExactlyAsLongAsAskedAndKeepsTheTone(format: Format, seconds: String) throws {
        let cli = try CLI()
        let source = cli.scratch.path("source.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "1"] + format.soxEncoding + [source, "synth", "2", "sine", "440", "vol", "0.25"])
        let microphone = try ALSATestDevices.microphone(playing: source, format: format.device)
        let result = try cli.run(
            ["record", "--device", microphone, "--duration", seconds, "--sample-rate", "48000", "--enhance", "--json"]
                + format.arguments, with: [:])
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let memo = try cli.json(result)
        let file = try #require(memo["file"] as? String)
        // 72,000 frames, or 240: under a period, and under the enhancer's 10 ms chunk.
        let asked = Int((Double(seconds)! * 48000).rounded())
        #expect(memo["duration"] as? Double == Double(seconds))
        if format.isLossless {
            let info = try Sox.info(file)
            #expect(info.frames == asked && info.bits == format.bitDepth, "\(info)")
        } else {
            #expect(try frames(of: file, format, in: cli) == asked)
        }
        if asked > 48000 {
            // The tone is kept, its level brought up (the enhancer's gain aims at about -19 dBFS).
            let wav = format.isLossless ? file : try decoded(file, format, in: cli)
            let tail = cli.scratch.path("tail.wav")
            try Tool.output("sox", [wav, tail, "trim", "0.5"])
            let levels = try Sox.levels(of: tail, channels: 1)
            #expect(levels.rms.allSatisfy { $0 > -30 && $0 < -3 }, "\(levels.rms) dBFS")
        }
    }

    /// `count` random bytes, the same on every run.
    func garbage(_ count: Int) -> Data {
        var random = SeededGenerator(seed: 32)
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    @Test(arguments: Format.fromFloatDevices, [1, 2])
    func aDeviceDeliveringGarbageMakesAMemoThatCountsItsNonFiniteSamples(format: Format, channels: Int) throws {
        let cli = try CLI()
        // Two seconds of random bytes read as FLOAT_LE: NaN, infinities and values far past full scale among them.
        let infile = cli.scratch.path("garbage.raw")
        let bytes = garbage(48000 * 2 * channels * 4)
        try bytes.write(to: URL(fileURLWithPath: infile))
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let recorded = Array(samples.prefix(48000 * channels))
        let nonFinite = recorded.filter { !$0.isFinite }.count
        #expect(nonFinite > 100)

        let memo = try record(cli, try ALSATestDevices.microphone(raw: infile), format, channels: channels, seconds: "1")
        let file = try #require(memo["file"] as? String)
        #expect(memo["duration"] as? Double == 1 && memo["nonFiniteSamples"] as? Int == nonFinite)
        let levels = try #require(memo["peakDBFS"] as? [Double]) + (try #require(memo["averageDBFS"] as? [Double]))
        #expect(levels.count == 2 * channels && levels.allSatisfy { $0.isFinite })
        let loudness = try #require(memo["loudness"] as? [String: Any])
        #expect(loudness.count == 3 && loudness.values.allSatisfy { ($0 as? Double)?.isFinite == true }, "\(loudness)")

        let info = try cli.lines("info", try #require(memo["id"] as? String))
        #expect(info.contains { $0.hasPrefix("Non-finite samples:") && $0.hasSuffix(" \(nonFinite) (NaN or infinity, taken as silence)") },
                "\(info)")
        #expect(info.contains { $0.hasPrefix("Waveform:") } && !info.contains { $0.contains("unavailable") })

        // Another program reads the file; a float file holds the samples as they came, NaN and infinity included.
        if format.isLossless {
            #expect(try Sox.info(file).frames == 48000)
            let read = try AudioFile(forReading: URL(fileURLWithPath: file)).read(frameCount: 48000)
            #expect(read.map(\.bitPattern) == recorded.map(\.bitPattern))
        } else {
            #expect(try frames(of: file, format, in: cli) == 48000 && Sox.info(decoded(file, format, in: cli)).channels == channels)
        }
    }

    @Test(arguments: [Format(name: "opus", device: .float32), Format(name: "wav", bitDepth: 32, device: .float32)])
    func garbageThroughSpeechEnhancementIsCountedAndNeverReachesTheFile(format: Format) throws {
        let cli = try CLI()
        let infile = cli.scratch.path("garbage.raw")
        let bytes = garbage(48000 * 2 * 4)
        try bytes.write(to: URL(fileURLWithPath: infile))
        let nonFinite = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self).prefix(48000)) }.filter { !$0.isFinite }.count
        let result = try cli.run(
            ["record", "--device", try ALSATestDevices.microphone(raw: infile), "--duration", "1", "--sample-rate", "48000",
             "--enhance", "--json"] + format.arguments, with: [:])
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let memo = try cli.json(result)
        #expect(memo["duration"] as? Double == 1 && memo["nonFiniteSamples"] as? Int == nonFinite)
        // webrtc-audio-processing got silence in their place, and so did the float file it wrote to.
        let file = try #require(memo["file"] as? String)
        let samples = try FFmpeg.samples(of: format.isLossless ? file : decoded(file, format, in: cli), in: cli.scratch)
        #expect(samples.count == 48000 && samples.allSatisfy { $0.isFinite })
    }
}
