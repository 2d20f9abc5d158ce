import Foundation

/// Two machines on one (DESIGN §7): two ``SyncthingMachine``s, `a` and `b`, that know each other by device id and
/// `tcp://127.0.0.1:PORT` and share one folder each as ``folderID``, so that two voicememo homes (two
/// `XDG_STATE_HOME`s), each with a store in its machine's folder, see each other's changes as two computers would.
///
/// Starting a pair takes 2–3 s (generating keys, starting, connecting); a small file then arrives in well under a
/// second once scanned. Both processes end with the pair (or ``stop()``); their homes are `syncthing-a` and
/// `syncthing-b` in the directory given, which the test removes.
///
/// ```swift
/// let scratch = try ScratchDirectory()
/// let pair = try await SyncthingPair(sharing: scratch.file("a/memos"), and: scratch.file("b/memos"), homesIn: scratch.url)
/// try Data("hello".utf8).write(to: pair.a.folder.appendingPathComponent("memo.txt"))
/// try await pair.waitUntilInSync()
/// #expect(try Data(contentsOf: pair.b.folder.appendingPathComponent("memo.txt")) == Data("hello".utf8))
/// ```
public final class SyncthingPair: Sendable {
    /// The id of the shared folder, the same on both machines.
    public static let folderID = "voicememo"
    /// The first machine.
    public let a: SyncthingMachine
    /// The second machine.
    public let b: SyncthingMachine

    /// Makes both machines' homes in `directory`, introduces them to each other, starts both and waits until they are
    /// connected (at most 30 s).
    ///
    /// - Parameters:
    ///   - folderA: The folder `a` shares (made if missing).
    ///   - folderB: The folder `b` shares (made if missing).
    ///   - directory: Where their homes go, `syncthing-a` and `syncthing-b`: the test's scratch directory.
    ///   - receivingRate: The most each machine receives, in KiB per second, or nil for no limit. 4000 makes a 20 MB
    ///     file take 5 s: long enough to kill the receiving machine mid-file.
    public init(sharing folderA: URL, and folderB: URL, homesIn directory: URL, receivingRate: Int? = nil) async throws {
        a = try SyncthingMachine(name: "a", home: directory.appendingPathComponent("syncthing-a"), folder: folderA)
        b = try SyncthingMachine(name: "b", home: directory.appendingPathComponent("syncthing-b"), folder: folderB)
        try a.configure(sharing: Self.folderID, with: b, receivingRate: receivingRate)
        try b.configure(sharing: Self.folderID, with: a, receivingRate: receivingRate)
        try a.start()
        try b.start()
        try await waitUntilConnected()
    }

    deinit { stop() }

    /// Kills both machines (SIGKILL, by pid) and waits until they are gone.
    public func stop() {
        a.kill()
        b.kill()
    }

    /// Waits until each machine is connected to the other, at most `seconds`.
    public func waitUntilConnected(within seconds: Double = 30) async throws {
        let connected = try await eventually(within: seconds) {
            (try? a.isConnected(to: b.deviceID)) == true && (try? b.isConnected(to: a.deviceID)) == true
        }
        guard connected else { throw SyncthingFailure.notConnected(seconds: seconds, log: "a: \(a.lastLogLine) b: \(b.lastLogLine)") }
    }

    /// Starts `machine` again after its ``SyncthingMachine/kill()`` and waits until the two are connected.
    public func restart(_ machine: SyncthingMachine, within seconds: Double = 30) async throws {
        try machine.start(within: seconds)
        try await waitUntilConnected(within: seconds)
    }

    /// Cuts the connection between the machines (`a` pauses `b`, as a network down would) and waits until neither
    /// sees the other: changes made now on both sides meet only at ``reconnect()``.
    public func disconnect(within seconds: Double = 30) async throws {
        try a.pause(true, device: b.deviceID)
        let apart = try await eventually(within: seconds) {
            try !a.isConnected(to: b.deviceID) && !b.isConnected(to: a.deviceID)
        }
        guard apart else { throw SyncthingFailure.notConnected(seconds: seconds, log: "still connected after a paused b") }
    }

    /// Connects the machines again after ``disconnect()`` and waits until they are.
    public func reconnect(within seconds: Double = 30) async throws {
        try a.pause(false, device: b.deviceID)
        try await waitUntilConnected(within: seconds)
    }

