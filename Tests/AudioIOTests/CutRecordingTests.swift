@testable import AudioIO
import Foundation
import SystemPackage
import TestSupport
import Testing

/// Recordings cut short (a kill, a full disk, a power cut) made readable again: an Opus stream cut anywhere keeps
/// every whole packet, byte for byte, and voicememo (libsndfile), opusinfo and opusdec agree on what it holds.
@Suite struct CutRecordingTests {
    /// A 3 s Opus file of noise, as a recording writes it, and its pages.
    func recording(in scratch: ScratchDirectory) throws -> (url: URL, bytes: [UInt8], pages: [OggPage]) {
        try Sox.synth(to: scratch.path("noise.wav"), rate: 48000, channels: 1, seconds: 3, "pinknoise")
        let url = scratch.file("whole.opus")
        _ = try AudioFileConverter.convert(
            contentsOf: scratch.file("noise.wav"), to: url, settings: AudioSettings(format: .opus, channelCount: 1))
        return (url, Array(try Data(contentsOf: url)), try pages(of: url))
    }

    func pages(of url: URL) throws -> [OggPage] {
        let descriptor = try FileDescriptor.open(url.path, .readOnly)
        defer { try? descriptor.close() }
        let reader = OggPageReader(descriptor: descriptor)
        var pages: [OggPage] = []
        while case .page(let page) = try reader.next() { pages.append(page) }
        return pages
    }

    /// The packets of the file's stream, in order.
    func packets(of url: URL) throws -> [OggPacket] {
        let pages = try pages(of: url)
        let stream = try OggLogicalStream(serialNumber: pages[0].serialNumber)
        var packets: [OggPacket] = []
        for page in pages {
            try stream.add(page)
            while let packet = try stream.nextPacket() { packets.append(packet) }
        }
        return packets
    }

    /// What opusdec decodes the file to, as 16-bit samples, and opusinfo's report.
    func decoded(_ url: URL, _ scratch: ScratchDirectory) throws -> (samples: [Int32], opusinfo: ToolResult) {
        let wav = scratch.path("decoded-\(UUID().uuidString.prefix(8)).wav")
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", url.path, wav])
        return (try Sox.samples(of: wav), try Tool.run("opusinfo", [url.path]))
    }

    @Test func anOpusStreamCutAnywhereKeepsEveryWholePacketAndIsReadTheSameByEveryTool() throws {
        let scratch = try ScratchDirectory()
        let (_, bytes, pages) = try recording(in: scratch)
        let original = try packets(of: scratch.file("whole.opus"))
        let wholeDecoding = try decoded(scratch.file("whole.opus"), scratch).samples
        let firstAudioPage = try #require(pages.firstIndex { $0.granulePosition != 0 })
        let ends = pages.map { Int($0.end!) }
        // Inside the headers, at the end of each of the first audio pages, a byte into one, in the middle of
        // several, a byte short of the end, and the whole file without its last page.
        var cuts = [ends[0] - 3, ends[firstAudioPage - 1], ends[firstAudioPage] - 1, ends[firstAudioPage],
                    ends[firstAudioPage] + 1, bytes.count - 1, ends[pages.count - 2]]
        for page in stride(from: firstAudioPage + 1, to: pages.count - 1, by: 3) { cuts.append(ends[page] - 40) }
        for cut in cuts {
            let url = scratch.file("cut-\(cut).opus")
            try Data(bytes[..<cut]).write(to: url)
            let outcome = try AudioFile.repairCutRecording(at: url)
            guard cut > ends[firstAudioPage] - 1 else {
                #expect(outcome == .noAudio, "cut at \(cut)")
                continue
            }
            let kept = try packets(of: url)
            #expect(outcome == .repaired(droppedByteCount: Int64(cut) - Int64(try Data(contentsOf: url).count)), "cut at \(cut)")
            // Whole packets only, byte for byte, and every whole one that reached the file.
            let wholePackets = try packets(of: url)
            #expect(kept.map(\.data) == original.prefix(kept.count).map(\.data), "cut at \(cut)")
            #expect(wholePackets.last?.isEndOfStream == true, "cut at \(cut)")
            let completed = pages.prefix { Int($0.end!) <= cut }.last.map { page in
                original.firstIndex { $0.granulePosition == page.granulePosition }.map { $0 + 1 } ?? 0
            } ?? 0
            #expect(kept.count == completed, "cut at \(cut): \(kept.count) packets kept of \(completed)")
            // libsndfile, opusdec and opusinfo tell the same length; the audio is the whole file's, up to there.
            let (samples, opusinfo) = try decoded(url, scratch)
            #expect(opusinfo.status == 0 && !opusinfo.standardOutput.contains("WARNING"), "cut at \(cut): \(opusinfo.standardOutput)")
            let file = try AudioFile(forReading: url)
            #expect(file.frameCount == Int64(samples.count), "cut at \(cut)")
            #expect(samples == Array(wholeDecoding.prefix(samples.count)), "cut at \(cut)")
            #expect(try AudioFile.repairCutRecording(at: url) == .intact)
        }
    }

    @Test func zerosLeftByAPowerCutAfterTheLastWholePageAreCutOff() throws {
        let scratch = try ScratchDirectory()
        let (_, bytes, pages) = try recording(in: scratch)
        let cut = Int(pages[pages.count / 2].end!) + 100
        let url = scratch.file("zeros.opus")
        try Data(bytes[..<cut] + [UInt8](repeating: 0, count: 8192)).write(to: url)
        #expect(try AudioFile.repairCutRecording(at: url) == .repaired(droppedByteCount: 8292))
        // Every page before the last whole one as it was; that one closes the stream now.
        let repaired = try Data(contentsOf: url)
        let lastWhole = pages[pages.count / 2]
        #expect(repaired.count == Int(lastWhole.end!) && repaired.prefix(Int(lastWhole.offset!)) == Data(bytes.prefix(Int(lastWhole.offset!))))
        #expect(try self.pages(of: url).last?.isEndOfStream == true)
        #expect(try AudioFile(forReading: url).frameCount > 0)
    }

    @Test func aStreamDamagedBeforeItsEndIsRefusedAndLeftAsItIs() throws {
        let scratch = try ScratchDirectory()
        var (_, bytes, pages) = try recording(in: scratch)
        let middle = Int(pages[pages.count / 2].offset!) + 30
        bytes[middle] ^= 0xFF
        let url = scratch.file("damaged.opus")
        try Data(bytes).write(to: url)
        #expect(throws: AudioFileError.self) { try AudioFile.repairCutRecording(at: url) }
        #expect(try Data(contentsOf: url) == Data(bytes))
    }

    @Test(arguments: [AudioFileFormat.wav, .caf])
    func pcmRecordingsNeedNothing(format: AudioFileFormat) throws {
        let scratch = try ScratchDirectory()
        let url = scratch.file("pcm.\(format.rawValue)")
        try Sox.synth(to: url.path, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let before = try Data(contentsOf: url)
        #expect(try AudioFile.repairCutRecording(at: url) == .intact)
        #expect(try Data(contentsOf: url) == before)
    }
}
