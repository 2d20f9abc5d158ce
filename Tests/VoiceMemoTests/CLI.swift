import Foundation
import TestSupport

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

    /// Runs `voicememo arguments...` with `VOICEMEMO_HOME` set to this test's store.
    @discardableResult
    func run(_ arguments: String..., as user: String? = nil) throws -> ToolResult {
        var environment = ProcessInfo.processInfo.environment
        environment["VOICEMEMO_HOME"] = home.path
        if let user { return try Tool.run("runuser", ["-u", user, "--", "env", "VOICEMEMO_HOME=\(home.path)", Self.binary] + arguments) }
        return try Tool.run(Self.binary, arguments, environment: environment)
    }

    /// Parses one JSON object printed on standard output.
    func json(_ result: ToolResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8))
        return object as? [String: Any] ?? [:]
    }

    /// The index as it is on disk, byte for byte.
    var index: Data? { try? Data(contentsOf: home.appendingPathComponent("memos.json")) }
}
