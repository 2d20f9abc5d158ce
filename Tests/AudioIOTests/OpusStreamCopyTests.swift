@testable import AudioIO
import Foundation
import SystemPackage
import TestSupport
import Testing

/// An Opus stream copied packet by packet: the identification header and every audio packet byte for byte, the stream
/// ending at the same granule position, and only the comment header's title and date new.
@Suite struct OpusStreamCopyTests {
    /// The packets of the file's one stream, and the granule position of its last page.
    func packets(of url: URL) throws -> (packets: [OggPacket], end: Int64) {
        let descriptor = try FileDescriptor.open(url.path, .readOnly)
        defer { try? descriptor.close() }
        let reader = OggPageReader(descriptor: descriptor)
        var stream: OggLogicalStream?
        var packets: [OggPacket] = []
        var end: Int64 = -1
        while case .page(let page) = try reader.next() {
            if stream == nil { stream = try OggLogicalStream(serialNumber: page.serialNumber) }
            try stream?.add(page)
            while let packet = try stream?.nextPacket() { packets.append(packet) }
            end = page.granulePosition
        }
        return (packets, end)
    }

    @Test func aCopyKeepsEveryAudioPacketAndRewritesOnlyTheTags() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("noise.wav"), rate: 48000, channels: 2, seconds: 2, "pinknoise pinknoise")
        let source = scratch.file("source.opus")
        try Tool.output("opusenc", ["--quiet", "--artist", "Ann", "--title", "Old", scratch.path("noise.wav"), source.path])
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let staged = try #require(try AudioFileConverter.stageOpusCopy(
            of: source, beside: scratch.file("copy.opus"),
            metadata: AudioMetadata(title: "New", creationDate: date, album: "Talks", markers: [AudioMarker(framePosition: 72000, name: "Q&A")])))
        try staged.place(at: scratch.file("copy.opus"), replacingExisting: false)

        let original = try packets(of: source)
        let copy = try packets(of: scratch.file("copy.opus"))
        #expect(copy.packets.count == original.packets.count && copy.end == original.end)
        #expect(copy.packets[0].data == original.packets[0].data, "OpusHead as it was")
        #expect(copy.packets.dropFirst(2).map(\.data) == original.packets.dropFirst(2).map(\.data), "every audio packet")
        #expect(copy.packets.last?.isEndOfStream == true)
        let before = try #require(OpusTags(packet: original.packets[1].data))
        let after = try #require(OpusTags(packet: copy.packets[1].data))
        #expect(after.vendor == before.vendor)
        let comments = after.comments.map { String(decoding: $0, as: UTF8.self) }
        // opusenc writes its keys in lower case; the tags are the metadata's, the other comments stay.
        #expect(comments.contains("TITLE=New") && comments.contains("ALBUM=Talks") && !comments.contains("title=Old") && !comments.contains("artist=Ann"),
                "\(comments)")
        #expect(comments.contains("DATE=2023-11-14T22:13:20Z") && comments.contains { $0.hasPrefix("ENCODER=opusenc") }, "\(comments)")
        #expect(comments.contains("CHAPTER001=00:00:01.500") && comments.contains("CHAPTER001NAME=Q&A"), "\(comments)")
        #expect(try FFprobe.chapters(of: scratch.path("copy.opus")).map { "\($0.start) \($0.title ?? "")" } == ["1.5 Q&A"])
        #expect(staged.summary.frameCount == 96000 && staged.summary.channelCount == 2)
    }

    @Test func whatIsNoSingleOpusStreamIsNotCopied() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        try Tool.output("opusenc", ["--quiet", scratch.path("tone.wav"), scratch.path("tone.opus")])
        let tone = try Data(contentsOf: scratch.file("tone.opus"))
        // The same stream twice: the second link has the first's serial number.
        try (tone + tone).write(to: scratch.file("chained.opus"))
        for name in ["tone.wav", "chained.opus"] {
            #expect(try AudioFileConverter.stageOpusCopy(of: scratch.file(name), beside: scratch.file("out.opus"), metadata: nil) == nil, "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path("")).sorted() == ["chained.opus", "tone.opus", "tone.wav"],
                "no hidden file left")
    }

    @Test func theCommentHeaderReadsBackAsItWasWritten() throws {
        let tags = OpusTags(packet: Array("OpusTags".utf8) + [3, 0, 0, 0] + Array("abc".utf8) + [1, 0, 0, 0] + [4, 0, 0, 0] + Array("X=yz".utf8))
        let parsed = try #require(tags)
        #expect(parsed.vendor == Array("abc".utf8) && parsed.comments == [Array("X=yz".utf8)])
        #expect(OpusTags(packet: parsed.packet) == parsed)
        #expect(OpusTags(packet: Array("OpusTags".utf8) + [200, 0, 0, 0]) == nil, "a length past the end")
    }
}
