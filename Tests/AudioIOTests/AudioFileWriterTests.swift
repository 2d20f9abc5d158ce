import AudioIO
import Foundation
import TestSupport
import Testing

@Suite struct AudioFileWriterTests {
    @Test(arguments: [
        (AudioFileFormat.wav, AudioSettings.BitDepth.int16), (.wav, .int24), (.wav, .float32),
        (.caf, .int16), (.caf, .int24), (.caf, .float32),
    ])
    func pcmFilesCarryTheirSettingsAsSoxiSeesThem(format: AudioFileFormat, depth: AudioSettings.BitDepth) throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("out.\(format.rawValue)")
        let settings = AudioSettings(format: format, sampleRate: 22050, channelCount: 2, bitDepth: depth)
        let writer = try AudioFileWriter(url: url, settings: settings)
        let frames = [Float](repeating: 0.25, count: 22050 * 2)
        try frames.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let info = try Sox.info(url.path)
        #expect(info.frames == 22050 && info.rate == 22050 && info.channels == 2 && info.bits == depth.rawValue)
    }

    @Test(arguments: [AudioFileFormat.wav, .caf])
    func theHeaderIsValidBeforeTheFileIsClosed(format: AudioFileFormat) throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("open.\(format.rawValue)")
        let writer = try AudioFileWriter(url: url, settings: AudioSettings(format: format))
        let block = [Float](repeating: 0.5, count: 4800)
        for _ in 0..<3 { try block.withUnsafeBufferPointer { try writer.write($0) } }
        // As a crash would leave it: the writer still open, nothing finalised.
        #expect(try AudioFile(forReading: url).frameCount == 14400)
        #expect(try Sox.info(url.path).frames == 14400)
        try writer.close()
    }

    @Test func samplesBeyondFullScaleAreClippedNotWrapped() throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("loud.wav")
        let writer = try AudioFileWriter(url: url, settings: AudioSettings())
        try [1.5, -1.5, 0.5].withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        #expect(try Sox.samples(of: url.path) == [32767 << 16, -32768 << 16, 16384 << 16])
    }

    @Test(arguments: [(1, 16000), (1, 32000), (2, 128_000)])
    func opusHitsTheAskedBitRate(channels: Int, bitRate: Int) throws {
        let scratch = try ScratchDirectory()
        // Independent noise per channel: the hardest case for the encoder to keep within its budget.
        let noise = Array(repeating: "pinknoise", count: channels).joined(separator: " ")
        try Sox.synth(to: scratch.path("noise.wav"), rate: 48000, channels: channels, seconds: 10, noise)
        _ = try AudioFileConverter.convert(
            contentsOf: scratch.file("noise.wav"), to: scratch.file("ours.opus"),
            settings: AudioSettings(format: .opus, channelCount: channels, bitRate: bitRate))
        let measured = try averageBitRate(scratch.path("ours.opus")) * 1000
        // Opus is variable-rate: noise at low rates overshoots a little, as it does with opusenc.
        #expect(abs(measured - Double(bitRate)) / Double(bitRate) < 0.2, "\(measured) b/s for \(bitRate)")
    }

    /// opusinfo's "Average bitrate ... w/o overhead", in kb/s.
    private func averageBitRate(_ path: String) throws -> Double {
        let info = try Tool.output("opusinfo", [path])
        let line = try #require(info.split(separator: "\n").first { $0.contains("Average bitrate") })
        return try #require(Double(line.split(separator: "w/o overhead: ").last?.split(separator: " ").first ?? ""))
    }

    @Test func invalidSettingsAreRefusedBeforeAFileIsMade() throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("never.opus")
        #expect(throws: AudioSettingsError.opusSampleRate(44100)) {
            try AudioFileWriter(url: url, settings: AudioSettings(format: .opus, sampleRate: 44100))
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func aFileAnotherProcessWritesIsLeftAsItIs() throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("taken.wav")
        let first = try AudioFileWriter(url: url, settings: AudioSettings(sampleRate: 8000))
        try [Float](repeating: 0.5, count: 8000).withUnsafeBufferPointer { try first.write($0) }
        try first.close()
        let written = try Data(contentsOf: url)
        // Another process holds the file locked, as a writer holds the file it writes.
        let holder = try Tool.start("flock", ["--exclusive", "--no-fork", url.path, "sh", "-c", "echo locked; exec sleep 60"])
        defer { holder.kill() }
        #expect(holder.nextLine() == "locked")

        let refused = #expect(throws: AudioFileError.self) { try AudioFileWriter(url: url, settings: AudioSettings(sampleRate: 8000)) }
        #expect(refused?.reason == .inUse)
        #expect(refused?.description == "cannot write '\(url.path)': another process is writing it; wait until it is done, or pick another name")
        #expect(try Data(contentsOf: url) == written)

        // Once it lets go, the file is written again.
        holder.kill()
        let second = try AudioFileWriter(url: url, settings: AudioSettings(sampleRate: 8000))
        try [Float](repeating: 0.5, count: 800).withUnsafeBufferPointer { try second.write($0) }
        try second.close()
        #expect(try AudioFile(forReading: url).frameCount == 800)
    }

    @Test func aFullDiskIsReportedAsAWriteFailure() throws {
        let writer = try AudioFileWriter(url: URL(fileURLWithPath: "/dev/full"), settings: AudioSettings(format: .opus))
        let second = [Float](repeating: 0.1, count: 48000)
        #expect(throws: AudioFileError.self) {
            for _ in 0..<10 { try second.withUnsafeBufferPointer { try writer.write($0) } }
            try writer.close()
        }
    }
}
