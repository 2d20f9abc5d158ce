import Foundation

/// What a finished process left behind.
public struct ToolResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
}

/// Runs the command-line tools the tests check our files with (sox, soxi, opusinfo, opusdec) and our own
/// binary, the way a person would, and captures what they print.
public enum Tool {
    /// Runs `executable` (a name on `PATH` or a path) with `arguments`; never throws for a non-zero exit.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) throws -> ToolResult {
        try start(executable, arguments, environment: environment, input: input).finish()
    }

    /// Starts `executable` and returns at once, leaving it running in the background.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: Data? = nil
    ) throws -> RunningTool {
        try RunningTool(executable, arguments, environment: environment, input: input)
    }

    /// Runs `executable` and returns its standard output, throwing when it exits non-zero.
    @discardableResult
    public static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try run(executable, arguments)
        guard result.status == 0 else { throw ToolFailure(command: ([executable] + arguments).joined(separator: " "), result: result) }
        return result.standardOutput
    }
}

/// A tool running in the background: read what it prints as it goes, kill it, or wait for it to finish.
public final class RunningTool {
    private let process = Process()
    private let output = Pipe()
    private let error = Pipe()
    /// Standard output read by ``nextLine()`` beyond the lines it returned.
    private var unread = Data()

    init(_ executable: String, _ arguments: [String], environment: [String: String]?, input: Data?) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        if let environment { process.environment = environment }
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
    }

    /// Its process id, e.g. to read its state in `/proc`.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Whether it has not ended yet.
    public var isRunning: Bool { process.isRunning }

    /// The next line it prints on standard output, without the newline, waiting for it; `nil` when it
    /// ends first.
    public func nextLine() -> String? {
        while true {
            if let newline = unread.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: unread[..<newline], as: UTF8.self)
                unread.removeSubrange(...newline)
                return line
            }
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { return nil }
            unread.append(more)
        }
    }

    /// Sends it `signal`, e.g. `SIGINT` as Ctrl-C does, or `SIGTERM`; returns at once.
    public func send(_ signal: Int32) {
        Foundation.kill(process.processIdentifier, signal)
    }

    /// Kills it with SIGKILL, as a crash or the out-of-memory killer would, and waits until it is gone.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for it to end, reading what it prints, and returns its status and output.
    public func finish() -> ToolResult {
        // Read both pipes to the end before waiting, so a chatty tool cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        DispatchQueue.global().async(group: group) { [error] in errorData = error.fileHandleForReading.readDataToEndOfFile() }
        let outputData = unread + output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ToolResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}

/// A tool that exited non-zero where the test needed it to succeed.
public struct ToolFailure: Error, CustomStringConvertible {
    public let command: String
    public let result: ToolResult

    public init(command: String, result: ToolResult) {
        self.command = command
        self.result = result
    }

    public var description: String { "`\(command)` exited \(result.status): \(result.standardError)" }
}
