@testable import AudioIO
import Foundation
@testable import MemoStore
import TestSupport
import Testing

/// Every memo's loudness: measured at import and at the end of a recording, rebuilt with the index, measured once for
/// the memos of an older store, and kept through the index, its journal and its cache; an old store is read and
/// written anew as schema 3.
extension MemoStoreTests {
    @Test(arguments: [AudioFileFormat.wav, .opus])
    func anImportedMemoHasTheLoudnessOfItsFile(format: AudioFileFormat) throws {
        let memo = try store.importAudio(from: tone("a.wav", channels: 2), title: "Tone", settings: AudioSettings(format: format, channelCount: 2))
        let loudness = try #require(memo.loudness)
        // Measured as the file was written: PCM's samples themselves; Opus', before they were encoded, which moves a
        // true peak by a few tenths of a dB.
        let decoded = try AudioFile(forReading: store.fileURL(of: memo)).measureLoudness()
        if format == .wav {
            #expect(loudness == decoded)
        } else {
            #expect(abs(loudness.integrated - decoded.integrated) < 0.1 && abs(loudness.truePeak - decoded.truePeak) < 1, "\(loudness) \(decoded)")
        }
        // A 440 Hz sine at half of full scale in both channels: BS.1770 reads a stereo sine at about its peak level.
        #expect(abs(loudness.integrated - -6.4) < 0.5 && loudness.range < 0.5 && abs(loudness.truePeak - -6) < 0.5, "\(loudness)")
        #expect(try store.memos() == [memo])
    }

    /// The recorder's writer measures it (AudioRecorderTests); the store keeps what the summary says.
    @Test func aFinishedRecordingKeepsTheLoudnessOfItsSummary() throws {
        let ticket = try store.beginRecording(title: "Take", settings: AudioSettings(format: .wav))
        #expect(ticket.memo.loudness == nil)
        let writer = try AudioFileWriter(url: ticket.fileURL, settings: ticket.settings, metadata: ticket.metadata, permissions: [.ownerReadWrite])
        try [Float](repeating: 0.1, count: 96000).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let loudness = AudioLoudness(integrated: -23, range: 1, truePeak: -20)
        let summary = AudioFileSummary(
            frameCount: 96000, sampleRate: 48000, channelCount: 1, levels: AudioLevels(peak: [-20], average: [-23]),
            waveform: Waveform(sampleRate: 48000, samplesPerPixel: 256, channelCount: 1, data: []), byteCount: 192_044,
            loudness: loudness)
        #expect(try store.finishRecording(ticket, summary: summary).loudness == loudness)
        #expect(try store.memos().first?.loudness == loudness)
    }

