import AudioIO
import Foundation
import TestSupport
import Testing

/// Files no one should feed an audio library, and the one clear error each must give: never a crash,
/// a hang or a partial result.
@Suite struct BadFileTests {
    let scratch: ScratchDirectory

    init() throws { scratch = try ScratchDirectory() }

    private func opening(_ url: URL) -> AudioFileError.Reason? {
        do {
            _ = try AudioFile(forReading: url)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func aMissingPath() {
        #expect(opening(scratch.file("nothing-here.wav")) == .notFound)
    }

    @Test func anEmptyFile() throws {
        try Data().write(to: scratch.file("empty.wav"))
        #expect(opening(scratch.file("empty.wav")) == .empty)
    }

    @Test func aDirectory() throws {
        try FileManager.default.createDirectory(at: scratch.file("folder.wav"), withIntermediateDirectories: false)
        #expect(opening(scratch.file("folder.wav")) == .notARegularFile("a directory"))
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        try Tool.output("mkfifo", [scratch.path("pipe.wav")])
        #expect(opening(scratch.file("pipe.wav")) == .notARegularFile("a FIFO (named pipe)"))
    }

    @Test func aCharacterDevice() {
        #expect(opening(URL(fileURLWithPath: "/dev/zero")) == .notARegularFile("a character device"))
    }

    @Test(arguments: [1, 7, 100, 4096, 65536])
    func randomBytesAreNotAudio(size: Int) throws {
        var generator = SeededGenerator(seed: UInt64(size))
        let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: scratch.file("random.wav"))
        let reason = try #require(opening(scratch.file("random.wav")))
        guard case .unrecognized = reason else {
            Issue.record("random bytes gave \(reason)")
            return
        }
    }

    @Test func aHeaderWithNoAudioOpensButConvertsToNothing() throws {
        try WAVHeader().bytes(dataBytes: 0).write(to: scratch.file("header-only.wav"))
        #expect(try AudioFile(forReading: scratch.file("header-only.wav")).frameCount == 0)
        #expect(throws: AudioFileError(path: scratch.path("header-only.wav"), reason: .noAudio)) {
            try AudioFileConverter.convert(
                contentsOf: scratch.file("header-only.wav"), to: scratch.file("out.wav"), settings: AudioSettings())
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.wav")))
    }

    @Test(arguments: ["wav", "caf", "opus"])
    func aFileCutInsideItsHeader(format: String) throws {
        let whole = scratch.file("whole.\(format)")
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 1, "sine 440")
        _ = try AudioFileConverter.convert(
            contentsOf: scratch.file("tone.wav"), to: whole, settings: AudioSettings(format: AudioFileFormat(rawValue: format)!))
        let cut = scratch.file("cut.\(format)")
        try Data(try Data(contentsOf: whole).prefix(20)).write(to: cut)
        #expect(opening(cut) != nil)
    }

