import AudioIO
import Foundation
import TestSupport
import Testing

@Suite struct AudioFileTests {
    @Test func readsWhatSoxWroteSampleForSample() throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("tone.wav")
        try Sox.synth(to: path, rate: 44100, channels: 2, seconds: 0.5, "sine 440 sine 660")
        let file = try AudioFile(forReading: URL(fileURLWithPath: path))
        #expect(file.format == .wav && file.bitDepth == 16)
        #expect(file.sampleRate == 44100 && file.channelCount == 2 && file.frameCount == 22050)
        #expect(abs(file.duration - 0.5) < 1e-9)
        let samples = try file.read(frameCount: 30000)
        let reference = try Sox.samples(of: path)
        #expect(samples.count == reference.count)
        #expect(zip(samples, reference).allSatisfy { $0 == Float($1 >> 16) / 32768 })
        #expect(try file.read(frameCount: 10).isEmpty)
    }

    @Test(arguments: ["wav", "caf", "flac", "opus"])
    func seekingLandsOnTheExactFrame(format: String) throws {
        let scratch = try ScratchDirectory()
        let path = scratch.path("noise.\(format)")
        try Sox.synth(to: scratch.path("source.wav"), rate: 48000, channels: 1, seconds: 2, "whitenoise")
        if format == "opus" {
            _ = try AudioFileConverter.convert(
                contentsOf: scratch.file("source.wav"), to: URL(fileURLWithPath: path),
                settings: AudioSettings(format: .opus, bitRate: 64000))
        } else {
            try Tool.output("sox", [scratch.path("source.wav"), path])
        }
        let file = try AudioFile(forReading: URL(fileURLWithPath: path))
        let everything = try file.read(frameCount: Int(file.frameCount))
        for frame in [0, 1, 12345, 48000, 95999] {
            try file.seek(toFrame: Int64(frame))
            #expect(file.framePosition == Int64(frame))
            let after = try file.read(frameCount: 64)
            let expected = Array(everything[frame..<min(frame + 64, everything.count)])
            #expect(after.count == expected.count)
            // Opus decodes the pre-roll again after a seek; its output converges to within rounding.
            let tolerance: Float = format == "opus" ? 1e-3 : 0
            #expect(zip(after, expected).allSatisfy { abs($0 - $1) <= tolerance }, "at frame \(frame)")
        }
        #expect(throws: AudioFileError.self) { try file.seek(toFrame: file.frameCount + 1) }
    }

    @Test(arguments: [AudioFileFormat.wav, .caf, .opus])
    func titleAndDateTravelInsideTheFile(format: AudioFileFormat) throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("memo.\(format.rawValue)")
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let metadata = AudioMetadata(title: "Grocery list — ü ☃", creationDate: date)
        let writer = try AudioFileWriter(url: url, settings: AudioSettings(format: format), metadata: metadata)
        let silence = [Float](repeating: 0, count: 4800)
        try silence.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let file = try AudioFile(forReading: url)
        #expect(file.metadata == metadata)
        if format == .opus {
            let info = try Tool.output("opusinfo", [url.path])
            #expect(info.contains("TITLE=Grocery list — ü ☃"))
        } else {
            // In the container's own fields (WAV LIST/INFO, CAF info), not in a sidecar.
            let bytes = try Data(contentsOf: url)
            #expect(bytes.range(of: Data("Grocery list — ü ☃".utf8)) != nil)
        }
    }

    @Test func opusFrameCountMatchesWhatOpusdecDecodes() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("in.wav"), rate: 48000, channels: 1, seconds: 1.2345, "sine 300")
        _ = try AudioFileConverter.convert(
            contentsOf: scratch.file("in.wav"), to: scratch.file("out.opus"), settings: AudioSettings(format: .opus))
        let file = try AudioFile(forReading: scratch.file("out.opus"))
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", scratch.path("out.opus"), scratch.path("dec.wav")])
        #expect(file.frameCount == Int64(try Sox.info(scratch.path("dec.wav")).frames))
        #expect(file.frameCount == 59256)
    }
}
