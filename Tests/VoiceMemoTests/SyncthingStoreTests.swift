import Foundation
import TestSupport
import Testing

/// One memo collection on two machines kept in step by two real Syncthing instances: each machine is a `voicememo`
/// with its own `XDG_STATE_HOME` (its id and index) and its store in its machine's shared folder. Whatever both do, once
/// the folders are in step both list the same memos, each titled by the deterministic winner, with nothing lost or
/// resurrected and nothing left for a person to clean up.
///
/// The commands run off the test pool (``offThePool(_:)``): these tests wait on Syncthing and the commands for a minute
/// or more, and the pool's few threads stay with the other suites meanwhile.
struct SyncthingStoreRig {
    /// One machine: the CLI with its store in `folder` and its state in a directory of its own.
    struct Machine: Sendable {
        let cli: CLI
        let folder: URL
        let state: URL

        var environment: [String: String] { ["VOICEMEMO_HOME": folder.path, "XDG_STATE_HOME": state.path] }

        @discardableResult
        func run(_ arguments: String...) async throws -> ToolResult { try await run(arguments) }

        @discardableResult
        func run(_ arguments: [String]) async throws -> ToolResult {
            let (cli, environment) = (cli, environment)
            let result = try await offThePool { try cli.run(arguments, with: environment) }
            #expect(result.status == 0, "\(arguments.joined(separator: " ")): \(result.standardError)")
            return result
        }

        /// `list --json`, each memo as sorted JSON with its file named without the machine's folder, in order of id.
        func memos() async throws -> [String] {
            let listed = try JSONSerialization.jsonObject(with: Data(await run("list", "--json").standardOutput.utf8)) as? [[String: Any]] ?? []
            return try listed.map { memo in
                var memo = memo
                memo["file"] = (memo["file"] as? String).map { ($0 as NSString).lastPathComponent }
                return String(decoding: try JSONSerialization.data(withJSONObject: memo, options: [.sortedKeys]), as: UTF8.self)
            }.sorted()
        }

