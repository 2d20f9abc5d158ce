import AudioIO
import Foundation
@testable import MemoStore
import TestSupport
import Testing

/// Trims that lose nothing: the memo as it was goes to the trash, restore and undo bring it back byte for byte, and an
/// edit a process died in is finished by the next one to take the store's lock.
extension MemoStoreTests {
    /// A memo of `seconds` of a rising tone, so that every frame differs from the one a frame away.
    func sweep(_ name: String, format: AudioFileFormat = .wav, seconds: Double = 2) throws -> Memo {
        try Sox.synth(to: scratch.path(name + ".wav"), rate: 48000, channels: 1, seconds: seconds, "sine 200-2000")
        return try store.importAudio(from: scratch.file(name + ".wav"), title: name, settings: AudioSettings(format: format))
    }

    @Test(arguments: [AudioFileFormat.wav, .caf, .opus, .aac])
    func aTrimKeepsTheMemoAsItWasInTheTrashAndRestoreBringsItBackByteForByte(format: AudioFileFormat) throws {
        let memo = try sweep("sweep", format: format)
        let original = try Data(contentsOf: store.fileURL(of: memo))
        let trimmed = try store.trim(memo, start: 0.5, end: 1.25)
        #expect(trimmed.id == memo.id && trimmed.title == memo.title && trimmed.createdAt == memo.createdAt)
        #expect(trimmed.duration == 0.75 && trimmed.loudness != nil && trimmed.loudness != memo.loudness)
        #expect(try AudioFile(forReading: store.fileURL(of: trimmed)).frameCount == 36000)
        #expect(try store.memos() == [trimmed])
        let versions = store.trashedVersions()
        #expect(versions.map(\.memo) == [memo] && versions.map(\.edit) == [.trim(start: 0.5, end: 1.25)])
        #expect(try Data(contentsOf: URL(fileURLWithPath: versions[0].path)) == original)

        let (restored, version) = try store.restore(trimmed)
        #expect(restored == memo && version.number == versions[0].number)
        #expect(try Data(contentsOf: store.fileURL(of: memo)) == original)
        #expect(store.trashedVersions().isEmpty)
        #expect(try store.memos() == [memo])
        #expect(throws: MemoStoreError.nothingToRestore(title: memo.title)) { try store.restore(memo) }
    }

