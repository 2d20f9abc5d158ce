@testable import AudioIO
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Excerpts cut without encoding again: WAV and CAF samples and Opus packets as they were, to the sample.
@Suite struct AudioFileExcerptTests {
    /// The packets of the file's one stream.
    static func packets(of path: String) throws -> [OggPacket] {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { try? descriptor.close() }
        let reader = OggPageReader(descriptor: descriptor)
        var stream: OggLogicalStream?
        var packets: [OggPacket] = []
        while case .page(let page) = try reader.next() {
            if stream == nil { stream = try OggLogicalStream(serialNumber: page.serialNumber) }
            try stream?.add(page)
            while let packet = try stream?.nextPacket() { packets.append(packet) }
        }
        return packets
    }

    /// What opusdec decodes `path` to, as 32-bit float samples (no dither), read back left-justified in 32 bits.
    static func opusdec(_ path: String, in scratch: ScratchDirectory) throws -> [Int32] {
        let wav = scratch.path(UUID().uuidString + ".wav")
        try Tool.output("opusdec", ["--quiet", "--float", path, wav])
        return try Sox.samples(of: wav)
    }

    /// Speech from espeak-ng, `seconds` long or so, at 48 kHz in `channels` channels.
    static func speech(in scratch: ScratchDirectory, channels: Int = 1) throws -> String {
        let spoken = scratch.path("spoken.wav")
        try Tool.output("espeak-ng", ["-w", spoken, "Trimming a memo keeps every packet of its audio as it was. The cut lands on the sample, at the start and at the end, and nothing is encoded twice."])
        let speech = scratch.path("speech.wav")
        try Tool.output("sox", [spoken, "-r", "48000", "-c", "\(channels)", "-b", "16", speech])
        return speech
    }

    @Test(arguments: [(0, 48000), (150_000, 333_333), (71_000, nil), (3, 5000)] as [(Int64, Int64?)])
    func anOpusExcerptDecodesToExactlyTheSamplesBetweenItsCutsWithItsPacketsUnchanged(start: Int64, end: Int64?) throws {
        let scratch = try ScratchDirectory()
        let source = scratch.path("source.opus")
        try Tool.output("opusenc", ["--quiet", "--bitrate", "32", try Self.speech(in: scratch), source])
        let file = try AudioFile(forReading: URL(fileURLWithPath: source))
        let end = end ?? file.frameCount
        let target = scratch.file("cut.opus")
        let staged = try AudioFileConverter.stageExcerpt(of: URL(fileURLWithPath: source), frames: start..<end, beside: target)
        try staged.place(at: target, replacingExisting: false)

        let original = try Self.opusdec(source, in: scratch)
        let cut = try Self.opusdec(target.path, in: scratch)
        #expect(cut.count == Int(end - start))
        #expect(cut == Array(original[Int(start)..<Int(end)]), "opusdec decodes the excerpt to the original's samples")
        #expect(staged.summary.frameCount == end - start)
        let ours = try AudioFile(forReading: target)
        #expect(ours.frameCount == end - start)

        let kept = try Self.packets(of: target.path).dropFirst(2).map(\.data)
        let all = try Self.packets(of: source).dropFirst(2).map(\.data)
        let first = try #require(all.firstIndex(of: kept[0]))
        #expect(Array(all[first..<(first + kept.count)]) == kept, "every audio packet kept byte for byte")
        let info = try Tool.run("opusinfo", [target.path])
        #expect(info.status == 0 && !(info.standardOutput + info.standardError).localizedCaseInsensitiveContains("warning"), "\(info.standardOutput)\(info.standardError)")
    }
}
