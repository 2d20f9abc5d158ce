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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty tool cannot block on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        DispatchQueue.global().async(group: group) { errorData = error.fileHandleForReading.readDataToEndOfFile() }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ToolResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }

    /// Runs `executable` and returns its standard output, throwing when it exits non-zero.
    @discardableResult
    public static func output(_ executable: String, _ arguments: [String]) throws -> String {
        let result = try run(executable, arguments)
        guard result.status == 0 else { throw ToolFailure(command: ([executable] + arguments).joined(separator: " "), result: result) }
        return result.standardOutput
    }
}

/// A tool that exited non-zero where the test needed it to succeed.
public struct ToolFailure: Error, CustomStringConvertible {
    public let command: String
    public let result: ToolResult
    public var description: String { "`\(command)` exited \(result.status): \(result.standardError)" }
}
