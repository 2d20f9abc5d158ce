import Foundation
import TestSupport
import Testing

/// Ctrl-C during a command that writes files in one go: it ends at once (130), and the file it was writing goes with
/// it, in the store and beside an export's destination alike; what it had finished stays.
@Suite(.timeLimit(.minutes(1))) struct InterruptedWriteTests {
    /// The hidden files being written in `directory`.
    static func partials(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".partial") }
    }

    /// Five minutes of seeded stereo noise: seconds of libopus's work in a debug build.
    static func longNoise(_ cli: CLI) throws -> String {
        let path = cli.scratch.path("long.wav")
        try Tool.output("sox", ["-R", "-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", "300", "pinknoise", "vol", "0.3"])
        return path
    }

    /// Starts `voicememo arguments`, waits until it is writing a `.partial` file in `directory`, then sends it SIGINT;
    /// returns how it ended.
    static func interrupt(_ cli: CLI, _ arguments: [String], whileWritingIn directory: URL) async throws -> ToolResult {
        let command = try cli.start(arguments, with: [:])
        let writing = try await eventually(within: 20) { !partials(in: directory).isEmpty || !command.isRunning }
        #expect(writing && command.isRunning, "interrupted while it writes")
        command.send(SIGINT)
        return command.finish()
    }

    @Test func ctrlCDuringAnImportLeavesNoPartialFileAndNoMemo() async throws {
        let cli = try CLI()
        let short = try cli.importTone(title: "Kept")
        let result = try await Self.interrupt(cli, ["import", try Self.longNoise(cli), "--format", "opus"], whileWritingIn: cli.home)
        #expect(result.status == 130, "\(result.standardError)")
        #expect(Self.partials(in: cli.home).isEmpty, "\(Self.partials(in: cli.home))")
        #expect(try cli.lines("list").dropFirst().map { String($0.prefix(12)) } == [String(short.prefix(12))])
    }

    @Test func ctrlCDuringAnExportLeavesNothingBesideTheDestination() async throws {
        let cli = try CLI()
        let id = try #require(try cli.json(cli.run("import", try Self.longNoise(cli), "--title", "Long", "--json"))["id"] as? String)
        let out = cli.scratch.file("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let result = try await Self.interrupt(cli, ["export", id, out.appendingPathComponent("long.opus").path], whileWritingIn: out)
        #expect(result.status == 130, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).isEmpty)
        #expect(try cli.lines("list").count == 2, "the memo stays")
    }
}
