import Foundation
import TestSupport
import Testing

/// Two machines sharing a store through a sync tool: two `XDG_STATE_HOME`s, each with its own copy of the store, running
/// the real binary, kept in step with plain `rsync -a` both ways (or `cp -r`), which replace whatever they copy.
@Suite struct SyncTests {
    /// A machine: its own store and state directory.
    typealias Machine = CLI

    /// `rsync -a` from `source`'s store into `destination`'s: what is there is replaced, nothing is deleted.
    func rsync(_ source: Machine, _ destination: Machine) throws {
        try Tool.output("rsync", ["-a", source.home.path + "/", destination.home.path])
    }

    /// `cp -r` from `source`'s store into `destination`'s.
    func copy(_ source: Machine, _ destination: Machine) throws {
        try Tool.output("cp", ["-r", source.home.path + "/.", destination.home.path])
    }

    /// Runs `arguments` on `machine`, expecting success.
    @discardableResult
    func run(_ machine: Machine, _ arguments: String...) throws -> String {
        let result = try Tool.run(CLI.binary, arguments, environment: machine.environment)
        guard result.status == 0 else { throw ToolFailure(command: arguments.joined(separator: " "), result: result) }
        return result.standardOutput
    }

    /// `list --json` as a user compares two machines': every memo but its path (each machine has its store elsewhere),
    /// by id, as JSON with sorted keys.
    func listing(_ machine: Machine) throws -> String {
        let memos = try #require(JSONSerialization.jsonObject(with: Data(run(machine, "list", "--json").utf8)) as? [[String: Any]])
        let shared = memos.map { $0.filter { $0.key != "file" } }.sorted { ($0["id"] as? String ?? "") < ($1["id"] as? String ?? "") }
        return String(decoding: try JSONSerialization.data(withJSONObject: shared, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The titles `list --json` gives, by id.
    func titles(_ machine: Machine) throws -> [String: String] {
        let memos = try #require(JSONSerialization.jsonObject(with: Data(run(machine, "list", "--json").utf8)) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: memos.map { ($0["id"] as? String ?? "", $0["title"] as? String ?? "") })
    }

    /// This machine's id, as `sync status --json` gives it.
    func machineID(_ machine: Machine) throws -> String {
        try #require(try machine.json(machine.run("sync", "status", "--json"))["machine"] as? String)
    }

    /// Expects both machines to list the same memos, and nothing in either store a user must clean up.
    func expectConverged(_ one: Machine, _ other: Machine, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try listing(one) == listing(other), sourceLocation: sourceLocation)
        for machine in [one, other] {
            let names = try FileManager.default.contentsOfDirectory(atPath: machine.home.path)
            #expect(!names.contains { $0.contains("sync-conflict") || $0.hasSuffix(".tmp") }, sourceLocation: sourceLocation)
        }
    }

    @Test func anImportOnOneMachineWhileTheOtherRenamesArrivesOnBoth() throws {
        let (a, b) = (try Machine(), try Machine())
        let first = try a.importTone(title: "First")
        try rsync(a, b)
        let second = try a.importTone(title: "Second")
        try run(b, "rename", first, "First, renamed on B")
        try rsync(a, b)
        try rsync(b, a)
        try expectConverged(a, b)
        #expect(try titles(a) == [first: "First, renamed on B", second: "Second"])
    }

    @Test(arguments: ["rsync", "cp"])
    func twoRenamesAtOnceEndWithTheSameTitleEverywhereAndTheOtherInTheHistory(tool: String) throws {
        let (a, b) = (try Machine(), try Machine())
        let id = try a.importTone(title: "Original")
        try rsync(a, b)
        try run(a, "rename", id, "Title from A")
        try run(b, "rename", id, "Title from B")
        let sync = tool == "rsync" ? rsync : copy
        try sync(a, b)
        try sync(b, a)
        try expectConverged(a, b)
        // Made without seeing each other: one clock, and the higher machine id wins.
        let winner = try machineID(a) > machineID(b) ? "Title from A" : "Title from B"
        let loser = winner == "Title from A" ? "Title from B" : "Title from A"
        for machine in [a, b] {
            let info = try machine.json(machine.run("info", id, "--json"))
            #expect(info["title"] as? String == winner)
            let history = try #require(info["titleHistory"] as? [[String: Any]]).compactMap { $0["title"] as? String }
            #expect(history == ["Original", loser, winner])
            #expect(try machine.run("info", id).standardOutput.contains("Earlier titles:  \(loser); Original"))
        }
    }

    @Test func aDeleteOnOneMachineWhileTheOtherRenamesSettlesOneWayAndComesBackOnRestore() throws {
        let (a, b) = (try Machine(), try Machine())
        let id = try a.importTone(title: "Contested")
        let other = try a.importTone(title: "Bystander")
        try rsync(a, b)
        try run(a, "delete", id)
        try run(b, "rename", id, "Renamed on B")
        try rsync(a, b)
        try rsync(b, a)
        try expectConverged(a, b)
        // One clock: the delete wins when its machine's id is the higher, else the rename brings the memo back.
        let deleted = try machineID(a) > machineID(b)
        #expect(try titles(a) == (deleted ? [other: "Bystander"] : [id: "Renamed on B", other: "Bystander"]))
        guard deleted else { return }
        for machine in [a, b] {
            #expect(try run(machine, "trash").contains(id))
            #expect(try machine.json(machine.run("sync", "status", "--json"))["tombstones"] as? Int == 1)
        }
        // Restored on the machine that did not delete it, it is back on both, with the title its last rename gave it.
        try run(b, "restore", id)
        try rsync(b, a)
        try rsync(a, b)
        try expectConverged(a, b)
        #expect(try titles(a) == [id: "Renamed on B", other: "Bystander"])
        for machine in [a, b] {
            #expect(try machine.json(machine.run("sync", "status", "--json"))["tombstones"] as? Int == 0)
        }
    }

    /// A trim replaces the audio file: plain `rsync -a` copies whichever side it is run from, so the machine that trimmed
    /// is synced from first (or the sync tool keeps the newer file, as `rsync -u` and Syncthing do).
    @Test func aTrimOnOneMachineArrivesOnTheOther() throws {
        let (a, b) = (try Machine(), try Machine())
        let id = try a.importTone(title: "Long", seconds: 3)
        let other = try a.importTone(title: "Other")
        try rsync(a, b)
        try run(b, "trim", id, "--start", "1", "--end", "2")
        try run(a, "rename", other, "Other, renamed on A")
        try rsync(b, a)
        try rsync(a, b)
        try expectConverged(a, b)
        let info = try a.json(a.run("info", id, "--json"))
        #expect(abs((info["duration"] as? Double ?? 0) - 1) < 0.01)
        #expect(try titles(b)[other] == "Other, renamed on A")
    }

    @Test func manyImportsOnOneMachineWhileTheOtherDeletesSomeLoseNothingAndBringNothingBack() throws {
        let (a, b) = (try Machine(), try Machine())
        var shared: [String] = []
        for number in 1...6 { shared.append(try a.importTone(title: "Shared \(number)", seconds: 0.1)) }
        try rsync(a, b)
        var added: [String] = []
        for number in 1...8 { added.append(try a.importTone(title: "New \(number)", seconds: 0.1)) }
        try run(b, "delete", shared[0], shared[2], shared[4])
        try rsync(a, b)
        try rsync(b, a)
        try expectConverged(a, b)
        let expected = Set([shared[1], shared[3], shared[5]] + added)
        #expect(try Set(titles(a).keys) == expected)
        // Synced again, in the other order: still nothing comes back.
        try rsync(b, a)
        try rsync(a, b)
        try expectConverged(a, b)
        #expect(try Set(titles(b).keys) == expected)
        let status = try a.json(a.run("sync", "status", "--json"))
        #expect(status["tombstones"] as? Int == 3)
        #expect((status["memos"] as? [String: Int])?["complete"] == 11)
    }

    @Test func aRecordingUnderWayOnAnotherMachineIsListedAsRecordingThereAndNeverRecoveredHere() throws {
        let (a, b) = (try Machine(), try Machine())
        let source = try a.importTone(title: "Source", seconds: 1)
        let whole = try Data(contentsOf: a.home.appendingPathComponent(source + ".wav"))
        let owner = try machineID(a)
        try run(b, "list")
        // What a sync tool brings of A's recording under way: its file as written so far, and its lock, with A's id.
        let id = "0123456789ab"
        let file = b.home.appendingPathComponent(id + ".wav")
        let lock = b.home.appendingPathComponent(".\(id).recording")
        try whole.prefix(whole.count / 2).write(to: file)
        try Data((owner + "\n").utf8).write(to: lock)
        let listed = try #require(JSONSerialization.jsonObject(with: Data(run(b, "list", "--json").utf8)) as? [[String: Any]])
        #expect(listed.first { $0["id"] as? String == id }?["state"] as? String == "recording")
        #expect(try Data(contentsOf: file) == whole.prefix(whole.count / 2), "never repaired here")
        #expect(FileManager.default.fileExists(atPath: lock.path))
        // A finishes it: the whole file and A's change for it arrive; the memo is complete, with A's title.
        try whole.write(to: file)
        let change = """
            {"clock": 5, "createdAt": "2026-11-28T12:00:00Z", "deleted": false, "fields": ["title", "createdAt", "audio", "deleted"],
             "id": "\(id)", "machine": "\(owner)", "madeAt": "2026-11-28T12:00:01Z", "title": "Finished on A"}
            """
        try Data(change.utf8).write(to: b.home.appendingPathComponent("\(id).5-\(owner).change"))
        let memo = try b.json(b.run("info", id, "--json"))
        #expect(memo["state"] as? String == "complete" && memo["title"] as? String == "Finished on A")
        #expect(abs((memo["duration"] as? Double ?? 0) - 1) < 0.01)
        #expect(!FileManager.default.fileExists(atPath: lock.path))
    }

    @Test func syncStatusSaysWhoChangedWhatAndAConflictCopyIsMerged() throws {
        let (a, b) = (try Machine(), try Machine())
        let id = try a.importTone(title: "Shared")
        try rsync(a, b)
        try run(b, "rename", id, "Renamed on B")
        try rsync(b, a)
        // A Syncthing conflict copy of B's change, as if two sides had written it.
        let change = try #require(try FileManager.default.contentsOfDirectory(atPath: a.home.path).first {
            $0.hasPrefix(id + ".2-") && $0.hasSuffix(".change")
        })
        let copy = change.replacingOccurrences(of: ".change", with: ".sync-conflict-20261128-120000-ABCDEFG.change")
        try FileManager.default.copyItem(at: a.home.appendingPathComponent(change), to: a.home.appendingPathComponent(copy))
        let status = try a.json(a.run("sync", "status", "--json"))
        #expect(status["machine"] as? String == (try machineID(a)))
        #expect(status["conflictsMerged"] as? Int == 1)
        #expect(status["tombstones"] as? Int == 0)
        #expect((status["memos"] as? [String: Int]) == ["complete": 1, "recording": 0, "recovered": 0, "syncing": 0])
        let machines = try #require(status["machines"] as? [[String: Any]])
        #expect(Set(machines.compactMap { $0["id"] as? String }) == [try machineID(a), try machineID(b)])
        #expect(machines.first { $0["id"] as? String == (try? machineID(b)) }?["lastClock"] as? Int == 2)
        #expect(try !FileManager.default.contentsOfDirectory(atPath: a.home.path).contains(copy))
        let text = try run(a, "sync", "status")
        #expect(text.contains("Machine: \(try machineID(a))") && text.contains("Memos: 1 complete, 0 recording, 0 recovered, 0 syncing"))
        #expect(text.contains("Conflicts merged: 1"))
    }

