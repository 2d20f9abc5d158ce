import Foundation
import MemoStore
import TestSupport
import Testing

/// The built `voicememo` binary, run as a person runs it, against a private store.
struct CLI {
    let scratch: ScratchDirectory
    let home: URL

    init() throws {
        scratch = try ScratchDirectory()
        home = scratch.file("store")
    }

    /// The binary beside the test bundle in the build's products directory.
    static let binary: String = {
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return tests.deletingLastPathComponent().appendingPathComponent("voicememo").path
    }()

    /// ``Tool/environment`` with `VOICEMEMO_HOME` set to this test's store, `XDG_CACHE_HOME` to a cache of its own
    /// (downloads of http addresses), `XDG_CONFIG_HOME` to settings of its own: the user's (a cache size, presets)
    /// change nothing, and `XDG_STATE_HOME` to a machine of its own.
    var environment: [String: String] {
        var environment = Tool.environment
        environment["VOICEMEMO_HOME"] = home.path
        environment["XDG_CACHE_HOME"] = cacheHome.path
        environment["XDG_CONFIG_HOME"] = configHome.path
        environment["XDG_STATE_HOME"] = stateHome.path
        return environment
    }

    /// This test's `XDG_STATE_HOME`: the machine's id and what it knows of the store are in `voicememo` in it.
    var stateHome: URL { scratch.file("state") }

    /// This machine's state of the store, in `stateHome`: its index `memos.json`, the index's journal `memos.journal`
    /// and cache `.memos.cache`, and `lock`, which every change of the store waits for.
    var storeState: URL { MemoStore.localStateDirectory(of: home, in: stateHome.appendingPathComponent("voicememo")) }

    /// This test's `XDG_CONFIG_HOME`.
    var configHome: URL { scratch.file("config") }

    /// This test's `XDG_CACHE_HOME`: the download cache is `voicememo/http` in it.
    var cacheHome: URL { scratch.file("cache") }

    /// Runs `voicememo arguments...` with `VOICEMEMO_HOME` set to this test's store; as `user`, another machine, with a
    /// state directory of that user's own.
    @discardableResult
    func run(_ arguments: String..., as user: String? = nil) throws -> ToolResult {
        if let user {
            let state = scratch.path("state-\(user)")
            try Tool.output("install", ["-d", "-m", "700", "-o", user, state])
            return try Tool.run("runuser", ["-u", user, "--", "env", "VOICEMEMO_HOME=\(home.path)", "XDG_STATE_HOME=\(state)", Self.binary] + arguments)
        }
        return try Tool.run(Self.binary, arguments, environment: environment)
    }

    /// Runs `voicememo arguments...` with `extra` added to the environment, e.g. a PulseAudio server's.
    @discardableResult
    func run(_ arguments: [String], with extra: [String: String]) throws -> ToolResult {
        try Tool.run(Self.binary, arguments, environment: environment.merging(extra) { $1 })
    }

    /// Starts `voicememo arguments...` with `extra` added to the environment and returns while it runs.
    func start(_ arguments: [String], with extra: [String: String]) throws -> RunningTool {
        try Tool.start(Self.binary, arguments, environment: environment.merging(extra) { $1 })
    }

    /// Starts `voicememo arguments...` against this test's store and returns while it runs.
    func start(_ arguments: String...) throws -> RunningTool {
        try Tool.start(Self.binary, arguments, environment: environment)
    }

    /// Imports a second of 5.1 as a memo titled `title`: each channel a sine of its own (300, 500, 700, 60 — the LFE,
    /// which encoders code only low —, 1100 and 1300 Hz) at a level of its own (0.3 × 1, 0.9, 0.8, 0.7, 0.6, 0.5), so
    /// that a channel in the wrong place shows. Returns the imported file's path.
    @discardableResult
    func importSixChannelSurround(title: String) throws -> String {
        let source = scratch.path("surround.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "6", "-b", "16", source, "synth", "1",
                                "sine", "300", "sine", "500", "sine", "700", "sine", "60", "sine", "1100", "sine", "1300",
                                "vol", "0.3", "remix", "1v1", "2v0.9", "3v0.8", "4v0.7", "5v0.6", "6v0.5"])
        #expect(try run("import", source, "--title", title).status == 0)
        return source
    }

    /// Imports a tone of `seconds` as a memo titled `title` and returns its id.
    func importTone(title: String, seconds: Double = 0.5, channels: Int = 1, format: String = "wav") throws -> String {
        let source = scratch.path("\(UUID().uuidString).wav")
        try Sox.synth(to: source, rate: 48000, channels: channels, seconds: seconds, "sine 440")
        let result = try run("import", source, "--title", title, "--format", format, "--json")
        guard result.status == 0, let id = try json(result)["id"] as? String else {
            throw ToolFailure(command: "voicememo import --title \(title)", result: result)
        }
        return id
    }

    /// The lines `voicememo arguments...` prints on standard output.
    func lines(_ arguments: String...) throws -> [String] {
        try Tool.run(Self.binary, arguments, environment: environment).standardOutput.split(separator: "\n").map(String.init)
    }

    /// Parses one JSON object printed on standard output.
    func json(_ result: ToolResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        return object as? [String: Any] ?? [:]
    }

    /// The index as it is on disk, byte for byte.
    var index: Data? { try? Data(contentsOf: storeState.appendingPathComponent("memos.json")) }
}

/// The binary the tests run, and the private store they run it against.
@Suite struct CLITests {
    @Test func theBinaryRunsAgainstThisTestsStoreOnly() throws {
        let cli = try CLI()
        let version = try cli.run("--version")
        #expect(version.status == 0 && version.standardOutput.hasPrefix("voicememo "))
        #expect(cli.environment["VOICEMEMO_HOME"] == cli.home.path && cli.environment["NO_COLOR"] == nil)
        let id = try cli.importTone(title: "Rig")
        #expect(try cli.lines("list").dropFirst().first?.hasPrefix(id) == true)
        #expect(FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("\(id).wav").path))
        #expect(cli.index != nil)
    }
}