    /// The waveform kept beside a memo follows its audio: a trim keeps the cut's, the trash the memo's as it was, and
    /// undo brings that one back, moved rather than measured again.
    @Test func theWaveformBesideAMemoFollowsItsTrimAndUndoBringsBackItsOwn() throws {
        let memo = try sweep("sweep", format: .opus)
        let beside = URL(fileURLWithPath: store.waveformPath(of: memo.id))
        let before = try Data(contentsOf: beside)
        #expect(try store.waveform(of: memo) == Waveform(datRepresentation: before) && before.count > 0)

        let trimmed = try store.trim(memo, start: 0.5, end: 1.25)
        let cut = try Waveform(measuring: AudioFile(forReading: store.fileURL(of: trimmed)))
        #expect(cut.length == (36000 + 255) / 256)
        #expect(try Waveform(datRepresentation: Data(contentsOf: beside)) == cut, "measured as the cut was written")
        #expect(try store.waveform(of: trimmed) == cut)
        let version = try #require(store.trashedVersions().first)
        let kept = URL(fileURLWithPath: version.path).deletingPathExtension().appendingPathExtension("waveform")
        #expect(try Data(contentsOf: kept) == before)
        let keptInode = try #require(FileManager.default.attributesOfItem(atPath: kept.path)[.systemFileNumber] as? Int)

        #expect(try store.undo().memo == memo)
        #expect(try Data(contentsOf: beside) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: beside.path)[.systemFileNumber] as? Int == keptInode, "moved back")
        #expect(try store.waveform(of: memo) == Waveform(datRepresentation: before))
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.appendingPathComponent(".trash").path).isEmpty)
    }

    @Test func undoRestoresTheLastEditWhicheverMemoItWasOf() throws {
        let first = try sweep("first")
        let second = try sweep("second")
        try store.trim(first, start: 1)
        let once = try store.trim(second, end: 1.5)
        let twice = try store.trim(once, start: 0.5)
        #expect(twice.duration == 1 && store.trashedVersions().map(\.memo.id) == [first.id, second.id, second.id])
        #expect(try store.undo().memo == once)
        #expect(try store.undo().memo == second)
        #expect(try store.undo().memo == first)
        #expect(throws: MemoStoreError.nothingToUndo) { try store.undo() }
    }

    /// A rename is an edit as a trim is: restore goes back one at a time, the rename's title, then the trim's audio,
    /// and a memo renamed before a trim keeps that title when the trim is undone, in the index and its file.
    @Test func restoreGoesBackThroughRenamesAndTrimsOneAtATime() throws {
        let memo = try sweep("before", format: .opus)
        let trimmed = try store.trim(memo, start: 1)
        let renamed = try store.rename(trimmed, to: "Renamed after the trim")
        #expect(try store.restore(renamed).memo == trimmed)
        #expect(try store.restore(trimmed).memo == memo)
        let again = try store.rename(memo, to: "Renamed before the trim")
        let restored = try store.restore(store.trim(again, start: 1)).memo
        #expect(restored.title == "Renamed before the trim" && restored.duration == memo.duration)
        try FileManager.default.removeItem(at: store.indexURL)
        #expect(try store.memos().map(\.title) == ["Renamed before the trim"])
    }

    @Test func aCutOutsideTheMemoOrKeepingAllOfItChangesNothing() throws {
        let memo = try sweep("sweep")
        for (start, end) in [(nil, 3.0), (1.5, 1.0), (-1, nil), (0, 2), (nil, nil)] as [(Double?, Double?)] {
            #expect(throws: MemoStoreError.self) { try store.trim(memo, start: start, end: end) }
        }
        #expect(try store.memos() == [memo] && store.trashedVersions().isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(!names.contains { $0.hasSuffix(".partial") || $0.hasSuffix(".edit") }, "\(names)")
    }

    @Test func aMemoBeingRecordedIsNotTrimmed() throws {
        let ticket = try store.beginRecording(title: "Live", settings: AudioSettings(format: .wav))
        let writer = try AudioFileWriter(url: ticket.fileURL, settings: ticket.settings, metadata: ticket.metadata, permissions: [.ownerReadWrite])
        try [Float](repeating: 0.1, count: 48000).withUnsafeBufferPointer { try writer.write($0) }
        #expect(throws: MemoStoreError.recordingInProgress("Live")) { try store.trim(ticket.memo, end: 0.5) }
        try writer.close()
    }

    /// A delete moves the memo to the trash whole (its audio byte for byte, its entry, its waveform), beside its earlier
    /// versions; restore by its title brings it back as it was, then its trim can be undone; emptying frees the rest.
    @Test func aDeletedMemoStaysInTheTrashWithItsVersionsUntilRestoredOrEmptied() throws {
        let gone = try sweep("gone")
        let kept = try sweep("kept")
        let trimmed = try store.trim(gone, start: 1)
        try store.trim(kept, start: 1)
        let audio = try Data(contentsOf: store.fileURL(of: trimmed))
        try store.delete([trimmed])
        #expect(try store.memos().map(\.id) == [kept.id])
        #expect(!FileManager.default.fileExists(atPath: store.filePath(of: trimmed)))
        let versions = store.trashedVersions()
        #expect(versions.map(\.memo.id) == [gone.id, kept.id, gone.id] && versions.last?.edit == .delete)
        #expect(versions.last?.memo == trimmed && versions.last.map { $0.expiresAt.timeIntervalSince($0.trashedAt) } == 30 * 86400)
        #expect(try Data(contentsOf: URL(fileURLWithPath: versions[2].path)) == audio)
        // A title, or an id prefix, names the memo deleted; the others' versions stay as they are.
        _ = try store.restore(kept)
        let (restored, version) = try store.restore(matching: String(gone.id.prefix(6)))
        #expect(restored == trimmed && version.edit == .delete)
        #expect(try Data(contentsOf: store.fileURL(of: trimmed)) == audio)
        #expect(try Set(store.memos().map(\.id)) == [gone.id, kept.id])
        #expect(try store.undo().memo == gone)
        #expect(store.trashedVersions().isEmpty)

        try store.delete([store.memo(matching: "kept")])
        #expect(try store.undo().memo.id == kept.id)
        try store.delete([store.memo(matching: "kept")])
        let trash = store.directory.appendingPathComponent(".trash")
        let waveformBytes = try FileManager.default.contentsOfDirectory(atPath: trash.path).filter { $0.hasSuffix(".waveform") }
            .reduce(Int64(0)) { $0 + Int64(try Data(contentsOf: trash.appendingPathComponent($1)).count) }
        #expect(try store.emptyTrash() == kept.sizeBytes + waveformBytes)
        #expect(store.trashedVersions().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: trash.path).isEmpty)
    }

    /// What the trash keeps goes after 30 days, the next time the store is used; what is younger stays.
    @Test func versionsOlderThanThirtyDaysGoWhenTheStoreIsNextUsed() throws {
        let old = try sweep("old")
        let young = try sweep("young")
        try store.delete([old, young])
        let trash = store.directory.appendingPathComponent(".trash")
        let record = try #require(try FileManager.default.contentsOfDirectory(atPath: trash.path).first { $0.hasSuffix(".\(old.id).json") })
        // The record as a delete 31 days ago wrote it, and its file as old.
        let path = trash.appendingPathComponent(record).path
        var json = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let past = Date().addingTimeInterval(-31 * 86400)
        json["trashedAt"] = ISO8601DateFormatter().string(from: past)
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: path)
        #expect(store.trashedVersions().map(\.memo.id) == [young.id], "listed no more")
        #expect(try FileManager.default.contentsOfDirectory(atPath: trash.path).contains { $0.contains(old.id) })
        _ = try store.memos()
        let left = try FileManager.default.contentsOfDirectory(atPath: trash.path)
        #expect(!left.contains { $0.contains(old.id) } && left.contains { $0.contains(young.id) }, "\(left)")
    }

    /// A process killed after a delete kept the memo in the trash, before its audio left the store: the memo is where
    /// it was, and the trash lets go of the link it made.
    @Test func aDeleteKilledBeforeItsAudioLeftTheStoreLeavesTheMemo() throws {
        let memo = try sweep("sweep")
        _ = try MemoTrash(store: store.directory).keep(memo, file: store.filePath(of: memo), before: .delete)
        try Data().write(to: store.directory.appendingPathComponent(".\(memo.id).edit"))
        #expect(try store.memos() == [memo])
        #expect(store.trashedVersions().isEmpty)
        #expect(throws: MemoStoreError.nothingToUndo) { try store.undo() }
    }

    /// A rename keeps the file with the old title in the trash: undo brings the title back, in the index and the file.
    @Test(arguments: [AudioFileFormat.wav, .opus])
    func undoAfterARenameBringsTheOldTitleBack(format: AudioFileFormat) throws {
        let memo = try sweep("Before", format: format)
        let renamed = try store.rename(memo, to: "After")
        #expect(store.trashedVersions().map(\.edit) == [.rename])
        let (restored, _) = try store.undo()
        #expect(restored.title == "Before" && restored == memo)
        #expect(try AudioFile(forReading: store.fileURL(of: renamed)).metadata.title == "Before")
        #expect(try store.memos() == [memo])
        #expect(store.trashedVersions().isEmpty)
    }

    /// A process killed after the memo's file was kept in the trash, before the new one replaced it: the memo was not
    /// edited, and the trash lets go of the version it kept.
    @Test func anEditKilledBeforeItsNewFileReplacedTheMemoLeavesTheMemoAsItWas() throws {
        let memo = try sweep("sweep")
        _ = try MemoTrash(store: store.directory).keep(memo, file: store.filePath(of: memo), before: .trim(start: 1, end: 2))
        try Data().write(to: store.directory.appendingPathComponent(".\(memo.id).edit"))
        #expect(try store.memos() == [memo])
        #expect(store.trashedVersions().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: store.directory.appendingPathComponent(".\(memo.id).edit").path))
    }

    /// A process killed after the new file replaced the memo's, before the index said so: the memo's facts come from its
    /// file, and the version kept stays for restore.
    @Test(arguments: [AudioFileFormat.wav, .aac])
    func anEditKilledBeforeTheIndexWasSavedIsFinishedFromTheFile(format: AudioFileFormat) throws {
        let memo = try sweep("sweep", format: format)
        let trimmed = try store.trim(memo, start: 1)
        // The index as it was before the edit, with the edit's mark beside the file.
        var index = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: self.index)))
        index.put(memo)
        try MemoIndex.encoder.encode(index).write(to: URL(fileURLWithPath: self.index))
        try FileManager.default.removeItem(atPath: cache)
        try Data().write(to: store.directory.appendingPathComponent(".\(memo.id).edit"))
        #expect(try store.memos() == [trimmed])
        #expect(store.trashedVersions().map(\.memo) == [memo])
        #expect(try store.restore(trimmed).memo == memo)
    }

    /// A CAF memo's markers, which wait beside its file, follow a killed edit as its file does: moved when the new file
    /// had replaced the old, as they were when it had not; its tags stay.
    @Test(arguments: [true, false])
    func aKilledEditOfACAFMemoLeavesItsMarkersWithTheFileItLeft(replaced: Bool) throws {
        let markers = [AudioMarker(framePosition: 24000, name: "Intro"), AudioMarker(framePosition: 72000, name: "Middle")]
        let memo = try store.importAudio(from: markedTone("marked.wav", markers: markers), settings: AudioSettings(format: .caf))
        let sidecar = store.directory.appendingPathComponent(".\(memo.id).markers")
        let kept = try Data(contentsOf: sidecar)
        let moved = [AudioMarker(framePosition: 24000, name: "Middle")]
        if replaced {
            #expect(try store.trim(memo, start: 1).markers == moved)
            // The index and the markers beside the file as they were before the edit, with the edit's mark.
            var index = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: self.index)))
            index.put(memo)
            try MemoIndex.encoder.encode(index).write(to: URL(fileURLWithPath: self.index))
            try FileManager.default.removeItem(atPath: cache)
            try kept.write(to: sidecar)
        } else {
            _ = try MemoTrash(store: store.directory).keep(memo, file: store.filePath(of: memo), before: .trim(start: 1, end: 2))
        }
        try Data().write(to: store.directory.appendingPathComponent(".\(memo.id).edit"))
        let finished = try #require(try store.memos().first)
        #expect(finished.markers == (replaced ? moved : markers) && finished.artist == "Ann" && finished.album == "Team")
        #expect(finished.duration == (replaced ? 1 : 2))
        // Beside the file too: what an index rebuilt from the files takes.
        try FileManager.default.removeItem(atPath: self.index)
        try FileManager.default.removeItem(atPath: cache)
        #expect(try store.memos().first?.markers == (replaced ? moved : markers))
    }
}
