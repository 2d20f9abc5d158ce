import Foundation
import TestSupport
import Testing

/// `voicememo meter`, and the live meter `record` and `meter` draw on a terminal (a pseudo-terminal made
/// by `script`), on a PulseAudio null sink's monitor.
@Suite(.timeLimit(.minutes(1))) struct MeterTests {
    /// Runs `command` (a shell command line) on a pseudo-terminal of 100 columns, with `NO_COLOR` set
    /// or not, and returns what the terminal received.
    func onTerminal(_ command: String, _ cli: CLI, with environment: [String: String], noColor: Bool) throws -> String {
        var environment = cli.environment.merging(environment) { $1 }
        environment["VOICEMEMO"] = CLI.binary
        environment["NO_COLOR"] = noColor ? "1" : nil
        let result = try Tool.run("script", ["-qec", "stty cols 100; " + command, "/dev/null"], environment: environment)
        #expect(result.status == 0, "\(result.standardOutput)")
        return result.standardOutput
    }

    @Test func theMeterPrintsTheLevelsOfWhatPlaysAsJSONLinesOrPlainLines() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let silent = try cli.run(["meter", "--device", "pulse", "--duration", "0.3"], with: try server.environment)
            #expect(silent.status == 0 && silent.standardError.isEmpty)
            let lines = silent.standardOutput.split(separator: "\n")
            #expect((3...4).contains(lines.count) && lines.first == "0:00.1  peak -160.0, -160.0 dBFS  average -160.0, -160.0 dBFS")

            let tone = cli.scratch.path("tone.wav")
            try Sox.synth(to: tone, rate: 48000, channels: 2, seconds: 60, "sine 1000")
            let player = try Tool.start("aplay", ["-q", "-D", "pulse", tone], environment: try server.environment)
            defer { player.kill() }
            let result = try cli.run(["meter", "--device", "pulse", "--duration", "1", "--json"], with: try server.environment)
            #expect(result.status == 0 && result.standardError.isEmpty)
            let readings = try result.standardOutput.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect((9...11).contains(readings.count))
            #expect(Set(readings.flatMap(\.keys)) == ["time", "peakDBFS", "averageDBFS"])
            // The tone may reach the sink a little after the meter starts, and a busy machine may hold aplay
            // back: readings of the whole tone, of silence, and of both in between are all fine.
            let inTone = readings.filter { reading in
                let peaks = reading["peakDBFS"] as? [Double] ?? []
                let averages = reading["averageDBFS"] as? [Double] ?? []
                return peaks.count == 2 && peaks.allSatisfy { abs($0 + 6.02) < 0.1 } && averages.allSatisfy { abs($0 + 9.03) < 0.1 }
            }
            #expect(inTone.count >= 3, "\(result.standardOutput)")
            let times = readings.compactMap { $0["time"] as? Double }
            #expect(times == times.sorted() && times.count == readings.count && times.last ?? 0 >= 1)
        }
    }

    @Test func onATerminalTheMeterIsRedrawnInPlaceWithoutColorWhenNoColorIsSet() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let screen = try onTerminal(#""$VOICEMEMO" meter --device pulse --duration 0.4"#, cli, with: try server.environment, noColor: true)
            // Cursor hidden, then each redraw goes back up over the two channel lines and the status line.
            #expect(screen.hasPrefix("\u{1B}[?25l"))
            #expect(screen.components(separatedBy: "\u{1B}[3F").count >= 5)
            #expect(screen.contains("\u{1B}[2KL ·") && screen.contains("\u{1B}[2KR ·") && screen.contains("\u{1B}[2KMETER  pulse  0:00."))
            #expect(screen.contains("-160.0 peak -160.0 avg dBFS"))
            #expect(!screen.contains("\u{1B}[0m") && !screen.contains("\u{1B}[2m"))
            #expect(screen.hasSuffix("\u{1B}[?25h"))
        }
    }

    @Test func ctrlCDuringARecordingOnATerminalFinishesTheMemoAndRestoresTheTerminal() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let screen = try onTerminal(
                #"stty -a | grep -o ' -\?icanon\| -\?echo '; timeout --foreground --preserve-status -s INT 1.5 "$VOICEMEMO" record --device pulse --title Live; echo "status $?"; stty -a | grep -o ' -\?icanon\| -\?echo '"#,
                cli, with: try server.environment, noColor: false)
            // Colors on; the REC status line; the cursor back and the memo reported; the terminal as it was.
            #expect(screen.contains("\u{1B}[2m") && screen.contains("\u{1B}[2K● REC  Live  0:00."))
            #expect(screen.contains("\u{1B}[?25hRecorded “Live” as "))
            #expect(screen.contains("status 0"))
            let modes = screen.components(separatedBy: "\r\n").filter { $0 == " icanon" || $0 == " echo " || $0 == " -icanon" || $0 == " -echo " }
            #expect(modes == [" icanon", " echo ", " icanon", " echo "], "\(modes)")
            let memo = try cli.json(try cli.run("info", "Live", "--json"))
            #expect(memo["state"] as? String == "complete" && (memo["duration"] as? Double ?? 0) > 0)
        }
    }
}
