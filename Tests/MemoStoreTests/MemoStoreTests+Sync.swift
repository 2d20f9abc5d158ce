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
        // The old layout: no change files, no state; markers in the index only, as an older voicememo kept them.
        for name in try names(in: store) where name.hasSuffix(".change") {
            try FileManager.default.removeItem(at: store.directory.appendingPathComponent(name))
        }
        try FileManager.default.removeItem(at: scratch.file("state"))
        let index = store.directory.appendingPathComponent("memos.json")
        var old = try MemoIndex.decoder.decode(MemoIndex.self, from: Data(contentsOf: index))
        var marked = try #require(old.memos.first { $0.id == first.id })
        marked.markers = [AudioMarker(framePosition: 4800, name: "Here")]
        old.put(marked)
        try MemoIndex.encoder.encode(old).write(to: index)
        try FileManager.default.removeItem(at: store.directory.appendingPathComponent(".memos.cache"))
        let before = old.memos
        let trash = store.trashedVersions()

        let migrated = try MemoStore(directory: store.directory, stateDirectory: scratch.file("state"))
        #expect(try migrated.memos() == before)
        #expect(migrated.trashedVersions() == trash)
        #expect(try names(in: store).filter { $0.hasSuffix(".change") }.count == 2)
        // Another machine with a copy reads the same from the change files alone.
        let other = try otherMachine()
        try copy(store, to: other)
        try FileManager.default.removeItem(at: other.directory.appendingPathComponent("memos.json"))
        let copied = try other.memos()
        #expect(copied.map(\.title).sorted() == ["First", "Second, renamed"])
        #expect(copied.first { $0.id == first.id }?.markers == [AudioMarker(framePosition: 4800, name: "Here")])
    }
}
