import AudioIO
import Foundation
@testable import MemoStore
import TestSupport
import Testing

/// A memo's tags and markers: taken from the file it is imported from, kept in the index and in its own file (beside
/// it where the format has no place for them), through a recording that dies, a lost index and an index of schema 2.
extension MemoStoreTests {
    /// A WAV file of `seconds` with cue points at `markers`, as another program writes them.
    func markedTone(_ name: String, markers: [AudioMarker], seconds: Double = 2) throws -> URL {
        let url = scratch.file(name)
        _ = try AudioFileConverter.convert(
            contentsOf: tone("plain-\(name)", seconds: seconds), to: url, settings: AudioSettings(),
            metadata: AudioMetadata(title: "Marked", artist: "Ann", album: "Team", comment: "take 2", markers: markers))
        return url
    }

    @Test(arguments: [AudioFileFormat.wav, .caf, .opus, .aac])
    func anImportKeepsTheFilesTagsAndMarkersThroughALostIndex(format: AudioFileFormat) throws {
        let markers = [AudioMarker(framePosition: 24000, name: "Intro"), AudioMarker(framePosition: 72000)]
        let memo = try store.importAudio(
            from: markedTone("marked.wav", markers: markers), settings: AudioSettings(format: format), album: "Course")
        #expect(memo.artist == "Ann" && memo.album == "Course" && memo.comment == "take 2")
        #expect(memo.markers == markers)
        // The file holds them where it can; a CAF memo's wait beside it.
        let file = try AudioFile(forReading: store.fileURL(of: memo))
        #expect(file.metadata.markers == (format == .caf ? [] : markers) && file.metadata.album == "Course")
        let sidecar = store.directory.appendingPathComponent(".\(memo.id).markers").path
        #expect(FileManager.default.fileExists(atPath: sidecar) == (format == .caf))

        try FileManager.default.removeItem(at: store.indexURL)
        let rebuilt = try #require(try store.memos().first)
        #expect(rebuilt.markers == markers && rebuilt.artist == "Ann" && rebuilt.album == "Course")
        try store.delete([rebuilt])
        #expect(!FileManager.default.fileExists(atPath: sidecar))
    }

    @Test func theMarkersOfARecordingWhoseProcessDiedAreKeptWithWhatReachedTheDisk() throws {
        var ticket: RecordingTicket? = try store.beginRecording(title: "Cut", settings: AudioSettings(format: .aac), comment: "call")
        let fileURL = try #require(ticket).fileURL
        let writer = try AudioFileWriter(
            url: fileURL, settings: try #require(ticket).settings, metadata: try #require(ticket).metadata, permissions: [.ownerReadWrite])
        let samples = (0..<96000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.synchronize()
        // One within what reached the disk, one past it (the writer still held it when the process died).
        try store.noteMarkers([AudioMarker(framePosition: 48000, name: "Here"), AudioMarker(framePosition: 200_000)], of: try #require(ticket))
        // The process dies: its lock goes, its writer is never closed.
        let cut = try Data(contentsOf: fileURL)
        ticket = nil
        withExtendedLifetime(writer) {}
        try cut.write(to: fileURL)

        let recovered = try #require(try store.memos().first)
        #expect(recovered.state == .recovered && recovered.comment == "call")
        #expect(recovered.markers == [AudioMarker(framePosition: 48000, name: "Here")])
        #expect(recovered.duration > 1.5 && recovered.duration <= 2, "\(recovered.duration)")
        // The M4A was made whole: FFmpeg reads it as AAC-LC of the memo's length.
        let probed = try FFprobe.codec(of: store.fileURL(of: recovered).path)
        #expect(probed.codec == "aac" && probed.profile == "LC" && probed.frames == Int((recovered.duration * 48000).rounded()))
    }

    /// A store written by the previous version: `memos.json` of schema 2 and a journal whose records have no tags and
    /// markers (kind 1).
    @Test func aStoreOfSchema2IsRead() throws {
        let memos = [try store.importAudio(from: tone("a.wav", seconds: 0.1), title: "A"), try store.importAudio(from: tone("b.wav", seconds: 0.1), title: "B")]
        var old = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: index)))
        old.schemaVersion = 2
        old.generation = "2a"
        try MemoIndex.encoder.encode(old).write(to: URL(fileURLWithPath: index))
        try? FileManager.default.removeItem(atPath: store.localStateDirectory.appendingPathComponent(".memos.cache").path)
        // A rename as schema 2 journaled it: the memo's fields alone.
        var renamed = memos[1]
        renamed.title = "Renamed by an older voicememo"
        renamed.loudness = nil
        var payload = MemoRecordWriter()
        payload.append(renamed, layout: .schema3)
        // Without the fields of schema 3: the word that says "no loudness", three absent tags, no markers.
        let fields = Array(payload.bytes.dropLast(8 + 3 * 4 + 8))
        var record = MemoRecordWriter()
        withUnsafeBytes(of: UInt32(fields.count)) { record.bytes += $0 }
        withUnsafeBytes(of: UInt32(1)) { record.bytes += $0 }
        record.append(fields.withUnsafeBytes { MemoRecordWriter.checksum(of: $0) })
        record.bytes += fields
        var header = MemoRecordWriter()
        header.append(UInt64(0x0131_4C4E_524A_4D56))
        header.append(UInt64(0x2a))
        try Data(header.bytes + record.bytes).write(to: URL(fileURLWithPath: journal))
        #expect(try store.memos().map(\.title) == ["A", "Renamed by an older voicememo"])
    }

    /// An index of an older schema is written whole at its first change, as the current one, rather than appended to:
    /// a voicememo of that schema would read the journal only up to the first record it does not know.
    @Test func anIndexOfAnOlderSchemaIsWrittenWholeAtItsFirstChange() throws {
        let url = scratch.file("memos.json")
        let memo = Memo(
            id: "000000000001", title: "x", createdAt: Date(timeIntervalSince1970: 0), duration: 1, fileName: "000000000001.wav",
            format: .wav, sampleRate: 48000, channels: 1, sizeBytes: 1, peakDBFS: [-1], averageDBFS: [-1], state: .complete)
        let many = (0..<MemoIndex.journalingMemoCount).map { number in
            var copy = memo
            copy.id = String(format: "%012x", number)
            copy.fileName = copy.id + ".wav"
            return copy
        }
        for schema in [2, MemoIndex.currentSchemaVersion] {
            var index = MemoIndex(schemaVersion: schema, generation: "2a", memos: many)
            index.put(memo)
            let journal = try index.save(to: url, journal: MemoIndex.JournalPosition(generation: 0x2a, length: 0, records: 0), wholly: false)
            #expect((journal == nil) == (schema == 2), "schema \(schema)")
        }
        #expect(try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: url)).schemaVersion == MemoIndex.currentSchemaVersion)
    }
}