        /// `list --json`, each memo a dictionary.
        func listed() async throws -> [[String: Any]] {
            try await memos().compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    let scratch: ScratchDirectory
    let cli: CLI

    init() throws {
        cli = try CLI()
        scratch = cli.scratch
    }

    func machines(receivingRate: Int? = nil) async throws -> (SyncthingPair, Machine, Machine) {
        // No `.stignore`: nothing in the store is one machine's own, and everything in it is shared.
        let pair = try await SyncthingPair(
            sharing: scratch.file("a/memos"), and: scratch.file("b/memos"), homesIn: scratch.url, receivingRate: receivingRate)
        let a = Machine(cli: cli, folder: pair.a.folder, state: scratch.file("a/state"))
        let b = Machine(cli: cli, folder: pair.b.folder, state: scratch.file("b/state"))
        return (pair, a, b)
    }

    /// Waits until the folders are in step, lets each machine read what came (merging what sync tools leave), waits
    /// again, and checks that both list the same and that nothing is left for a person to clean up.
    func converge(_ pair: SyncthingPair, _ a: Machine, _ b: Machine) async throws -> [[String: Any]] {
        try await pair.waitUntilInSync(within: 60)
        _ = try await a.memos()
        _ = try await b.memos()
        try await pair.waitUntilInSync(within: 60)
        let listed = try await a.memos()
        let onB = try await b.memos()
        #expect(onB == listed, "both machines list the same memos: \(zip(listed, onB).filter { $0 != $1 }.prefix(2)), \(listed.count) and \(onB.count)")
        for machine in [pair.a, pair.b] {
            #expect(machine.conflictCopies().isEmpty, "conflict copies merged and removed: \(machine.conflictCopies())")
        }
        return try listed.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// `count` tones of 0.2 s in a directory of their own.
    func tones(_ count: Int, named name: String) async throws -> URL {
        let directory = scratch.file(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await offThePool {
            for number in 0..<count {
                try Sox.synth(to: directory.appendingPathComponent(String(format: "%@-%03d.wav", name, number)).path, rate: 16000,
                              channels: 1, seconds: 0.2, "sine \(300 + number)")
            }
        }
        return directory
    }
}

/// What both machines do to their memos, apart and at once, settles the same way on both.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SyncthingStoreTests {
    let rig: SyncthingStoreRig

    init() throws { rig = try SyncthingStoreRig() }

    @Test func concurrentRenamesDeletesAndTrimsConvergeOnBothMachines() async throws {
        let (pair, a, b) = try await rig.machines()
        defer { pair.stop() }
        try await a.run("import", try await rig.tones(3, named: "talk").path)
        var listed = try await rig.converge(pair, a, b)
        #expect(listed.count == 3)
        let ids = listed.compactMap { $0["id"] as? String }

        // Apart: both rename the first; A deletes the second while B renames it; B trims the third.
        try await pair.disconnect()
        try await a.run("rename", ids[0], "Title from A")
        try await b.run("rename", ids[0], "Title from B")
        try await a.run("delete", ids[1])
        try await b.run("rename", ids[1], "Renamed on B")
        try await b.run("trim", ids[2], "--end", "0.1")
        try await pair.reconnect()
        listed = try await rig.converge(pair, a, b)

        let first = try #require(listed.first { $0["id"] as? String == ids[0] })
        let title = try #require(first["title"] as? String)
        #expect(["Title from A", "Title from B"].contains(title), "one of the two titles, the same everywhere")
        // The other title is the memo's history, on both machines.
        let other = title == "Title from A" ? "Title from B" : "Title from A"
        for machine in [a, b] {
            #expect(try await machine.run("info", ids[0], "--json").standardOutput.contains(other), "\(other) kept as an earlier title")
        }
        // Deleted on A, renamed on B, each its machine's next change after the import: one clock, so the machine ids decide;
        // either way both machines say the same (compared above), and a memo that stays has B's title.
        if let second = listed.first(where: { $0["id"] as? String == ids[1] }) {
            #expect(second["title"] as? String == "Renamed on B")
        }
        let third = try #require(listed.first { $0["id"] as? String == ids[2] })
        #expect(third["duration"] as? Double == 0.1, "the trim reached A")
        // Both renamed the first memo's audio (its title is in its tags): the copy Syncthing did not choose is in a trash.
        let trashes = try await a.run("trash").standardOutput + b.run("trash").standardOutput
        #expect(trashes.contains("sync conflict"), "\(trashes)")
    }

    @Test func twoHundredImportsOnOneWhileTheOtherDeletesFiftyLoseNothingAndResurrectNothing() async throws {
        let (pair, a, b) = try await rig.machines()
        defer { pair.stop() }
        try await a.run("import", try await rig.tones(200, named: "talk").path)
        // B deletes 50 of those that have reached it while the rest are still coming.
        var arrived: [String] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while arrived.count < 50, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            arrived = try await b.listed().filter { $0["state"] as? String == "complete" }.compactMap { $0["id"] as? String }
        }
        #expect(arrived.count >= 50, "\(arrived.count) arrived on B")
        let deleted = Set(arrived.prefix(50))
        try await b.run(["delete"] + Array(deleted))
        let after = try await rig.converge(pair, a, b)
        #expect(after.count == 150, "200 imported, 50 deleted")
        #expect(after.allSatisfy { !deleted.contains($0["id"] as? String ?? "") }, "no deleted memo comes back")
        let trash = try await a.run("trash", "--json").standardOutput
        #expect(deleted.allSatisfy { trash.contains($0) }, "the deleted memos wait in A's trash too")
    }
}

/// A memo on its way from one machine to the other: a recording under way, and a long file whose transfer a killed
/// Syncthing cuts short.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SyncthingTransferTests {
    let rig: SyncthingStoreRig

    init() throws { rig = try SyncthingStoreRig() }

