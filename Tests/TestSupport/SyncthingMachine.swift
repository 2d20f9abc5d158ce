import Foundation
import Synchronization

/// One Syncthing instance (Debian's `syncthing`, 1.19.2 here) standing for one machine: its own `--home` (keys,
/// configuration, database, `syncthing.log`), its GUI and REST API on 127.0.0.1, its sync protocol listening on
/// `tcp://127.0.0.1`, discovery, relays, NAT traversal, usage and crash reporting and upgrades off (DESIGN §7). It
/// shares one folder with one other machine; ``SyncthingPair`` makes two and introduces them.
///
/// It runs as one process and is stopped by its pid: ``kill()`` ends it as a crash would, ``start()`` brings it back
/// with the same home and ports. (`STMONITORED=yes` tells Syncthing it runs under its monitor already; else it starts
/// as a monitor process that runs Syncthing as its child, which a SIGKILL of the monitor leaves running.)
///
/// What Syncthing 1.19.2 leaves in a shared folder (seen here):
/// - `.stfolder/`, the folder marker, made at the first start.
/// - `.syncthing.NAME.tmp` beside `NAME` while `NAME` arrives (the whole size at once, filled block by block; a
///   transfer cut by a kill goes on from it at the next start, and a stale one is removed after 24 h).
/// - `NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE7.EXT` (e.g. `memo.sync-conflict-20261128-115425-KOMOSXO.txt`) when
///   both machines changed `NAME` before they met: the losing version, copied to every machine like any file, named
///   with the time the conflict was found and the first 7 characters of a device id (the machine whose version won).
public final class SyncthingMachine: Sendable {
    /// Its name in the tests and logs, e.g. "a".
    public let name: String
    /// Its device id, e.g. `KOMOSXO-C53JDYE-…`: 8 groups of 7 characters.
    public let deviceID: String
    /// The folder it shares.
    public let folder: URL
    /// Its `--home`: keys, `config.xml`, database and `syncthing.log`.
    public let home: URL
    /// The port of its GUI and REST API on 127.0.0.1.
    public let guiPort: Int
    /// The port of its sync protocol on 127.0.0.1.
    public let listenPort: Int
    /// The key the REST API asks for (`X-API-Key`).
    public let apiKey = "voicememo-\(UUID().uuidString)"
    private let pid = Mutex<pid_t?>(nil)