    /// A memo whose change file came before its audio (a sync tool still copying it, `cp` writing it in place) is listed
    /// as syncing, is neither played nor changed, and is complete once its audio is whole, with nothing to do.
    @Test func aMemoWhoseAudioIsStillArrivingIsListedAsSyncingUntilItIsWhole() throws {
        let (a, b) = (try Machine(), try Machine())
        let id = try a.importTone(title: "On its way", seconds: 2)
        try FileManager.default.createDirectory(at: b.home, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: a.home.path) where name.hasSuffix(".change") {
            try FileManager.default.copyItem(at: a.home.appendingPathComponent(name), to: b.home.appendingPathComponent(name))
        }
        func state() throws -> [String?] {
            try #require(JSONSerialization.jsonObject(with: Data(run(b, "list", "--json").utf8)) as? [[String: Any]]).map { $0["state"] as? String }
        }
        #expect(try state() == ["syncing"])
        #expect(try b.lines("list").contains { $0.contains("On its way") && $0.hasSuffix("syncing") })
        let said = "voicememo: “On its way” is still arriving from another machine; wait for the sync to finish, then try again\n"
        for arguments in [["play", id, "--device", "null"], ["export", id, b.scratch.path("out.wav")], ["rename", id, "Too soon"], ["trim", id, "--start", "1"]] {
            let result = try b.run(arguments, with: [:])
            #expect(result.status == 1 && result.standardError == said, "\(arguments): \(result.standardError)")
        }
        #expect((try b.json(b.run("sync", "status", "--json"))["memos"] as? [String: Int])?["syncing"] == 1)
        // Half its audio, as `cp` leaves it on the way, then all of it.
        let audio = try Data(contentsOf: a.home.appendingPathComponent(id + ".wav"))
        try audio.prefix(audio.count / 2).write(to: b.home.appendingPathComponent(id + ".wav"))
        #expect(try state() == ["syncing"])
        try audio.write(to: b.home.appendingPathComponent(id + ".wav"))
        #expect(try state() == ["complete"])
        try expectConverged(a, b)
    }
}
