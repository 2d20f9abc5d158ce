import AudioIO
import Foundation
@testable import MemoStore
import TestSupport
import Testing

/// `memos.journal`: in a store of a thousand memos or more, a change is a record appended to the journal, not a new
/// `memos.json`; every reader sees it, a torn record is where the journal ends, and a full journal is folded in.
extension MemoStoreTests {
    var journal: String { store.localStateDirectory.appendingPathComponent("memos.journal").path }

    /// A store of `count` memos: one imported, the others copies of its file, adopted.
    func largeStore(_ count: Int) throws -> [Memo] {
        let seed = try store.importAudio(from: tone("seed.wav", seconds: 0.02), title: "Seed")
        for number in 1..<count {
            try FileManager.default.copyItem(
                at: store.fileURL(of: seed), to: store.directory.appendingPathComponent(String(format: "%012lx.wav", 0xC0_0000_0000 + number)))
        }
        let memos = try store.memos()
        try #require(memos.count == count)
        return memos
    }

    @Test func aChangeToALargeStoreIsAppendedToTheJournalAndEveryReaderSeesIt() throws {
        let memos = try largeStore(MemoIndex.journalingMemoCount + 10)
        let written = try Data(contentsOf: URL(fileURLWithPath: index))
        let renamed = try store.rename(memos[5], to: "Renamed")
        try store.delete([memos[7]])
        let imported = try store.importAudio(from: tone("new.wav", seconds: 0.05), title: "Imported")
        // memos.json is as it was; the journal holds the three changes.
        #expect(try Data(contentsOf: URL(fileURLWithPath: index)) == written)
        guard case .contents(let contents) = MemoJournal.read(at: journal, generation: try #require(
            try MemoIndex.decoder.decode(MemoIndex.self, from: written).generationNumber)) else {
            Issue.record("no journal for this index")
            return
        }
        #expect(contents.changes.count == 3)
        var expected = memos
        expected[5] = renamed
        expected.remove(at: 7)
        expected.append(imported)
        #expect(try store.memos() == expected)
        // Another process, from the JSON and the journal alone.
        try FileManager.default.removeItem(atPath: cache)
        #expect(try MemoStore(directory: store.directory, stateDirectory: scratch.file("state")).memos() == expected)
    }

    @Test func aTornRecordIsWhereTheJournalEndsAndTheNextChangeCutsItOff() throws {
        let memos = try largeStore(MemoIndex.journalingMemoCount)
        try store.rename(memos[1], to: "First")
        let whole = try Data(contentsOf: URL(fileURLWithPath: journal))
        try store.rename(memos[2], to: "Second")
        // The second record cut short, as a power cut during its write leaves it.
        let torn = try Data(contentsOf: URL(fileURLWithPath: journal))
        try torn.prefix(whole.count + (torn.count - whole.count) / 2).write(to: URL(fileURLWithPath: journal))
        // The journal ends at the torn record; the rename it held is in its change file, the truth, and comes back.
        #expect(try store.memos().map(\.title)[1...2] == ["First", "Second"])
        try store.rename(memos[3], to: "Third")
        #expect(try store.memos().map(\.title)[1...3] == ["First", "Second", "Third"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)).prefix(whole.count) == whole)
    }

    @Test func aFullJournalIsFoldedIntoANewIndex() throws {
        let memos = try largeStore(MemoIndex.journalingMemoCount)
        let before = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: index)))
        let limit = MemoIndex.journalLimit(memoCount: memos.count)
        for number in 0...limit { try store.rename(memos[number % memos.count], to: "Change \(number)") }
        let after = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: index)))
        #expect(after.generation != before.generation && after.schemaVersion == MemoIndex.currentSchemaVersion)
        #expect(after.memos == (try store.memos()))
        #expect(after.memos[limit % memos.count].title == "Change \(limit)")
    }

    /// The journal is ignored; the rename it held is in its change file, the truth, and is not lost.
    @Test func aJournalOfAnotherIndexIsIgnored() throws {
        let memos = try largeStore(MemoIndex.journalingMemoCount)
        try store.rename(memos[1], to: "Only in the journal")
        // memos.json replaced by another index with another generation (a backup put back, say).
        var other = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: URL(fileURLWithPath: index)))
        other.generation = "1234"
        try MemoIndex.encoder.encode(other).write(to: URL(fileURLWithPath: index))
        #expect(try store.memos()[1].title == "Only in the journal")
    }
}