    /// Makes its home (keys and device id from `syncthing generate`) and picks its ports; it starts with ``start()``
    /// once ``configure(sharing:with:receivingRate:)`` has written its configuration.
    init(name: String, home: URL, folder: URL) throws {
        self.name = name
        self.home = home
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Tool.output("syncthing", ["generate", "--home", home.path, "--no-default-folder"])
        deviceID = try Tool.output("syncthing", ["--home", home.path, "--device-id"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let ports = try Loopback.freePorts(2)
        guiPort = ports[0]
        listenPort = ports[1]
    }

    deinit { kill() }

    /// The first 7 characters of ``deviceID``, as conflict copies are named.
    public var shortDeviceID: String { String(deviceID.prefix(7)) }

    /// Writes `config.xml`: this machine and `peer`, who share ``folder`` as `folderID`, each at its own address.
    ///
    /// - Parameter receivingRate: The most this machine receives, in KiB per second (even from 127.0.0.1), or nil for
    ///   no limit: a large file then takes long enough to arrive for a test to act mid-transfer.
    func configure(sharing folderID: String, with peer: SyncthingMachine, receivingRate: Int?) throws {
        // An element left out of config.xml is zero, not Syncthing's default (a missing `maxConflicts` makes no
        // conflict copies at all), so every setting that matters is written. Smallest files first: a memo's change file
        // arrives before its audio, as it would from a slow link, and is whole while the audio is on its way.
        let configuration = """
            <configuration version="36">
                <folder id="\(folderID)" label="\(folderID)" path="\(Self.escaped(folder.path))" type="sendreceive" \
            rescanIntervalS="3600" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true" \
            order="smallestFirst">
                    <device id="\(deviceID)"></device>
                    <device id="\(peer.deviceID)"></device>
                    <minDiskFree unit="%">0</minDiskFree>
                    <maxConflicts>10</maxConflicts>
                </folder>
                <device id="\(deviceID)" name="\(name)" compression="metadata"><address>dynamic</address></device>
                <device id="\(peer.deviceID)" name="\(peer.name)" compression="metadata">\
            <address>tcp://127.0.0.1:\(peer.listenPort)</address></device>
                <gui enabled="true" tls="false"><address>127.0.0.1:\(guiPort)</address><apikey>\(apiKey)</apikey></gui>
                <options>
                    <listenAddress>tcp://127.0.0.1:\(listenPort)</listenAddress>
                    <globalAnnounceEnabled>false</globalAnnounceEnabled>
                    <localAnnounceEnabled>false</localAnnounceEnabled>
                    <relaysEnabled>false</relaysEnabled>
                    <natEnabled>false</natEnabled>
                    <startBrowser>false</startBrowser>
                    <urAccepted>-1</urAccepted>
                    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
                    <crashReportingEnabled>false</crashReportingEnabled>
                    <reconnectionIntervalS>1</reconnectionIntervalS>
                    <minHomeDiskFree unit="%">0</minHomeDiskFree>
                    <setLowPriority>false</setLowPriority>
                    <keepTemporariesH>24</keepTemporariesH>
                    <maxRecvKbps>\(receivingRate ?? 0)</maxRecvKbps>
                    <limitBandwidthInLan>\(receivingRate != nil)</limitBandwidthInLan>
                </options>
            </configuration>
            """
        try configuration.write(to: home.appendingPathComponent("config.xml"), atomically: true, encoding: .utf8)
    }

    /// Starts it (after ``kill()``, with the same home and ports) and waits until its REST API answers, at most
    /// `seconds`.
    public func start(within seconds: Double = 30) throws {
        try pid.withLock { pid in
            guard pid == nil else { return }
            pid = try spawnServer(
                ["syncthing", "serve", "--home", home.path, "--no-browser", "--no-upgrade", "--no-default-folder"],
                environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": home.path, "STMONITORED": "yes"],
                log: home.appendingPathComponent("syncthing.log"))
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while (try? request("GET", "/rest/system/ping")) == nil {
            guard ContinuousClock.now < deadline, isRunning else {
                kill()
                throw SyncthingFailure.didNotStart(machine: name, seconds: seconds, log: lastLogLine)
            }
            usleep(50_000)
        }
    }

    /// Kills it with SIGKILL, as a crash or a power cut would (a transfer stops mid-file), and waits until it is gone.
    /// Returns whether it was running until then.
    @discardableResult
    public func kill() -> Bool {
        guard let pid = pid.withLock({ $0.take() }) else { return false }
        var status: Int32 = 0
        // Reaped already when it ended by itself: its pid may be another process's by now.
        guard waitpid(pid, &status, WNOHANG) == 0 else { return false }
        Glibc.kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        return true
    }

    /// Whether its process runs.
    public var isRunning: Bool {
        pid.withLock { pid in
            guard let pid else { return false }
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) == 0
        }
    }

    /// The file that stands for `path` (relative to ``folder``) while it arrives: `.syncthing.NAME.tmp` beside it.
    public func temporaryFile(for path: String) -> URL {
        let file = folder.appendingPathComponent(path)
        return file.deletingLastPathComponent().appendingPathComponent(".syncthing.\(file.lastPathComponent).tmp")
    }

    /// The conflict copies in ``folder`` (paths relative to it), sorted: files named `*.sync-conflict-*`.
    public func conflictCopies() -> [String] {
        SyncthingPair.contents(of: folder).keys.filter { $0.contains(".sync-conflict-") }.sorted()
    }

    /// Asks Syncthing to scan `folderID` now, returning when the scan is done: a change reaches the other machine only
    /// once scanned (the file watcher does it too, a second or more later).
    public func scan(_ folderID: String) throws {
        try request("POST", "/rest/db/scan?folder=\(folderID)")
    }

    /// Whether it is connected to the machine `deviceID` now.
    public func isConnected(to deviceID: String) throws -> Bool {
        let connections = try JSONDecoder().decode(Connections.self, from: request("GET", "/rest/system/connections"))
        return connections.connections[deviceID]?.connected ?? false
    }

    /// Pauses (`true`) or resumes its connection to `deviceID`: paused, it neither connects to that device nor accepts
    /// it, as if the network between them were down.
    func pause(_ paused: Bool, device deviceID: String) throws {
        try request("POST", "/rest/system/\(paused ? "pause" : "resume")?device=\(deviceID)")
    }

    /// Its view of `folderID`: `/rest/db/status`.
    func status(of folderID: String) throws -> FolderStatus {
        try JSONDecoder().decode(FolderStatus.self, from: request("GET", "/rest/db/status?folder=\(folderID)"))
    }

    /// What it knows `deviceID` still needs of `folderID`: `/rest/db/completion`.
    func completion(of folderID: String, on deviceID: String) throws -> Completion {
        try JSONDecoder().decode(Completion.self, from: request("GET", "/rest/db/completion?folder=\(folderID)&device=\(deviceID)"))
    }

    /// Sends a request to its REST API with curl and returns the body of a 200; throws for anything else.
    @discardableResult
    func request(_ method: String, _ path: String) throws -> Data {
        let result = try Tool.run("curl", [
            "-sS", "--max-time", "10", "-X", method, "-H", "X-API-Key: \(apiKey)", "-w", "\n%{http_code}",
            "http://127.0.0.1:\(guiPort)\(path)",
        ])
        var lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let code = lines.popLast().map(String.init) ?? ""
        guard result.status == 0, code == "200" else {
            let answer = (lines.joined(separator: " ") + result.standardError).trimmingCharacters(in: .whitespacesAndNewlines)
            throw SyncthingFailure.requestFailed(machine: name, request: "\(method) \(path)", answer: "\(code) \(answer)")
        }
        return Data(lines.joined(separator: "\n").utf8)
    }

    /// The last line of `syncthing.log`, for a failure message.
    var lastLogLine: String {
        let log = (try? String(contentsOf: home.appendingPathComponent("syncthing.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").last.map(String.init) ?? "(empty log)"
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// `/rest/system/connections`, the part read here.
    private struct Connections: Decodable {
        struct Connection: Decodable { let connected: Bool }
        let connections: [String: Connection]
    }

    /// `/rest/db/status`, the part read here.
    struct FolderStatus: Decodable {
        /// "idle" once it has nothing to scan or pull; "scanning", "syncing", "error" and others before.
        let state: String
        let needTotalItems: Int
        let pullErrors: Int
    }

    /// `/rest/db/completion`, the part read here.
    struct Completion: Decodable {
        let needItems: Int
        let needDeletes: Int
        let needBytes: Int
    }
}

/// What went wrong with the Syncthing machines of a test.
public enum SyncthingFailure: Error, CustomStringConvertible {
    /// The instance did not answer on its REST API in time, or exited.
    case didNotStart(machine: String, seconds: Double, log: String)
    /// A REST request did not get a 200.
    case requestFailed(machine: String, request: String, answer: String)
    /// The two machines did not connect in time.
    case notConnected(seconds: Double, log: String)
    /// The two folders were still out of step when the time was up.
    case notInSync(seconds: Double, difference: String)

    public var description: String {
        switch self {
        case .didNotStart(let machine, let seconds, let log):
            "syncthing \(machine) did not answer within \(seconds) s (see its syncthing.log): \(log)"
        case .requestFailed(let machine, let request, let answer):
            "syncthing \(machine) refused \(request): \(answer)"
        case .notConnected(let seconds, let log):
            "the syncthing machines did not connect within \(seconds) s (see their syncthing.log): \(log)"
        case .notInSync(let seconds, let difference):
            "the shared folders were not in sync after \(seconds) s: \(difference)"
        }
    }
}

#if canImport(Testing)
import Testing

/// One machine alone: it starts on its ports, answers its REST API, names its files as Syncthing does, and is gone
/// once killed.
@Suite(.timeLimit(.minutes(1))) struct SyncthingMachineTests {
    @Test func aMachineStartsAnswersAndIsGoneOnceKilled() throws {
        let scratch = try ScratchDirectory()
        let machine = try SyncthingMachine(name: "a", home: scratch.file("home"), folder: scratch.file("folder"))
        #expect(machine.deviceID.count == 63 && machine.shortDeviceID.count == 7)
        #expect(machine.guiPort != machine.listenPort)
        // Its configuration names a peer, which never starts here.
        let peer = try SyncthingMachine(name: "b", home: scratch.file("peer"), folder: scratch.file("peer-folder"))
        try machine.configure(sharing: "x", with: peer, receivingRate: nil)
        try machine.start()
        #expect(machine.isRunning && Loopback.accepts(port: machine.guiPort))
        #expect(try !machine.isConnected(to: peer.deviceID), "its peer never started")
        #expect(machine.temporaryFile(for: "memos/a.wav").path == scratch.path("folder/memos/.syncthing.a.wav.tmp"))
        #expect(machine.conflictCopies().isEmpty)
        #expect(machine.kill(), "it was running")
        #expect(!machine.isRunning && !Loopback.accepts(port: machine.guiPort))
        #expect(!machine.kill(), "nothing left to kill")
    }
}
#endif
