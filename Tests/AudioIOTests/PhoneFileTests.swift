import AudioIO
import Foundation
import TestSupport
import Testing

/// What phones and other recorders write, made by the ffmpeg command-line tool and read through `AudioFile`'s
/// FFmpeg backend: the length, the levels, the tags and exact seeking, as sox and ffmpeg measure them.
@Suite struct PhoneFileTests {
    /// A file ffmpeg makes from a 1.5 s sine at half scale (peak −6.02 dBFS, RMS −9.03 dBFS).
    struct Kind: CustomTestStringConvertible, Sendable {
        let name: String
        let format: AudioFileFormat
        let arguments: [String]
        /// Frames more or fewer than the source's that the codec may give: none where the container says exactly
        /// (MP4 and MOV); ADTS states no priming, WMA ends on a whole block.
        let slack: Int
        var testDescription: String { name }
    }

    static let kinds = [
        Kind(name: "aac.m4a", format: .aac, arguments: ["-c:a", "aac"], slack: 0),
        Kind(name: "alac.m4a", format: .alac, arguments: ["-c:a", "alac"], slack: 0),
        Kind(name: "adts.aac", format: .aac, arguments: ["-c:a", "aac"], slack: 2048),
        // With a video track, which is not what is read.
        Kind(name: "video.mp4", format: .aac, arguments: ["-f", "lavfi", "-i", "color=size=64x64:rate=5", "-map", "0:a", "-map", "1:v",
                                                         "-shortest", "-c:a", "aac"], slack: 0),
        Kind(name: "video.mov", format: .aac, arguments: ["-f", "lavfi", "-i", "color=size=64x64:rate=5", "-map", "0:a", "-map", "1:v",
                                                         "-shortest", "-c:a", "aac"], slack: 0),
        Kind(name: "wmav2.wma", format: .wma, arguments: ["-c:a", "wmav2"], slack: 2048),
    ]

    /// Makes `kind` from a 1.5 s sine at `rate` and `channels` and returns its path and the source's frames.
    static func make(_ kind: Kind, rate: Int = 44100, channels: Int = 1, in scratch: ScratchDirectory) throws -> (path: String, frames: Int) {
        let source = scratch.path("source.wav")
        try Sox.synth(to: source, rate: rate, channels: channels, seconds: 1.5, "sine 1000")
        let path = scratch.path(kind.name)
        try Tool.output("ffmpeg", ["-v", "error", "-y", "-i", source] + kind.arguments + [path])
        return (path, Int(1.5 * Double(rate)))
    }

    @Test(arguments: kinds)
    func readsWithItsLengthAndLevels(kind: Kind) throws {
        let scratch = try ScratchDirectory()
        let (path, frames) = try Self.make(kind, rate: 44100, channels: 2, in: scratch)
        let file = try AudioFile(forReading: URL(fileURLWithPath: path))
        #expect(file.format == kind.format && file.sampleRate == 44100 && file.channelCount == 2)
        #expect(abs(Int(file.frameCount) - frames) <= kind.slack, "\(file.frameCount) frames of \(frames)")
        let levels = try file.measureLevels()
        #expect(file.framePosition == file.frameCount, "reads exactly the frames it counts")
        for channel in 0..<2 {
            #expect(abs(levels.peak[channel] - -6.02) < 0.5 && abs(levels.average[channel] - -9.03) < 0.5, "\(levels)")
        }
        // What ffmpeg itself decodes, measured by sox: the same levels.
        try Tool.output("ffmpeg", ["-v", "error", "-i", path, "-c:a", "pcm_f32le", scratch.path("ffmpeg.wav")])
        let reference = try Sox.levels(of: scratch.path("ffmpeg.wav"), channels: 2)
        #expect(zip(levels.peak, reference.peak).allSatisfy { abs($0 - $1) < 0.5 })
        #expect(zip(levels.average, reference.rms).allSatisfy { abs($0 - $1) < 0.5 })
    }

    @Test func anALACFileKeepsItsBitDepth() throws {
        let scratch = try ScratchDirectory()
        let (path, _) = try Self.make(Self.kinds[1], in: scratch)
        #expect(try AudioFile(forReading: URL(fileURLWithPath: path)).bitDepth == 16)
        try Tool.output("ffmpeg", ["-v", "error", "-i", scratch.path("source.wav"), "-c:a", "alac", "-sample_fmt", "s32p", scratch.path("24.m4a")])
        #expect(try AudioFile(forReading: scratch.file("24.m4a")).bitDepth == 24)
        #expect(try AudioFile(forReading: scratch.file("source.wav")).bitDepth == 16)
    }