    /// A copy of a 2-second tone in `format`, cut to half its bytes.
    private func halfOfATone(_ format: AudioFileFormat) throws -> URL {
        let whole = scratch.file("whole.\(format.rawValue)")
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 2, "sine 440")
        _ = try AudioFileConverter.convert(contentsOf: scratch.file("tone.wav"), to: whole, settings: AudioSettings(format: format))
        let data = try Data(contentsOf: whole)
        let cut = scratch.file("cut.\(format.rawValue)")
        try Data(data.prefix(data.count / 2)).write(to: cut)
        return cut
    }

    @Test func aWAVCutInsideItsAudioGivesWhatIsThere() throws {
        let file = try AudioFile(forReading: halfOfATone(.wav))
        let samples = try file.read(frameCount: 96000)
        #expect(samples.count > 40000 && samples.count < 56000, "\(samples.count) frames of 96000")
    }

    /// libsndfile checks CAF chunk sizes and needs the last Ogg page of Opus, so these halves are damaged
    /// files to it: the error must say so in one line. (A recording's own files are never in this state:
    /// their headers only ever claim what has reached the disk.)
    @Test(arguments: [AudioFileFormat.caf, .opus])
    func aCAFOrOpusCutInsideItsAudioIsReportedAsDamaged(format: AudioFileFormat) throws {
        let cut = try halfOfATone(format)
        guard case .malformed = opening(cut) else {
            Issue.record("expected 'damaged', got \(String(describing: opening(cut)))")
            return
        }
    }

    /// Every impossible field is refused as damage, and the message names it where libsndfile's does not.
    @Test(arguments: [
        ("claims no channels", WAVHeader(channels: 0)),
        ("Too many channels", WAVHeader(channels: 65535)),
        ("claims a rate of 0 Hz", WAVHeader(sampleRate: 0)),
        ("claims a rate of 4000000000 Hz", WAVHeader(sampleRate: 4_000_000_000)),
        ("claims 0-bit samples", WAVHeader(bitsPerSample: 0)),
        ("claims a rate of 1 Hz", WAVHeader(sampleRate: 1)),
        ("claims 0-bit samples", WAVHeader(bitsPerSample: 0, blockAlign: 2)),
        ("Malformed 'fmt ' chunk", WAVHeader(formatTag: 0x7777)),
    ])
    func absurdHeaderFieldsAreRefusedAndNamed(_ words: String, header: WAVHeader) throws {
        try header.bytes(dataBytes: 4000, payload: 4000).write(to: scratch.file("absurd.wav"))
        guard case .malformed(let why) = opening(scratch.file("absurd.wav")) else {
            Issue.record("a header that \(words): \(String(describing: opening(scratch.file("absurd.wav"))))")
            return
        }
        #expect(why.contains(words), "\(why)")
    }

    @Test func aDataChunkLongerThanTheFileReadsWhatIsThere() throws {
        try WAVHeader().bytes(dataBytes: 0xFFFF_FFF0, payload: 9600).write(to: scratch.file("huge.wav"))
        let file = try AudioFile(forReading: scratch.file("huge.wav"))
        #expect(try file.read(frameCount: 100_000).count == 4800)
    }

    /// Garbage in the middle of an Opus stream: what comes before it reads as it was, and the damage ends the reading
    /// with an error or a shorter stream, never a crash or a made-up frame count.
    @Test func garbageInTheMiddleOfAnOpusStreamKeepsWhatComesBefore() throws {
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 3, "sine 440")
        let url = scratch.file("damaged.opus")
        _ = try AudioFileConverter.convert(contentsOf: scratch.file("tone.wav"), to: url, settings: AudioSettings(format: .opus))
        let whole = try AudioFile(forReading: url).read(frameCount: 200_000)
        var data = try Data(contentsOf: url)
        var generator = SeededGenerator(seed: 42)
        for index in stride(from: data.count / 3, to: data.count * 2 / 3, by: 7) {
            data[index] = UInt8.random(in: 0...255, using: &generator)
        }
        try data.write(to: url)
        do {
            let file = try AudioFile(forReading: url)
            #expect(file.frameCount <= 144_000)
            var read: [Float] = []
            do {
                while case let block = try file.read(frameCount: 4800), !block.isEmpty { read += block }
            } catch {
                guard case .readFailed = error.reason else { throw error }
            }
            // The first half second is long before the damage, which starts past a third of the file.
            #expect(read.count >= 24000 && read.prefix(24000) == whole.prefix(24000), "\(read.count) frames read")
        } catch let error as AudioFileError {
            guard case .malformed = error.reason else { throw error }
        }
    }
}

/// A canonical 44-byte PCM WAV header whose every field a test can set to nonsense.
struct WAVHeader: Sendable {
    var formatTag: UInt16 = 1
    var channels: UInt16 = 1
    var sampleRate: UInt32 = 48000
    var bitsPerSample: UInt16 = 16
    var blockAlign: UInt16? = nil

    /// The header claiming `dataBytes` of audio, followed by `payload` zero bytes.
    func bytes(dataBytes: UInt32, payload: Int = 0) -> Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        let align = blockAlign ?? UInt16(truncatingIfNeeded: Int(channels) * Int(bitsPerSample) / 8)
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(truncatingIfNeeded: 36 + UInt64(dataBytes)))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(formatTag)
        append(channels)
        append(sampleRate)
        append(UInt32(truncatingIfNeeded: UInt64(sampleRate) * UInt64(align)))
        append(align)
        append(bitsPerSample)
        data.append(contentsOf: Array("data".utf8))
        append(dataBytes)
        data.append(Data(count: payload))
        return data
    }
}
