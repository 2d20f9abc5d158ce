import AudioIO
import Foundation
import MemoStore
import TestSupport
import Testing

extension MemoStoreTests {
    @Test(arguments: [AudioFileFormat.wav, .caf])
    func renamingRewritesTheTitleInsideThePCMFileAndKeepsEverySample(format: AudioFileFormat) throws {
        let memo = try store.importAudio(
            from: tone("a.wav", rate: 44100, channels: 2), title: "Old",
            settings: AudioSettings(format: format, sampleRate: 44100, channelCount: 2, bitDepth: .int24))
        let file = store.fileURL(of: memo).path
        let samples = try Sox.samples(of: file)
        let renamed = try store.rename(memo, to: "A much longer new title — ✓")
        #expect(renamed.title == "A much longer new title — ✓" && renamed.id == memo.id && renamed.createdAt == memo.createdAt)
        #expect(try store.memos() == [renamed])
        let written = try AudioFile(forReading: store.fileURL(of: renamed))
        #expect(written.metadata.title == renamed.title && written.bitDepth == 24 && written.format == format)
        #expect(written.metadata.creationDate == memo.createdAt)
        #expect(try Sox.samples(of: file) == samples)
        #expect(renamed.sizeBytes == Int64(try Data(contentsOf: store.fileURL(of: renamed)).count))
        #expect(try permissions(file) == 0o600)
        // The file is the truth: a rebuilt index has the new title too.
        try FileManager.default.removeItem(at: store.indexURL)
        #expect(try store.memos().map(\.title) == [renamed.title])
    }

    @Test func renamingAnOpusMemoRewritesOnlyItsCommentHeader() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "Old", settings: AudioSettings(format: .opus))
        let before = try FFprobe.packetHashes(of: store.filePath(of: memo))
        let renamed = try store.rename(memo, to: "New")
        #expect(try store.memo(matching: "New") == renamed)
        let after = try FFprobe.packetHashes(of: store.filePath(of: memo))
        #expect(before.count > 10 && after == before, "every audio packet as it was")
        #expect(try AudioFile(forReading: store.fileURL(of: renamed)).metadata.title == "New")
        #expect(renamed.sizeBytes == Int64(try Data(contentsOf: store.fileURL(of: renamed)).count))
        // The title is in the file: nothing is kept beside it.
        #expect(!FileManager.default.fileExists(atPath: store.directory.appendingPathComponent(".\(memo.id).title").path))
        let info = try Tool.run("opusinfo", [store.filePath(of: renamed)])
        #expect(info.status == 0 && info.standardOutput.contains("TITLE=New") && !info.standardOutput.contains("WARNING"), "\(info.standardOutput)")
    }

    @Test func deletingRemovesTheFilesAndTheEntriesAndNothingElse() throws {
        let first = try store.importAudio(from: tone("a.wav"), title: "First")
        let second = try store.importAudio(from: tone("b.wav"), title: "Second", settings: AudioSettings(format: .opus))
        let kept = try store.importAudio(from: tone("c.wav"), title: "Kept")
        try store.delete([first, second])
        #expect(try store.memos() == [kept])
        #expect(!FileManager.default.fileExists(atPath: store.fileURL(of: first).path))
        #expect(!FileManager.default.fileExists(atPath: store.fileURL(of: second).path))
        #expect(FileManager.default.fileExists(atPath: store.fileURL(of: kept).path))
    }

    @Test func deletingAMemoThatIsGoneDeletesNothing() throws {
        let kept = try store.importAudio(from: tone("a.wav"), title: "Kept")
        let gone = try store.importAudio(from: tone("b.wav"), title: "Gone")
        try store.delete([gone])
        #expect(throws: MemoStoreError.noMatch(gone.id)) { try store.delete([kept, gone]) }
        #expect(try store.memos() == [kept])
        #expect(throws: MemoStoreError.noMatch(gone.id)) { try store.rename(gone, to: "Back") }
    }

    @Test func severalReferencesAreResolvedTogetherAndOnce() throws {
        let first = try store.importAudio(from: tone("a.wav"), title: "First")
        let second = try store.importAudio(from: tone("b.wav"), title: "Second")
        #expect(try store.memos(matching: ["Second", String(first.id.prefix(5)), second.id]) == [second, first])
        #expect(throws: MemoStoreError.noMatch("Third")) { try store.memos(matching: ["First", "Third"]) }
    }

    @Test func aDeleteStoppedAfterTheFileIsFinishedByTheNextRead() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "Half deleted")
        // What a crash between removing the file and saving the index leaves.
        try FileManager.default.removeItem(at: store.fileURL(of: memo))
        #expect(try store.memos().isEmpty)
    }
}
