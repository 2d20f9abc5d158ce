import AudioIO
import Foundation
@testable import MemoStore
import TestSupport
import Testing

/// A store shared by a sync tool: two machines (two state directories) with a copy each, kept in step with `cp -r`,
/// which replaces whatever it copies, as the crudest sync tool does.
extension MemoStoreTests {
    /// The second machine, with its own copy of the store.
    func otherMachine() throws -> MemoStore {
        try MemoStore(directory: scratch.file("other"), stateDirectory: scratch.file("other-state"))
    }

    /// Copies every file of `source`'s directory into `destination`'s, replacing what is there (`cp -r`).
    func copy(_ source: MemoStore, to destination: MemoStore) throws {
        try Tool.output("cp", ["-r", source.directory.path + "/.", destination.directory.path])
    }

    /// The names in the store's directory.
    func names(in store: MemoStore) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
    }

    @Test func twoRenamesAtOnceOnTwoMachinesEndWithOneTitleAndTheOtherInTheHistory() throws {
        let other = try otherMachine()
        let memo = try store.importAudio(from: tone("a.wav", seconds: 0.2), title: "First")
        try copy(store, to: other)
        #expect(try other.memos().map(\.title) == ["First"])
        try store.rename(memo, to: "From A")
        try other.rename(try other.memo(matching: memo.id), to: "From B")
        try copy(store, to: other)
        try copy(other, to: store)
        // Made without seeing each other, the two renames have one clock: the higher machine id wins.
        let winner = try store.syncStatus().machine > other.syncStatus().machine ? "From A" : "From B"
        #expect(try store.memos().map(\.title) == [winner])
        #expect(try other.memos().map(\.title) == [winner])
        for machine in [store, other] {
            let history = try machine.titleHistory(of: memo).map(\.title)
            #expect(history.first == "First" && history.last == winner && Set(history) == ["First", "From A", "From B"])
        }
        // A rename made after seeing both wins on both, whichever machine made it.
        try other.rename(try other.memo(matching: memo.id), to: "Settled")
        try copy(other, to: store)
        #expect(try store.memos().map(\.title) == ["Settled"])
    }

    @Test func aDeleteAndARenameAtOnceSettleTheSameWayAndADeleteComesBackOnAnyMachine() throws {
        let other = try otherMachine()
        let memo = try store.importAudio(from: tone("a.wav", seconds: 0.2), title: "Kept")
        let second = try store.importAudio(from: tone("b.wav", seconds: 0.2), title: "Second")
        try copy(store, to: other)
        #expect(try other.memos().count == 2)
        try store.delete([memo])
        try other.rename(try other.memo(matching: memo.id), to: "Renamed on B")
        try copy(store, to: other)
        try copy(other, to: store)
        // One clock: the delete wins when its machine's id is the higher.
        let deleted = try store.syncStatus().machine > other.syncStatus().machine
        for machine in [store, other] {
            #expect(try machine.memos().map(\.title).sorted() == (deleted ? ["Second"] : ["Renamed on B", "Second"]))
            #expect(try machine.syncStatus().tombstones == (deleted ? 1 : 0))
        }
        guard deleted else { return }
        // In the trash on the machine that did not delete it too, and restored there, back on both.
        #expect(other.trashedVersions().contains { $0.memo.id == memo.id && $0.edit == .delete })
        #expect(!FileManager.default.fileExists(atPath: other.filePath(of: memo)))
        try other.restore(matching: memo.id)
        try copy(other, to: store)
        for machine in [store, other] {
            #expect(try Set(machine.memos().map(\.id)) == [second.id, memo.id])
            #expect(try machine.syncStatus().tombstones == 0)
        }
    }

    @Test func aSyncthingConflictCopyOfAChangeIsMergedAndRemovedTheSameWayEverywhere() throws {
        let memo = try store.importAudio(from: tone("a.wav", seconds: 0.2), title: "Original")
        let renamed = try store.rename(memo, to: "Renamed")
        let change = try #require(try names(in: store).filter { $0.hasPrefix(memo.id + ".") && $0.hasSuffix(".change") }.max {
            MemoEditRecord.parse(fileName: $0)!.stamp < MemoEditRecord.parse(fileName: $1)!.stamp
        })
        // The other side of the conflict: the same change as another machine's copy had it, with another title.
        let text = try String(contentsOf: store.directory.appendingPathComponent(change), encoding: .utf8)
        let copy = change.replacingOccurrences(of: ".change", with: ".sync-conflict-20261128-120000-ABCDEFG.change")
        try text.replacingOccurrences(of: "\"Renamed\"", with: "\"Renamed, there\"")
            .write(to: store.directory.appendingPathComponent(copy), atomically: true, encoding: .utf8)
        let other = try otherMachine()
        try self.copy(store, to: other)
        // The bytes that sort last win: `Renamed, there"` sorts after `Renamed"`.
        for machine in [store, other] {
            #expect(try machine.memos().map(\.title) == ["Renamed, there"])
            #expect(try !names(in: machine).contains(copy))
            #expect(try machine.syncStatus().conflictsMerged == 1)
        }
        #expect(renamed.title == "Renamed")
        #expect(try Data(contentsOf: store.directory.appendingPathComponent(change)) == Data(contentsOf: other.directory.appendingPathComponent(change)))
    }

    @Test func aSyncToolsTemporaryFilesAreNeverMemos() throws {
        let memo = try store.importAudio(from: tone("a.wav", seconds: 0.2), title: "Only")
        let change = try #require(try names(in: store).first { $0.hasSuffix(".change") })
        let id = "0123456789ab"
        // Syncthing's, Nextcloud's and rsync's names for a file on its way in, of an audio file and of a change.
        let partial = [".syncthing.\(id).wav.tmp", "\(id).wav.~tmp~", "~\(id).tmp", ".\(id).wav.Gx8aQ1"]
        for name in partial {
            try FileManager.default.copyItem(atPath: store.filePath(of: memo), toPath: store.directory.appendingPathComponent(name).path)
        }
        let changes = [".syncthing.\(change).tmp", "\(change).~tmp~", ".\(change).Gx8aQ1"]
        for name in changes {
            try FileManager.default.copyItem(atPath: store.directory.appendingPathComponent(change).path, toPath: store.directory.appendingPathComponent(name).path)
        }
        #expect(try store.memos().map(\.id) == [memo.id])
        #expect(try store.titleHistory(of: memo).map(\.title) == ["Only"])
        // Still being written by the sync tool: not ours to remove.
        #expect(try names(in: store).contains(".syncthing.\(id).wav.tmp"))
    }

    @Test func aStoreOfTheOldLayoutMigratesWithEveryTitleMarkerAndTrashEntry() throws {
        let first = try store.importAudio(from: tone("a.wav", seconds: 0.2), title: "First")
        let second = try store.importAudio(from: tone("b.wav", seconds: 0.2), title: "Second")
        let gone = try store.importAudio(from: tone("c.wav", seconds: 0.2), title: "Gone")
        try store.rename(second, to: "Second, renamed")
        try store.delete([gone])
        // The old layout: the index, its journal and cache and the lock in the store, no change files, no state; markers
        // in the index only, and a rename in the journal only, as an older voicememo kept them.
        for name in try names(in: store) where name.hasSuffix(".change") {
            try FileManager.default.removeItem(at: store.directory.appendingPathComponent(name))
        }
        var old = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: store.indexURL))
        var marked = try #require(old.memos.first { $0.id == first.id })
        marked.markers = [AudioMarker(framePosition: 4800, name: "Here")]
        old.put(marked)
        old.generation = "2b"
        var journaled = try #require(old.memos.first { $0.id == second.id })
        journaled.title = "Second, renamed in the journal"
        try MemoIndex.encoder.encode(old).write(to: store.directory.appendingPathComponent("memos.json"))
        let journal = store.directory.appendingPathComponent("memos.journal").path
        try MemoJournal.start(at: journal, generation: 0x2b)
        try MemoJournal.append([.put(journaled)], at: journal, after: Int64(MemoJournal.headerLength))
        try Data("not this store's cache".utf8).write(to: store.directory.appendingPathComponent(".memos.cache"))
        try Data().write(to: store.directory.appendingPathComponent(".lock"))
        try FileManager.default.removeItem(at: scratch.file("state"))
        old.put(journaled)
        let before = old.memos
        let trash = store.trashedVersions()

        let migrated = try MemoStore(directory: store.directory, stateDirectory: scratch.file("state"))
        #expect(try migrated.memos() == before)
        #expect(migrated.trashedVersions() == trash)
        #expect(try names(in: store).filter { $0.hasSuffix(".change") }.count == 2)
        // The index is this machine's now: nothing of it is left for a sync tool to ship.
        #expect(Set(try names(in: store)).isDisjoint(with: ["memos.json", "memos.journal", ".memos.cache", ".lock"]))
        #expect(FileManager.default.fileExists(atPath: migrated.indexURL.path))
        // Another machine with a copy reads the same from the change files alone.
        let other = try otherMachine()
        try copy(store, to: other)
        let copied = try other.memos()
        #expect(copied.map(\.title).sorted() == ["First", "Second, renamed in the journal"])
        #expect(copied.first { $0.id == first.id }?.markers == [AudioMarker(framePosition: 4800, name: "Here")])
    }

    /// An older voicememo's index that a sync tool brought from another machine says what that machine had folded in:
    /// the change files win over it, and it fills in only a memo that has none.
    @Test func anOldLayoutFromAnotherMachineFillsInOnlyMemosWithoutChangeFiles() throws {
        let kept = try store.importAudio(from: tone("a.wav", seconds: 0.2), title: "Kept")
        let renamed = try store.importAudio(from: tone("b.wav", seconds: 0.2), title: "Before")
        try store.rename(renamed, to: "After")
        var old = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: store.indexURL))
        for (id, title) in [(kept.id, "Kept, as the old index has it"), (renamed.id, "Behind its change files")] {
            var memo = try #require(old.memos.first { $0.id == id })
            memo.title = title
            old.put(memo)
        }
        try MemoIndex.encoder.encode(old).write(to: store.directory.appendingPathComponent("memos.json"))
        for name in try names(in: store) where name.hasPrefix(kept.id + ".") && name.hasSuffix(".change") {
            try FileManager.default.removeItem(at: store.directory.appendingPathComponent(name))
        }
        let other = try otherMachine()
        try copy(store, to: other)
        #expect(try other.memos().map(\.title) == ["Kept, as the old index has it", "After"])
        #expect(!(try names(in: other)).contains("memos.json"))
    }

    /// The index is kept by the store's path: moved, the store's index is rebuilt from its files, and loses nothing.
    @Test func aMovedStoreListsEveryMemoWithItsTitleAndMarkers() throws {
        let markers = [AudioMarker(framePosition: 24000, name: "Intro")]
        let marked = try store.importAudio(from: markedTone("marked.wav", markers: markers), title: "Marked", settings: AudioSettings(format: .caf))
        let renamed = try store.rename(try store.importAudio(from: tone("b.wav", seconds: 0.2), title: "Before"), to: "After")
        let before = try store.memos()
        let moved = scratch.file("moved")
        try FileManager.default.moveItem(at: store.directory, to: moved)
        let there = try MemoStore(directory: moved, stateDirectory: scratch.file("state"))
        #expect(there.indexURL != store.indexURL && !FileManager.default.fileExists(atPath: there.indexURL.path))
        // A rebuilt index lists the memos in the order of their ids.
        let listed = try there.memos().sorted { $0.id < $1.id }
        let expected = before.sorted { $0.id < $1.id }
        #expect(listed.map(\.id) == expected.map(\.id) && listed.map(\.title) == expected.map(\.title))
        #expect(Set(listed.map(\.title)) == ["Marked", "After"])
        #expect(listed.first { $0.id == marked.id }?.markers == markers)
        #expect(listed.map(\.duration) == expected.map(\.duration) && listed.map(\.state) == [.complete, .complete])
        #expect(try there.titleHistory(of: renamed).map(\.title) == ["Before", "After"])
    }

    /// A sync tool may bring a memo's change file before its audio, and `cp` writes the audio in place: the memo is
    /// listed, as syncing, until its audio is whole, and nothing plays or changes it before.
    @Test func aMemoWhoseChangeCameBeforeItsAudioIsSyncingUntilTheAudioIsWhole() throws {
        let other = try otherMachine()
        let memo = try store.importAudio(from: tone("a.wav", seconds: 1), title: "Arriving")
        for name in try names(in: store) where name.hasSuffix(".change") {
            try FileManager.default.copyItem(at: store.directory.appendingPathComponent(name), to: other.directory.appendingPathComponent(name))
        }
        let listed = try other.memos()
        #expect(listed.map { [$0.id, $0.title, $0.state.rawValue] } == [[memo.id, "Arriving", "syncing"]])
        #expect(throws: MemoStoreError.stillSyncing("Arriving")) { try other.rename(listed[0], to: "Too soon") }
        #expect(throws: MemoStoreError.stillSyncing("Arriving")) { try other.delete(listed) }
        #expect(throws: MemoStoreError.stillSyncing("Arriving")) { try other.export(listed[0], to: scratch.file("out.wav")) }
        // Half of its audio, as `cp` leaves it on the way.
        let audio = try Data(contentsOf: store.fileURL(of: memo))
        try audio.prefix(audio.count / 2).write(to: other.fileURL(of: memo))
        #expect(try other.memos().map(\.state) == [.syncing])
        #expect(try other.syncStatus().memos[.syncing] == 1)
        try audio.write(to: other.fileURL(of: memo))
        let whole = try other.memos()
        #expect(whole.map(\.state) == [.complete] && whole.map(\.title) == ["Arriving"] && whole.map(\.duration) == [memo.duration])
        #expect(try other.syncStatus().memos[.syncing] == nil)
    }
}