    @Test func aRecordingOnOneWhileTheOtherPlaysIsRecordingThereUntilItArrivesWhole() async throws {
        let (pair, a, b) = try await rig.machines()
        defer { pair.stop() }
        try await a.run("import", try await rig.tones(1, named: "played").path)
        let played = try #require(try await rig.converge(pair, a, b).first?["id"] as? String)
        // From a microphone that keeps time, as a sound card does, until it is stopped once seen under way on B (a
        // recording of a fixed 4 s once ended before a loaded machine's Syncthing had carried its lock over).
        let speech = rig.scratch.path("speech.wav")
        try Sox.synth(to: speech, rate: 48000, channels: 1, seconds: 6, "sine 440")
        let microphone = try ALSATestDevices.clockedMicrophone(playing: speech)
        let recording = try rig.cli.start(
            ["record", "--device", microphone.device(hearingFrom: ALSATestDevices.monotonicNow), "--duration", "100", "--title", "Recorded on A", "--json"],
            with: a.environment)
        defer { if recording.isRunning { recording.kill() } }
        var lock: String?
        #expect(try await eventually(within: 10) {
            lock = (try? FileManager.default.contentsOfDirectory(atPath: b.folder.path))?.first { $0.hasPrefix(".") && $0.hasSuffix(".recording") }
            return lock != nil
        }, "A's recording under way reached B")
        let id = String(try #require(lock).dropFirst().dropLast(".recording".count))
        #expect(recording.isRunning, "still recording on A")
        let listedOnB = try await b.listed()
        #expect(listedOnB.first { $0["id"] as? String == id }.map { $0["state"] as? String } ?? "recording" == "recording",
                "listed on B as recording, or not yet, never recovered or half")
        try await b.run("play", played, "--device", "null")
        #expect(recording.isRunning, "still recording on A once B played")
        recording.send(SIGINT)
        let finished = recording.finish()
        #expect(finished.status == 0, "\(finished.standardError)")
        let recorded = try #require(try JSONSerialization.jsonObject(with: Data(finished.standardOutput.utf8)) as? [String: Any])
        let listed = try await rig.converge(pair, a, b)
        let memo = try #require(listed.first { $0["id"] as? String == id })
        #expect(memo["title"] as? String == "Recorded on A" && memo["state"] as? String == "complete")
        let duration = try #require(memo["duration"] as? Double)
        #expect(duration > 0.5 && duration < 100 && duration == recorded["duration"] as? Double, "\(duration) s")
        let file = try #require(memo["file"] as? String)
        #expect(try Data(contentsOf: a.folder.appendingPathComponent(file)) == Data(contentsOf: b.folder.appendingPathComponent(file)),
                "the same recording on both")
        #expect(!FileManager.default.fileExists(atPath: b.folder.appendingPathComponent(".\(id).recording").path), "no lock left")
    }

    @Test(arguments: ["receiving", "sending"])
    func aMemoHalfArrivedWhenSyncthingIsKilledIsListedAsSyncingAndArrivesWhole(killed: String) async throws {
        // 20 MB at 4 MB a second: the receiving or the sending machine's Syncthing is killed while the audio arrives.
        let (pair, a, b) = try await rig.machines(receivingRate: 4000)
        defer { pair.stop() }
        let long = rig.scratch.path("long.wav")
        try Sox.synth(to: long, rate: 48000, channels: 2, seconds: 110, "whitenoise")
        let imported = try JSONSerialization.jsonObject(with: Data(await a.run("import", long, "--json").standardOutput.utf8)) as? [String: Any]
        let id = try #require(imported?["id"] as? String)
        let arriving = pair.b.temporaryFile(for: "\(id).wav")
        // Smallest first: its change file is whole on B before the audio is.
        let changeArrived = {
            ((try? FileManager.default.contentsOfDirectory(atPath: b.folder.path)) ?? []).contains { $0.hasPrefix(id + ".") && $0.hasSuffix(".change") }
        }
        #expect(try await eventually(within: 30) { FileManager.default.fileExists(atPath: arriving.path) && changeArrived() },
                "the audio is arriving on B, after its change file")
        let victim = killed == "receiving" ? pair.b : pair.a
        #expect(victim.kill(), "the \(killed) Syncthing was running when killed")
        #expect(FileManager.default.fileExists(atPath: arriving.path), "killed with the audio half here")
        // B lists the memo as syncing, never half, and takes nothing of Syncthing's for a memo.
        let half = try await b.listed().filter { $0["id"] as? String == id }
        #expect(half.map { $0["state"] as? String } == ["syncing"], "listed as syncing until its audio is whole")
        let played = try rig.cli.run(["play", id, "--device", "null"], with: b.environment)
        #expect(played.status == 1 && played.standardError.hasSuffix("is still arriving from another machine; wait for the sync to finish, then try again\n"),
                "\(played.standardError)")
        #expect(FileManager.default.fileExists(atPath: arriving.path), "Syncthing's temporary file left alone")
        try await pair.restart(victim)
        let listed = try await rig.converge(pair, a, b)
        let memo = try #require(listed.first { $0["id"] as? String == id })
        #expect(memo["duration"] as? Double == 110 && memo["state"] as? String == "complete")
    }
}
