import Foundation
import MemoStore
import TestSupport
import Testing

/// A store on a disk that is full for real: a 2 MB tmpfs this test mounts (as root) with two memos of 768 KB on it,
/// filled to its last block. A write says in one line what failed, how much room is left and what to do, and leaves
/// nothing behind; a delete still works, and `trash --empty` (or `delete --now`) gives the room back.
@Suite(.tags(.torture)) struct FullDiskTorture {
    /// A store on its own tmpfs, and the `voicememo` that runs against it.
    struct FullStore {
        let cli: CLI
        /// The tmpfs' mount point.
        let disk: String
        /// The store, in it: made by the first import, as a person's is.
        var store: String { disk + "/store" }

        /// Runs `voicememo arguments...` against the store on the tmpfs.
        func run(_ arguments: String...) throws -> ToolResult {
            try cli.run(arguments, with: ["VOICEMEMO_HOME": store])
        }

        /// Imports `seconds` of a tone as WAV, titled `title`; returns its id.
        func importTone(_ title: String, seconds: Double) throws -> String {
            let source = cli.scratch.path("\(title).wav")
            try Sox.synth(to: source, rate: 48000, channels: 1, seconds: seconds, "sine 440")
            let result = try run("import", source, "--title", title, "--format", "wav", "--json")
            guard result.status == 0, let id = try cli.json(result)["id"] as? String else {
                throw ToolFailure(command: "voicememo import --title \(title)", result: result)
            }
            return id
        }

        /// Writes zeros into a file on the disk until it is full.
        func fill() throws {
            // dd ends with "No space left on device", and a status of 1, when the disk is full: that is the point.
            try Tool.run("dd", ["if=/dev/zero", "of=\(disk)/filler", "bs=4096"])
            #expect(available == 0, "the disk is not full: \(available) bytes free")
        }

        /// The bytes free on the disk, as `statvfs` says.
        var available: Int64 {
            var space = statvfs()
            guard statvfs(disk, &space) == 0 else { return -1 }
            return Int64(space.f_bavail) * Int64(space.f_frsize)
        }

        /// Every name in the store and its trash: what a failed write must leave as it was.
        func names() throws -> [String] {
            let trash = (try? FileManager.default.contentsOfDirectory(atPath: store + "/.trash")) ?? []
            return try (FileManager.default.contentsOfDirectory(atPath: store) + trash.map { ".trash/" + $0 }).sorted()
        }

        /// This machine's index of the store, byte for byte.
        var index: Data? {
            let state = MemoStore.localStateDirectory(of: URL(fileURLWithPath: store), in: cli.stateHome.appendingPathComponent("voicememo"))
            return try? Data(contentsOf: state.appendingPathComponent("memos.json"))
        }

        /// The ids `list --json` prints, in its order.
        func listed() throws -> [String] {
            let memos = try JSONSerialization.jsonObject(with: Data(try run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
            return (memos ?? []).compactMap { $0["id"] as? String }
        }
    }

    /// Runs `body` with two memos of 8 s (768 KB each) in a store on a 2 MB tmpfs mounted for it, unmounted after,
    /// even when `body` fails.
    func withFullStore(_ body: (FullStore) throws -> Void) throws {
        let cli = try CLI()
        let disk = cli.scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mount = try Tool.run("mount", ["-t", "tmpfs", "-o", "size=2m,mode=700", "tmpfs", disk])
        guard mount.status == 0 else {
            Issue.record("these tests mount a tmpfs, which takes root: `mount -t tmpfs` failed: \(mount.standardError)")
            return
        }
        defer { _ = try? Tool.run("umount", ["--lazy", disk]) }
        try body(FullStore(cli: cli, disk: disk))
    }

    @Test func anImportAndARecordingOnAFullDiskFailInOneLineAndLeaveNothing() throws {
        try withFullStore { full in
            let first = try full.importTone("First", seconds: 8)
            let second = try full.importTone("Second", seconds: 8)
            let source = full.cli.scratch.path("tiny.wav")
            try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 1, "sine 300")
            try full.fill()
            let names = try full.names()
            let index = try #require(full.index)

            let imported = try full.run("import", source, "--title", "tiny2", "--format", "wav")
            #expect(imported.status == 1)
            #expect(imported.standardError == "voicememo: no space left on '\(full.store)' for “tiny2”: 0 B free, it takes about 96 KB; "
                + "delete memos (voicememo delete, then voicememo trash --empty) or import elsewhere (VOICEMEMO_HOME)\n")
            let recorded = try full.run("record", "--device", "null", "--title", "y", "--duration", "2", "--format", "wav")
            #expect(recorded.status == 1)
            #expect(recorded.standardError == "voicememo: no space left on '\(full.store)' for the recording: 0 B free, a minute of this format "
                + "takes 5.8 MB; delete memos (voicememo delete, then voicememo trash --empty) or record elsewhere (VOICEMEMO_HOME)\n")

            // No memo, no `.partial`, no lock, no temporary file; the index as it was.
            #expect(try full.names() == names)
            #expect(try full.listed() == [second, first])
            #expect(full.index == index)
        }
    }

    @Test func deleteThenEmptyingTheTrashFreesAFullDisk() throws {
        try withFullStore { full in
            let first = try full.importTone("First", seconds: 8)
            let second = try full.importTone("Second", seconds: 8)
            try full.fill()

            let deleted = try full.run("delete", "First")
            #expect(deleted.status == 0 && deleted.standardError.isEmpty, "\(deleted.standardError)")
            #expect(deleted.standardOutput == "Deleted \(first) “First”: in the trash for 30 days\n")
            #expect(try full.listed() == [second])
            // The delete is a change file, as any delete: another machine sharing the store sees it.
            #expect(try full.names().filter { $0.hasPrefix(first + ".") && $0.hasSuffix(".change") }.count == 2)
            #expect(try full.run("trash").standardOutput.contains("1 version, 768 KB"))

            let before = full.available
            let emptied = try full.run("trash", "--empty")
            #expect(emptied.status == 0 && emptied.standardOutput == "Emptied the trash: 1 version, 768 KB freed\n")
            #expect(full.available - before >= 768_134, "freed \(full.available - before) bytes")
            #expect(try full.names().filter { $0.hasPrefix(".trash/") }.isEmpty)

            // The room is there again.
            let source = full.cli.scratch.path("tiny.wav")
            try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 1, "sine 300")
            let imported = try full.run("import", source, "--title", "tiny2", "--format", "wav")
            #expect(imported.status == 0, "\(imported.standardError)")
            let recorded = try full.run("record", "--device", "null", "--title", "y", "--duration", "2", "--format", "wav")
            #expect(recorded.status == 0, "\(recorded.standardError)")
            #expect(try full.listed().count == 3)
        }
    }

    @Test func whereTheTrashHasNoRoomDeleteOffersNowWhichFreesTheSpace() throws {
        try withFullStore { full in
            let first = try full.importTone("First", seconds: 8)
            let second = try full.importTone("Second", seconds: 8)
            // Without their waveforms (derived data, measured again when asked for), a delete has nothing to drop for room.
            for name in try full.names() where name.hasSuffix(".waveform.dat") {
                try FileManager.default.removeItem(atPath: full.store + "/" + name)
            }
            try full.fill()
            let names = try full.names()

            let refused = try full.run("delete", "Second")
            #expect(refused.status == 1)
            #expect(refused.standardError == "voicememo: no space left on '\(full.store)' for the trash to keep “Second”: 0 B free, a memo "
                + "deleted takes 8.2 KB there; 'voicememo delete --now \(second)' removes it for good and frees 768 KB\n")
            #expect(try full.names() == names)
            #expect(try full.listed() == [second, first])

            let before = full.available
            let now = try full.run("delete", "--now", second)
            #expect(now.status == 0 && now.standardError.isEmpty, "\(now.standardError)")
            #expect(now.standardOutput == "Deleted \(second) “Second” for good\n768 KB freed\n")
            #expect(full.available - before >= 768_134 - 4096, "freed \(full.available - before) bytes")
            #expect(try full.listed() == [first])
            // Gone from the store and the trash, and its delete a change file in the room that freed.
            let left = try full.names()
            #expect(!left.contains { $0.hasPrefix(".trash/") || $0 == second + ".wav" }, "\(left)")
            #expect(left.filter { $0.hasPrefix(second + ".") && $0.hasSuffix(".change") }.count == 2)
            #expect(try full.run("restore", second).status == 1)
        }
    }
}