    /// Scans the shared folder on both machines now (see ``SyncthingMachine/scan(_:)``).
    public func scan() throws {
        try a.scan(Self.folderID)
        try b.scan(Self.folderID)
    }

    /// Waits until the two folders hold the same: each machine has scanned its folder, pulled all it needs and knows
    /// the other has, and the two folders hold the same files with the same bytes (the folder marker and Syncthing's
    /// temporary files aside). At most `seconds`; then throws ``SyncthingFailure/notInSync(seconds:difference:)`` with
    /// what was still out of step.
    public func waitUntilInSync(within seconds: Double = 30) async throws {
        var difference = ""
        let inSync = try await eventually(within: seconds) {
            difference = outOfStep()
            return difference.isEmpty
        }
        guard inSync else { throw SyncthingFailure.notInSync(seconds: seconds, difference: difference) }
    }

    /// What keeps the folders apart now, in a few words each, or "" when they are in sync.
    private func outOfStep() -> String {
        var differences: [String] = []
        for (machine, other) in [(a, b), (b, a)] {
            do {
                // A change reaches Syncthing's index only once scanned: scan first, so what is on disk now counts.
                try machine.scan(Self.folderID)
                let status = try machine.status(of: Self.folderID)
                if status.state != "idle" { differences.append("\(machine.name) is \(status.state)") }
                if status.needTotalItems > 0 { differences.append("\(machine.name) needs \(status.needTotalItems) items") }
                if status.pullErrors > 0 { differences.append("\(machine.name) failed to pull \(status.pullErrors) items") }
                let completion = try machine.completion(of: Self.folderID, on: other.deviceID)
                let needed = completion.needItems + completion.needDeletes
                if needed > 0 {
                    differences.append("\(machine.name) sees \(other.name) needing \(needed) items (\(completion.needBytes) bytes)")
                }
            } catch {
                differences.append("\(error)")
            }
        }
        guard differences.isEmpty else { return differences.joined(separator: "; ") }
        let (onA, onB) = (Self.contents(of: a.folder), Self.contents(of: b.folder))
        let onlyA = Set(onA.keys).subtracting(onB.keys).sorted()
        let onlyB = Set(onB.keys).subtracting(onA.keys).sorted()
        let unlike = Set(onA.keys).intersection(onB.keys).filter { onA[$0] != onB[$0] }.sorted()
        if !onlyA.isEmpty { differences.append("only in a: \(onlyA.joined(separator: ", "))") }
        if !onlyB.isEmpty { differences.append("only in b: \(onlyB.joined(separator: ", "))") }
        if !unlike.isEmpty { differences.append("different bytes: \(unlike.joined(separator: ", "))") }
        return differences.joined(separator: "; ")
    }

    /// The paths in `folder` (relative to it) and each file's bytes (nil for a directory), without the folder marker
    /// `.stfolder` and Syncthing's temporary files (`.syncthing.NAME.tmp`), which are never synced.
    static func contents(of folder: URL) -> [String: Data?] {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        var contents: [String: Data?] = [:]
        for path in paths where path != ".stfolder" && !path.hasPrefix(".stfolder/") {
            let name = (path as NSString).lastPathComponent
            guard !(name.hasPrefix(".syncthing.") && name.hasSuffix(".tmp")) else { continue }
            var isDirectory: ObjCBool = false
            let file = folder.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else { continue }
            contents[path] = isDirectory.boolValue ? .some(nil) : .some(try? Data(contentsOf: file))
        }
        return contents
    }
}

#if canImport(Testing)
import Testing