    @Test func theTitleAndDateComeFromTheTags() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("source.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        try Tool.output("ffmpeg", ["-v", "error", "-i", scratch.path("source.wav"), "-c:a", "aac",
                                   "-metadata", "title=Standup — ü", "-metadata", "creation_time=2024-03-05T10:11:12Z",
                                   scratch.path("memo.m4a")])
        let file = try AudioFile(forReading: scratch.file("memo.m4a"))
        #expect(file.metadata == AudioMetadata(title: "Standup — ü", creationDate: Date(timeIntervalSince1970: 1_709_633_472)))
        // Only a date, as some tools write it.
        try Tool.output("ffmpeg", ["-v", "error", "-i", scratch.path("source.wav"), "-c:a", "wmav2", "-metadata", "date=2023-12-24",
                                   scratch.path("memo.wma")])
        #expect(try AudioFile(forReading: scratch.file("memo.wma")).metadata.creationDate == Date(timeIntervalSince1970: 1_703_376_000))
    }

    @Test(arguments: [kinds[0], kinds[1], kinds[3], kinds[2], kinds[5]])
    func seekingLandsOnTheExactFrame(kind: Kind) throws {
        let scratch = try ScratchDirectory()
        let (path, _) = try Self.make(kind, in: scratch)
        let file = try AudioFile(forReading: URL(fileURLWithPath: path))
        let everything = try file.read(frameCount: Int(file.frameCount))
        #expect(everything.count == Int(file.frameCount))
        for frame in [40000, 0, 1, 60000, 12345, 12344, 4096, 4095, Int(file.frameCount) - 10, Int(file.frameCount), 3] {
            try file.seek(toFrame: Int64(frame))
            #expect(file.framePosition == Int64(frame))
            let after = try file.read(frameCount: 64)
            let expected = Array(everything[frame..<min(frame + 64, everything.count)])
            #expect(after.count == expected.count)
            // After a jump in an MP4 or MOV, AAC's decoder converges to within rounding (as Opus' does); ALAC and a
            // decoding from the start give the very samples.
            let tolerance: Float = kind.format == .aac && !kind.name.hasSuffix(".aac") ? 2e-3 : 0
            #expect(zip(after, expected).allSatisfy { abs($0 - $1) <= tolerance }, "at frame \(frame)")
        }
        try file.seek(toFrame: file.frameCount)
        #expect(try file.read(frameCount: 10).isEmpty)
        #expect(throws: AudioFileError.self) { try file.seek(toFrame: file.frameCount + 1) }
    }

    /// Debian's ffmpeg has no AMR encoder: the file is written here, in AMR's storage format (RFC 4867 §5), of
    /// speech frames whose bits are all zero.
    @Test(arguments: [(false, 8000), (true, 16000)])
    func anAMRFileReadsAtItsRate(wideband: Bool, rate: Int) throws {
        let scratch = try ScratchDirectory()
        // 12.2 kb/s (mode 7, 31 bytes) for narrowband, 23.85 kb/s (mode 8, 60 bytes) for wideband; 20 ms each.
        let frame: [UInt8] = wideband ? [8 << 3 | 4] + [UInt8](repeating: 0, count: 60) : [7 << 3 | 4] + [UInt8](repeating: 0, count: 31)
        let magic = wideband ? "#!AMR-WB\n" : "#!AMR\n"
        try Data(Array(magic.utf8) + Array(repeating: frame, count: 75).joined()).write(to: scratch.file("call.amr"))
        let file = try AudioFile(forReading: scratch.file("call.amr"))
        #expect(file.format == .amr && file.sampleRate == Double(rate) && file.channelCount == 1)
        #expect(file.frameCount == Int64(rate * 3 / 2), "75 frames of 20 ms")
        #expect(try file.read(frameCount: rate * 2).count == rate * 3 / 2)
    }

    @Test(arguments: [kinds[0], kinds[2]])
    func aTruncatedFileIsDamaged(kind: Kind) throws {
        let scratch = try ScratchDirectory()
        let (path, _) = try Self.make(kind, in: scratch)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: scratch.file("cut-\(kind.name)"))
        do {
            let file = try AudioFile(forReading: scratch.file("cut-\(kind.name)"))
            _ = try file.measureLevels()
            Issue.record("half of \(kind.name) read as \(file.frameCount) frames")
        } catch {
            guard case .malformed = error.reason else { Issue.record("\(error)"); return }
            #expect("\(error)".contains("damaged") && !"\(error)".contains("\n"))
        }
    }

    @Test func randomBytesNamedM4AAreNotAudio() throws {
        let scratch = try ScratchDirectory()
        var generator = SeededGenerator(seed: 4)
        try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: scratch.file("random.m4a"))
        #expect {
            try AudioFile(forReading: scratch.file("random.m4a"))
        } throws: { error in
            guard let error = error as? AudioFileError, case .unrecognized = error.reason else { return false }
            return true
        }
    }

    @Test func filesOpenedRefusedAndReadLeaveNoDescriptorOpen() throws {
        let scratch = try ScratchDirectory()
        let (path, _) = try Self.make(Self.kinds[2], in: scratch)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: scratch.file("cut.aac"))
        try Data(bytes.prefix(bytes.count / 2)).write(to: scratch.file("cut.m4a"))
        func openDescriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        let before = try openDescriptors()
        for _ in 0..<40 {
            let file = try AudioFile(forReading: URL(fileURLWithPath: path))
            try file.seek(toFrame: 1000)
            _ = try file.read(frameCount: 100)
            try file.seek(toFrame: 10)
            for name in ["cut.aac", "cut.m4a"] { #expect(throws: AudioFileError.self) { try AudioFile(forReading: scratch.file(name)) } }
        }
        // A leak would leave 80 or more; the tests running beside this one hold a few pipes to their tools.
        #expect(try openDescriptors() < before + 30)
    }

    @Test func aVideoWithoutSoundHasNoAudio() throws {
        let scratch = try ScratchDirectory()
        try Tool.output("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=size=64x64:rate=5:duration=1", scratch.path("silent.mp4")])
        #expect(throws: AudioFileError(path: scratch.path("silent.mp4"), reason: .noAudio)) {
            try AudioFile(forReading: scratch.file("silent.mp4"))
        }
    }
}
