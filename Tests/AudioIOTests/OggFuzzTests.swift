@testable import AudioIO
import Foundation
import Glibc
import SystemPackage
import TestSupport
import Testing

/// The Ogg layer fed what a bad disk, a cut download or a hostile sender makes of an Opus file: bits flipped (CRCs that
/// fail), files cut anywhere, pages dropped, repeated and swapped, garbage, and pages whose CRCs hold but whose headers,
/// packets and granule positions are random. Every reader and writer on it (the page reader, the copy with each kind of
/// edit, the repair of a cut recording, the links of a chain) ends with a result or a clean error: no crash, no hang,
/// and what a copy writes is whole Ogg pages ending their stream. A fixed seed replays a failure; `make test` runs a
/// few hundred cases (a second or two) with the other suites, `make torture` (VOICEMEMO_TORTURE=1) thousands. It is not
/// a `…Torture` suite: those hold the test pool's threads for minutes, waiting on processes they drive, and would starve it.
@Suite(.timeLimit(.minutes(3))) struct OggFuzzTests {
    static let cases = ProcessInfo.processInfo.environment["VOICEMEMO_TORTURE"] == "1" ? 5000 : 300

    /// The pages of `bytes`, as the page reader finds them.
    static func pages(of bytes: [UInt8], in scratch: ScratchDirectory) throws -> [OggPage] {
        let file = scratch.path("pages.opus")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let descriptor = try FileDescriptor.open(file, .readOnly)
        defer { try? descriptor.close() }
        let reader = OggPageReader(descriptor: descriptor)
        var pages: [OggPage] = []
        while case .page(let page) = try reader.next() { pages.append(page) }
        return pages
    }

    /// A stream whose pages are whole and checked (libogg frames them) but whose contents are random: an identification
    /// header with random fields, a comment header that may lie about its lengths, packets that are real Opus or random
    /// bytes, granule positions anywhere.
    static func hostileStream(from packets: [[UInt8]], using random: inout SeededGenerator) throws -> [UInt8] {
        let stream = try OggLogicalStream(serialNumber: Int32.random(in: .min ... .max, using: &random), firstSequenceNumber: 0)
        var head = Array("OpusHead".utf8) + (0..<(Int.random(in: 0...24, using: &random))).map { _ in UInt8.random(in: 0...255, using: &random) }
        if Bool.random(using: &random), head.count >= 19 { head[9] = [0, 1, 2, 255].randomElement(using: &random)! }
        var tags = Array("OpusTags".utf8) + (0..<(Int.random(in: 0...16, using: &random))).map { _ in UInt8.random(in: 0...255, using: &random) }
        if Bool.random(using: &random) { tags = OpusTags(packet: packets[1])?.packet ?? tags }
        var bytes: [UInt8] = []
        var granule: Int64 = 0
        for (number, data) in ([head, tags] + packets.dropFirst(2).prefix(Int.random(in: 0...60, using: &random))).enumerated() {
            var data = data
            if number >= 2, Int.random(in: 0..<8, using: &random) == 0 {
                data = (0..<(Int.random(in: 0...300, using: &random))).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            granule = [max(granule, 0) &+ 960, -1, 0, Int64.max, Int64.random(in: 0...Int64.max, using: &random)].randomElement(using: &random)!
            try stream.add(OggPacket(data: data, granulePosition: number < 2 ? 0 : granule, isBeginningOfStream: number == 0,
                                     isEndOfStream: Int.random(in: 0..<40, using: &random) == 0))
            if Bool.random(using: &random) { for page in stream.flush() { bytes += page.bytes } }
        }
        for page in stream.flush() { bytes += page.bytes }
        return bytes
    }

    /// `bytes` damaged one way or another, chosen by `random`.
    static func damaged(_ bytes: [UInt8], pages: [OggPage], packets: [[UInt8]], using random: inout SeededGenerator) throws -> [UInt8] {
        var bytes = bytes
        switch Int.random(in: 0..<8, using: &random) {
        case 0:  // bits flipped: the CRC of their page fails
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            }
        case 1:  // cut anywhere
            bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
        case 2:  // pages dropped
            bytes = pages.filter { _ in Int.random(in: 0..<5, using: &random) != 0 }.flatMap(\.bytes)
        case 3:  // pages repeated and swapped
            var shuffled = pages
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let (one, other) = (Int.random(in: 0..<pages.count, using: &random), Int.random(in: 0..<pages.count, using: &random))
                if Bool.random(using: &random) { shuffled.swapAt(one, other) } else { shuffled.insert(pages[one], at: other) }
            }
            bytes = shuffled.flatMap(\.bytes)
        case 4:  // garbage between pages, some of it looking like a page's start
            let at = pages[Int.random(in: 0..<pages.count, using: &random)].offset.map(Int.init) ?? 0
            let garbage = (0..<(Int.random(in: 1...200, using: &random))).map { _ in UInt8.random(in: 0...255, using: &random) }
            bytes.insert(contentsOf: (Bool.random(using: &random) ? Array("OggS".utf8) : []) + garbage, at: at)
        case 5:  // random bytes alone
            bytes = (0..<(Int.random(in: 0...4000, using: &random))).map { _ in UInt8.random(in: 0...255, using: &random) }
        case 6:  // two streams chained
            bytes += bytes.prefix(Int.random(in: 0..<bytes.count, using: &random))
        default:
            bytes = try hostileStream(from: packets, using: &random)
        }
        return bytes
    }

    @Test func damagedAndHostileOggEndsInAResultOrACleanErrorNeverACrashOrAHang() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("noise.wav"), rate: 48000, channels: 1, seconds: 1, "pinknoise", volume: 0.3)
        try Tool.output("opusenc", ["--quiet", "--bitrate", "16", "--max-delay", "100", scratch.path("noise.wav"), scratch.path("source.opus")])
        let source = try Array(Data(contentsOf: scratch.file("source.opus")))
        let pages = try Self.pages(of: source, in: scratch)
        let packets = try AudioFileExcerptTests.packets(of: scratch.path("source.opus")).map(\.data)
        #expect(pages.count > 5 && packets.count > 40)

        var random = SeededGenerator(seed: 0x0665)
        var outcomes: [String: Int] = [:]
        let input = scratch.path("input.opus"), output = scratch.path("output.opus")
        for number in 0..<Self.cases {
            let bytes = try Self.damaged(source, pages: pages, packets: packets, using: &random)
            try Data(bytes).write(to: URL(fileURLWithPath: input))
            let edit = [
                OpusStreamCopy.Edit(),
                OpusStreamCopy.Edit(metadata: AudioMetadata(title: "T", creationDate: Date(timeIntervalSince1970: 0)), gain: -200),
                OpusStreamCopy.Edit(samples: Int64.random(in: 0...48000, using: &random)..<Int64.random(in: 48001...100_000, using: &random)),
            ].randomElement(using: &random)!
            let reading = try FileDescriptor.open(input, .readOnly)
            defer { try? reading.close() }
            // The copy with an edit: whole pages of one stream, ended, or an error that says why not.
            unlink(output)
            let writing = try FileDescriptor.open(output, .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
            do {
                _ = try OpusStreamCopy(source: reading, destination: writing).copy(edit)
                let copied = try Self.pages(of: Array(Data(contentsOf: URL(fileURLWithPath: output))), in: scratch)
                #expect(copied.first?.isBeginningOfStream == true && copied.last?.isEndOfStream == true
                        && copied.allSatisfy { $0.serialNumber == copied[0].serialNumber }, "case \(number): a copy is one whole stream")
                #expect(copied.map(\.bytes.count).reduce(0, +) == (try Data(contentsOf: URL(fileURLWithPath: output)).count), "case \(number): nothing but pages")
                outcomes["copied", default: 0] += 1
            } catch is OpusStreamCopy.NotCopyable {
                outcomes["not copyable", default: 0] += 1
            } catch is OggStreamError {
                outcomes["refused by libogg", default: 0] += 1
            }
            try writing.close()
            // The repair of a cut recording, in place on the damaged file.
            let repairing = try FileDescriptor.open(input, .readWrite)
            do {
                _ = try OpusStreamRepair(descriptor: repairing).repair()
                outcomes["repaired", default: 0] += 1
            } catch is OpusStreamRepair.Failure {
                outcomes["not repairable", default: 0] += 1
            } catch is OggStreamError {
                outcomes["refused by libogg", default: 0] += 1
            }
            try repairing.close()
            // The links of a chain.
            do {
                _ = try OggChain.links(of: reading)
            } catch is OggChain.TooManyLinks {
                outcomes["too many links", default: 0] += 1
            }
        }
        #expect(outcomes["copied", default: 0] > 0 && outcomes["not copyable", default: 0] > 0 && outcomes["repaired", default: 0] > 0
                && outcomes["not repairable", default: 0] > 0, "\(outcomes)")
    }
}
