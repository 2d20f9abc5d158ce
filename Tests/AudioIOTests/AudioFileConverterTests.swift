import AudioIO
import Foundation
import TestSupport
import Testing

@Suite struct AudioFileConverterTests {
    @Test(arguments: [16, 24])
    func wavToWAVIsBitExact(bits: Int) throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("in.wav"), rate: 44100, channels: 2, bits: bits, seconds: 2, "whitenoise", volume: 0.9)
        let depth = AudioSettings.BitDepth(rawValue: bits)!
        let summary = try AudioFileConverter.convert(
            contentsOf: scratch.file("in.wav"), to: scratch.file("out.wav"),
            settings: AudioSettings(format: .wav, sampleRate: 44100, channelCount: 2, bitDepth: depth))
        #expect(summary.frameCount == 88200)
        let original = try Data(contentsOf: scratch.file("in.wav"))
        let copy = try Data(contentsOf: scratch.file("out.wav"))
        // Compare the sample data itself: the headers differ (ours carries the software name).
        #expect(original.suffix(88200 * 2 * bits / 8) == copy.suffix(88200 * 2 * bits / 8))
        #expect(try Sox.samples(of: scratch.path("in.wav")) == Sox.samples(of: scratch.path("out.wav")))
    }

    @Test func wavToCAFIsReadableBySoxiAndLossless() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("in.wav"), rate: 48000, channels: 1, seconds: 1.5, "sine 1000")
        _ = try AudioFileConverter.convert(
            contentsOf: scratch.file("in.wav"), to: scratch.file("out.caf"), settings: AudioSettings(format: .caf))
        let info = try Sox.info(scratch.path("out.caf"))
        #expect(info.frames == 72000 && info.rate == 48000 && info.channels == 1 && info.bits == 16)
        #expect(try Sox.samples(of: scratch.path("in.wav")) == Sox.samples(of: scratch.path("out.caf")))
    }

    @Test func wavToOpusIsAcceptedByOpusinfoAndDecodesToTheSameLength() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("in.wav"), rate: 48000, channels: 2, seconds: 3, "sine 440")
        let summary = try AudioFileConverter.convert(
            contentsOf: scratch.file("in.wav"), to: scratch.file("out.opus"),
            settings: AudioSettings(format: .opus, channelCount: 2, bitRate: 96000))
        #expect(summary.frameCount == 144_000)
        let info = try Tool.run("opusinfo", [scratch.path("out.opus")])
        #expect(info.status == 0 && info.standardOutput.contains("Channels: 2"))
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", scratch.path("out.opus"), scratch.path("dec.wav")])
        let decoded = try Sox.info(scratch.path("dec.wav")).frames
        #expect(abs(decoded - 144_000) <= 960, "one 20 ms Opus frame at 48 kHz")
    }

    @Test func cdRateInputToOpusIsResampledNotRejectedOrSpedUp() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("in.wav"), rate: 44100, channels: 1, seconds: 3, "sine 1000")
        let summary = try AudioFileConverter.convert(
            contentsOf: scratch.file("in.wav"), to: scratch.file("out.opus"),
            settings: AudioSettings(format: .opus, sampleRate: 48000))
        #expect(summary.sampleRate == 48000 && summary.frameCount == 144_000)
        let info = try Tool.output("opusinfo", [scratch.path("out.opus")])
        #expect(info.contains("Original sample rate: 48000 Hz"))
        #expect(try AudioFile(forReading: scratch.file("out.opus")).sampleRate == 48000, "reads back at the rate written")
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", scratch.path("out.opus"), scratch.path("dec.wav")])
        #expect(abs(try Sox.info(scratch.path("dec.wav")).frames - 144_000) <= 960)
        // Still a 1 kHz tone: 2 zero crossings per cycle over 3 s, within 1 %.
        let decoded = try AudioFile(forReading: scratch.file("dec.wav")).read(frameCount: 144_000)
        let crossings = zip(decoded, decoded.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(Double(crossings) - 6000) < 60, "\(crossings) zero crossings")
    }

    @Test func channelsAreMixedDownAndCopiedUp() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("stereo.wav"), rate: 48000, channels: 2, seconds: 1, "sine 500", volume: 0.5)
        let mono = try AudioFileConverter.convert(
            contentsOf: scratch.file("stereo.wav"), to: scratch.file("mono.wav"), settings: AudioSettings(channelCount: 1))
        #expect(mono.channelCount == 1 && mono.frameCount == 48000)
        #expect(abs(mono.levels.peak[0] - (-6.02)) < 0.1, "the average of two equal channels keeps their level")
        let stereo = try AudioFileConverter.convert(
            contentsOf: scratch.file("mono.wav"), to: scratch.file("up.wav"), settings: AudioSettings(channelCount: 2))
        #expect(stereo.levels.peak[0] == stereo.levels.peak[1])
        #expect(try Sox.info(scratch.path("up.wav")).channels == 2)
    }

    @Test(arguments: ["sine 1000", "square 200", "whitenoise"])
    func levelsAgreeWithSoxStats(signal: String) throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("in.wav"), rate: 48000, channels: 2, seconds: 2, signal, volume: 0.7)
        let summary = try AudioFileConverter.convert(
            contentsOf: scratch.file("in.wav"), to: scratch.file("out.wav"), settings: AudioSettings(channelCount: 2))
        let sox = try Sox.levels(of: scratch.path("out.wav"), channels: 2)
        for channel in 0..<2 {
            #expect(abs(summary.levels.peak[channel] - sox.peak[channel]) < 0.1)
            #expect(abs(summary.levels.average[channel] - sox.rms[channel]) < 0.1)
        }
    }

    @Test func silenceMeasuresAtTheFloor() throws {
        let scratch = try ScratchDirectory()
        try Tool.output("sox", ["-D", "-n", "-r", "8000", "-c", "1", "-b", "16", scratch.path("quiet.wav"), "trim", "0", "1"])
        let summary = try AudioFileConverter.convert(
            contentsOf: scratch.file("quiet.wav"), to: scratch.file("out.wav"), settings: AudioSettings(sampleRate: 8000))
        #expect(summary.levels == AudioLevels(peak: [-160], average: [-160]))
    }

    @Test func aFailedConversionLeavesTheDestinationAsItWas() throws {
        let scratch = try ScratchDirectory()
        try Data("keep me".utf8).write(to: scratch.file("out.wav"))
        try Data(repeating: 7, count: 4096).write(to: scratch.file("junk.wav"))
        #expect(throws: AudioFileError.self) {
            try AudioFileConverter.convert(contentsOf: scratch.file("junk.wav"), to: scratch.file("out.wav"), settings: AudioSettings())
        }
        #expect(try String(contentsOf: scratch.file("out.wav"), encoding: .utf8) == "keep me")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).sorted() == ["junk.wav", "out.wav"])
    }
}