/// The pair itself, as the store's tests will use it: a file crosses, a change on both sides leaves a conflict copy,
/// a transfer killed mid-file ends whole after a restart. One pair at a time: each is two processes hashing and
/// encrypting on a machine of two cores.
@Suite(.serialized, .timeLimit(.minutes(1))) struct SyncthingPairTests {
    @Test func aFileWrittenOnOneMachineArrivesOnTheOtherWithTheSameBytes() async throws {
        let scratch = try ScratchDirectory()
        let pair = try await SyncthingPair(sharing: scratch.file("a"), and: scratch.file("b"), homesIn: scratch.url)
        var generator = SeededGenerator(seed: 7)
        let bytes = Data((0..<100_000).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        try FileManager.default.createDirectory(at: pair.a.folder.appendingPathComponent("memos"), withIntermediateDirectories: true)
        try bytes.write(to: pair.a.folder.appendingPathComponent("memos/one.opus"))
        try await pair.waitUntilInSync()
        #expect(try Data(contentsOf: pair.b.folder.appendingPathComponent("memos/one.opus")) == bytes)
        #expect(FileManager.default.fileExists(atPath: pair.b.folder.appendingPathComponent(".stfolder").path))
        pair.stop()
        #expect(!pair.a.isRunning && !pair.b.isRunning)
        #expect(!Loopback.accepts(port: pair.a.guiPort) && !Loopback.accepts(port: pair.b.guiPort))
    }

    @Test func aFileChangedOnBothMachinesApartLeavesOneConflictCopyOnBoth() async throws {
        let scratch = try ScratchDirectory()
        let pair = try await SyncthingPair(sharing: scratch.file("a"), and: scratch.file("b"), homesIn: scratch.url)
        let (onA, onB) = (pair.a.folder.appendingPathComponent("memo.txt"), pair.b.folder.appendingPathComponent("memo.txt"))
        try Data("first\n".utf8).write(to: onA)
        try await pair.waitUntilInSync()
        try await pair.disconnect()
        try Data("changed on a\n".utf8).write(to: onA)
        try Data("changed on b, longer\n".utf8).write(to: onB)
        try pair.scan()
        // Apart, they are out of step, and the wait says how.
        let apart = await #expect(throws: SyncthingFailure.self) { try await pair.waitUntilInSync(within: 1) }
        #expect("\(apart.map { "\($0)" } ?? "")".contains("a sees b needing 1 items"), "\(String(describing: apart))")
        try await pair.reconnect()
        try await pair.waitUntilInSync()

        let copies = pair.a.conflictCopies()
        #expect(copies.count == 1 && pair.b.conflictCopies() == copies, "\(copies) \(pair.b.conflictCopies())")
        let copy = try #require(copies.first)
        let kept = try String(contentsOf: onA, encoding: .utf8)
        let lost = try String(contentsOf: pair.a.folder.appendingPathComponent(copy), encoding: .utf8)
        #expect([kept, lost].sorted() == ["changed on a\n", "changed on b, longer\n"])
        // Named with the device that made the version that won.
        let winner = kept == "changed on a\n" ? pair.a : pair.b
        let device = copy.wholeMatch(of: /memo\.sync-conflict-[0-9]{8}-[0-9]{6}-([A-Z0-9]{7})\.txt/)?.output.1
        #expect(device == Substring(winner.shortDeviceID), "\(copy)")
    }

    @Test func aTransferKilledMidFileEndsWholeAfterARestart() async throws {
        let scratch = try ScratchDirectory()
        let pair = try await SyncthingPair(sharing: scratch.file("a"), and: scratch.file("b"), homesIn: scratch.url, receivingRate: 4000)
        var generator = SeededGenerator(seed: 20)
        let bytes = (0..<2_500_000).map { _ in generator.next() }.withUnsafeBytes { Data($0) }
        try bytes.write(to: pair.a.folder.appendingPathComponent("long.opus"))
        try pair.a.scan(SyncthingPair.folderID)
        let temporary = pair.b.temporaryFile(for: "long.opus")
        #expect(try await eventually(within: 20) { FileManager.default.fileExists(atPath: temporary.path) })

        #expect(pair.b.kill(), "b was not running when killed")
        // Nothing of b runs on: no one answers on its ports.
        #expect(!Loopback.accepts(port: pair.b.guiPort) && !Loopback.accepts(port: pair.b.listenPort))
        #expect(FileManager.default.fileExists(atPath: temporary.path))
        #expect(!FileManager.default.fileExists(atPath: pair.b.folder.appendingPathComponent("long.opus").path))
        try await pair.restart(pair.b)
        try await pair.waitUntilInSync(within: 40)
        #expect(try Data(contentsOf: pair.b.folder.appendingPathComponent("long.opus")) == bytes)
        #expect(!FileManager.default.fileExists(atPath: temporary.path))
    }
}
#endif