    @Test func anIndexRebuiltFromTheFilesHasEveryLoudness() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "Tone", settings: AudioSettings(format: .caf))
        try FileManager.default.removeItem(at: store.indexURL)
        #expect(try store.memos().map(\.loudness) == [memo.loudness])
    }

    /// A store a voicememo of schema 2 wrote: no loudness in its memos.
    func oldStore() throws -> [Memo] {
        let first = try store.importAudio(from: tone("a.wav"), title: "First")
        let second = try store.importAudio(from: tone("b.wav", seconds: 0.5), title: "Second", settings: AudioSettings(format: .opus))
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: index))) as! [String: Any]
        json["schemaVersion"] = 2
        json["memos"] = (json["memos"] as! [[String: Any]]).map { $0.filter { $0.key != "loudness" } }
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: index))
        try FileManager.default.removeItem(atPath: cache)
        let memos = try store.memos()
        #expect(memos.map(\.loudness) == [nil, nil] && memos.map(\.id) == [first.id, second.id])
        return [first, second]
    }

    @Test func theMemosOfAnOlderStoreAreMeasuredOnceAndKeptAsSchema3() throws {
        let imported = try oldStore()
        let measured = store.measuringLoudness(of: try store.memos())
        // Decoded now, where the import measured the Opus memo before it was encoded.
        for (now, then) in zip(measured, imported) {
            #expect(abs(try #require(now.loudness).integrated - #require(then.loudness).integrated) < 0.1)
        }
        let written = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: index)))
        #expect(written.schemaVersion == 3 && written.memos == measured, "written whole as schema 3")
        // Another process, from the JSON and from the cache made of it.
        #expect(try MemoStore(directory: store.directory, stateDirectory: scratch.file("state")).memos() == measured)
        try FileManager.default.removeItem(atPath: cache)
        #expect(try MemoStore(directory: store.directory, stateDirectory: scratch.file("state")).memos() == measured)
        // Measured once: asked again, nothing is written.
        let identity = MemoIndexCache.Identity(path: index)
        #expect(store.measuringLoudness(of: measured) == measured && MemoIndexCache.Identity(path: index) == identity)
    }

    @Test func aJournalOfSchema2IsReadAndTheNextChangeWritesTheIndexWhole() throws {
        let memos = try largeStore(MemoIndex.journalingMemoCount)
        // memos.json of schema 2, and its journal with a record of schema 2's layout: a memo renamed, without loudness.
        var old = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: index)))
        old.schemaVersion = 2
        try MemoIndex.encoder.encode(old).write(to: URL(fileURLWithPath: index))
        var renamed = memos[3]
        renamed.title = "Renamed by schema 2"
        renamed.loudness = nil
        var payload = MemoRecordWriter()
        payload.append(renamed, layout: .schema3)
        // Without the fields of schema 3: the word that says "no loudness", three absent tags, no markers.
        let record = Array(payload.bytes.dropLast(8 + 3 * 4 + 8))
        var journalBytes = MemoRecordWriter()
        journalBytes.append(UInt64(0x0131_4C4E_524A_4D56))  // "VMJRNL" and the layout's version
        journalBytes.append(try #require(old.generationNumber))
        withUnsafeBytes(of: UInt32(record.count)) { journalBytes.bytes += $0 }
        withUnsafeBytes(of: UInt32(1)) { journalBytes.bytes += $0 }
        journalBytes.append(record.withUnsafeBytes { MemoRecordWriter.checksum(of: $0) })
        journalBytes.bytes += record
        try Data(journalBytes.bytes).write(to: URL(fileURLWithPath: journal))
        try FileManager.default.removeItem(atPath: cache)

        let read = try store.memos()
        #expect(read[3] == renamed && read.count == memos.count)
        try store.rename(read[4], to: "Renamed by schema 3")
        let written = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: index)))
        #expect(written.schemaVersion == 3 && written.generation != old.generation, "written whole, not appended to a journal schema 2 reads")
        #expect(written.memos[3] == renamed && written.memos[4].title == "Renamed by schema 3")
    }

    /// One record of schema 3 holds them all: loudness, tags, markers.
    @Test func loudnessTagsAndMarkersGoThroughTheJournalAndTheCache() throws {
        let memos = try largeStore(MemoIndex.journalingMemoCount)
        let markers = [AudioMarker(framePosition: 4800, name: "Here"), AudioMarker(framePosition: 9600)]
        let imported = try store.importAudio(from: markedTone("loud.wav", markers: markers, seconds: 0.5), title: "Loud")
        #expect(imported.loudness != nil && imported.artist == "Ann" && imported.comment == "take 2" && imported.markers == markers)
        try FileManager.default.removeItem(atPath: cache)
        #expect(try MemoStore(directory: store.directory, stateDirectory: scratch.file("state")).memos() == memos + [imported], "from the JSON and the journal")
        #expect(try MemoStore(directory: store.directory, stateDirectory: scratch.file("state")).memos() == memos + [imported], "from the cache and the journal")
    }

    @Test func memosSortLoudestFirstWithTheUnmeasuredLast() {
        func memo(_ title: String, _ integrated: Double?) -> Memo {
            Memo(id: title, title: title, createdAt: Date(), duration: 1, fileName: "", format: .wav, sampleRate: 48000, channels: 1,
                 sizeBytes: 0, peakDBFS: [0], averageDBFS: [0], state: .complete,
                 loudness: integrated.map { AudioLoudness(integrated: $0, range: 0, truePeak: 0) })
        }
        let sorted = [memo("quiet", -30), memo("none", nil), memo("loud", -12), memo("middle", -20)].sorted(by: .loudness)
        #expect(sorted.map(\.title) == ["loud", "middle", "quiet", "none"])
    }
}
