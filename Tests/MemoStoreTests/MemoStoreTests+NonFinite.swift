@testable import AudioIO
import Foundation
@testable import MemoStore
import TestSupport
import Testing

/// A recording's count of the samples its device delivered as NaN or infinity: kept with its memo through the index,
/// its cache and its journal, and absent (0) for every other memo, whose records an older voicememo still reads.
extension MemoStoreTests {
    /// Finishes a recording of a second whose summary counts `nonFinite` such samples.
    func recording(title: String, nonFinite: Int64) throws -> Memo {
        let ticket = try store.beginRecording(title: title, settings: AudioSettings(format: .wav))
        let writer = try AudioFileWriter(url: ticket.fileURL, settings: ticket.settings, metadata: ticket.metadata, permissions: [.ownerReadWrite])
        try [Float](repeating: 0.1, count: 48000).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        var summary = AudioFileSummary(
            frameCount: 48000, sampleRate: 48000, channelCount: 1, levels: AudioLevels(peak: [-20], average: [-20]),
            waveform: Waveform(sampleRate: 48000, samplesPerPixel: 256, channelCount: 1, data: []), byteCount: 96_044)
        summary.nonFiniteSampleCount = nonFinite
        return try store.finishRecording(ticket, summary: summary)
    }

    @Test func aRecordingsCountOfNonFiniteSamplesIsKeptInTheIndexAndItsCache() throws {
        let garbage = try recording(title: "Garbage", nonFinite: 1234)
        let clean = try recording(title: "Clean", nonFinite: 0)
        #expect(garbage.nonFiniteSampleCount == 1234 && clean.nonFiniteSampleCount == 0)
        #expect(try store.memos().map(\.nonFiniteSampleCount) == [1234, 0])
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: index))) as! [String: Any]
        let entries = json["memos"] as! [[String: Any]]
        #expect(entries[0]["nonFiniteSamples"] as? Int == 1234 && entries[1]["nonFiniteSamples"] == nil)
        // From memos.json alone, in another process.
        try FileManager.default.removeItem(atPath: cache)
        #expect(try MemoStore(directory: store.directory, stateDirectory: scratch.file("state")).memos().map(\.nonFiniteSampleCount) == [1234, 0])
    }

    @Test func aRecordingsCountOfNonFiniteSamplesIsKeptInTheJournal() throws {
        let memos = try largeStore(MemoIndex.journalingMemoCount)
        let written = try Data(contentsOf: URL(fileURLWithPath: index))
        let garbage = try recording(title: "Garbage", nonFinite: 99)
        try store.rename(memos[1], to: "Renamed")
        #expect(try Data(contentsOf: URL(fileURLWithPath: index)) == written, "the changes went into the journal")
        guard case .contents(let contents) = MemoJournal.read(at: journal, generation: try #require(
            try MemoIndex.decoder.decode(MemoIndex.self, from: written).generationNumber)) else {
            Issue.record("no journal for this index")
            return
        }
        let counts = contents.changes.compactMap { change -> Int64? in
            if case .put(let memo) = change { memo.nonFiniteSampleCount } else { nil }
        }
        #expect(counts.suffix(2) == [99, 0])
        // Records of memos without such samples are of the kind an older voicememo reads (3); the count's own is 4.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
        var kinds: [UInt32] = []
        var offset = 16
        while offset + 16 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            kinds.append(bytes[(offset + 4)..<(offset + 8)].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) })
            offset += 16 + length
        }
        #expect(kinds.suffix(2) == [4, 3], "\(kinds)")
        try FileManager.default.removeItem(atPath: cache)
        let reread = try MemoStore(directory: store.directory, stateDirectory: scratch.file("state")).memos()
        #expect(reread.first { $0.id == garbage.id }?.nonFiniteSampleCount == 99)
        #expect(reread.filter { $0.id != garbage.id }.allSatisfy { $0.nonFiniteSampleCount == 0 })
    }
}
