import Foundation
import TestSupport
import Testing

/// A reader that goes away ends the output, never the command: `voicememo … | head` never kills voicememo
/// with SIGPIPE, a recording goes on to its end and its memo is finished.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct BrokenPipeTests {
    /// Runs `voicememo arguments…` into `head -c 1`, in bash with `pipefail` off, and returns voicememo's
    /// own exit status (bash's PIPESTATUS) and what it wrote on stderr.
    func runIntoHead(_ cli: CLI, _ arguments: [String], environment: [String: String]) throws -> (status: Int32, standardError: String) {
        var environment = environment
        environment["VOICEMEMO"] = CLI.binary
        let script = #""$VOICEMEMO" "$@" 2>"$ERRORS" | head -c 1 >/dev/null; exit "${PIPESTATUS[0]}""#
        let errors = cli.scratch.path("errors-\(UUID().uuidString)")
        environment["ERRORS"] = errors
        let result = try Tool.run("bash", ["-c", script, "voicememo"] + arguments, environment: environment)
        return (result.status, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    @Test func aRecordingIntoAClosedPipeRecordsItsWholeDurationAndKeepsTheMemo() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            // Off a terminal, record prints a line when it starts and one a second: the second goes into the closed pipe.
            let run = try runIntoHead(cli, ["record", "--device", "pulse", "--duration", "2.5", "--title", "Piped"],
                                      environment: try server.environment.merging(cli.environment) { $1 })
            #expect(run.status == 0 && run.standardError.isEmpty, "status \(run.status): \(run.standardError)")
            let memos = try JSONSerialization.jsonObject(with: Data(try cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
            let memo = try #require(memos?.first)
            #expect(memo["title"] as? String == "Piped" && memo["state"] as? String == "complete")
            #expect(try Sox.info(try #require(memo["file"] as? String)).frames == 120_000)
        }
    }

    @Test func aListLongerThanThePipeIntoAClosedPipeEndsQuietly() throws {
        let cli = try CLI()
        let seed = try #require(try cli.json(cli.run("info", cli.importTone(title: "Seed", seconds: 0.05), "--json"))["file"] as? String)
        // More than a pipe holds (64 KiB): the reader is gone before the list is written.
        for number in 0..<400 {
            try FileManager.default.copyItem(atPath: seed, toPath: cli.home.appendingPathComponent(String(format: "%012x.wav", 0xB0_0000_0000 + number)).path)
        }
        for arguments in [["list"], ["list", "--json"]] {
            let list = try runIntoHead(cli, arguments, environment: cli.environment)
            #expect(list.status == 0 && list.standardError.isEmpty, "\(arguments): status \(list.status): \(list.standardError)")
        }
    }
}
