import AudioIO
import Foundation
import Glibc
import TestSupport
import Testing

/// Markers as a person drops them: `m` while `voicememo record` runs on a terminal (a PulseAudio null sink's monitor as
/// the input: a real clock), then `info`, the file, `play` with `[` and `]`; and an M4A recording killed mid-way.
@Suite(.timeLimit(.minutes(1)), .tags(.player)) struct MarkedRecordingTests {
    /// The head and time on `record`'s status line, e.g. `▼ MARKER 1  Marked  0:01.2  96 KB`.
    static func recording(_ frame: [String], title: String) -> (head: String, elapsed: Double)? {
        guard let match = frame.last?.prefixMatch(of: #/(● REC|▼ MARKER \d+|⏸ PAUSED)  (.+?)  (\d+):(\d\d\.\d)/#),
              match.2 == title, let minutes = Double(match.3), let seconds = Double(match.4)
        else { return nil }
        return (String(match.1), minutes * 60 + seconds)
    }

    /// Starts `record` on a terminal of its own and returns it, with a look at its last status line.
    private func startRecording(_ arguments: [String], title: String, cli: CLI, server: PulseAudioServer) throws
        -> (terminal: PseudoTerminal, last: () -> (head: String, elapsed: Double)?) {
        let terminal = try PseudoTerminal(
            CLI.binary, ["record", "--device", "pulse", "--title", title] + arguments,
            environment: cli.environment.merging(try server.environment) { $1 })
        return (terminal, { TerminalDisplayTests.frames(terminal.screen, height: 2).last.flatMap { Self.recording($0, title: title) } })
    }

    @Test func mDropsMarkersThatInfoListsTheFileKeepsAndPlayJumpsTo() async throws {
        try await PulseAudioServer.own { server in
            let cli = try CLI()
            let (record, last) = try startRecording([], title: "Marked", cli: cli, server: server)
            for (number, time) in [(1, 0.5), (2, 1.5)] {
                #expect(record.read(until: { _ in (last()?.elapsed ?? 0) >= time }, timeout: 10), "\(record.screen.suffix(300))")
                record.type("m")
                // The status line says so.
                #expect(record.read(until: { _ in last()?.head == "▼ MARKER \(number)" }, timeout: 5), "\(record.screen.suffix(300))")
            }
            #expect(record.read(until: { _ in last()?.head == "● REC" && (last()?.elapsed ?? 0) >= 2.3 }, timeout: 10))
            record.type("q")
            #expect(record.waitForExit(timeout: 10) == 0)
            #expect(record.screen.contains(", 2 markers"), "\(record.screen.suffix(300))")

            let memo = try cli.json(try cli.run("info", "Marked", "--json"))
            let markers = try #require(memo["markers"] as? [[String: Any]])
            let frames = markers.compactMap { $0["frame"] as? Int }
            let times = markers.compactMap { $0["time"] as? Double }
            #expect(frames.count == 2 && times == frames.map { Double($0) / 48000 })
            // Dropped once the display (rounded to a tenth) had said 0:00.5 and 0:01.5.
            #expect(times.count == 2 && times[0] >= 0.45 && times[0] < 1.5 && times[1] >= 1.45 && times[1] < 2.4, "\(times)")
            // The WAV file's cue points are the very frames.
            let file = try AudioFile(forReading: URL(fileURLWithPath: try #require(memo["file"] as? String)))
            #expect(file.metadata.markers.map { Int($0.framePosition) } == frames)
            let lines = try cli.lines("info", "Marked").prefix { $0 != "Waveform:" }
            #expect(lines.suffix(2).map { $0.prefix(4) } == ["  1 ", "  2 "] && lines.contains("Markers:        2"), "\(lines)")

            // ] jumps to the next marker, [ back to the one before (within a second of one, as "previous" does).
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Marked", "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
            func position() -> Double? {
                TerminalDisplayTests.frames(play.screen, height: 2).last.flatMap { TerminalDisplayTests.playback($0, title: "Marked")?.position }
            }
            func near(_ time: Double) -> (String) -> Bool {
                { _ in position().map { $0 >= time - 0.05 && $0 < time + 0.35 } ?? false }
            }
            #expect(play.read(until: { _ in position() != nil }, timeout: 10), "\(play.screen.suffix(300))")
            for (key, time) in [("]", times[0]), ("]", times[1]), ("[", times[0])] {
                play.type(key)
                #expect(play.read(until: near(time), timeout: 5), "\(key) to \(time): \(play.screen.suffix(300))")
            }
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
        }
    }

    @Test func aKilledM4ARecordingIsRecoveredWithItsMarkerAndPlaysAndExports() async throws {
        try await PulseAudioServer.own { server in
            let cli = try CLI()
            let (record, last) = try startRecording(["--format", "m4a"], title: "Killed", cli: cli, server: server)
            #expect(record.read(until: { _ in (last()?.elapsed ?? 0) >= 0.8 }, timeout: 10), "\(record.screen.suffix(300))")
            record.type("m")
            #expect(record.read(until: { _ in last()?.head == "▼ MARKER 1" }, timeout: 5))
            #expect(record.read(until: { _ in (last()?.elapsed ?? 0) >= 2.5 }, timeout: 10))
            let captured = try #require(last()).elapsed
            #expect(record.waitForExit(timeout: 0) == nil, "still recording when killed")
            kill(record.pid, SIGKILL)
            #expect(record.waitForExit(timeout: 10) == 128 + SIGKILL)

            let listed = try JSONSerialization.jsonObject(with: Data(try cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
            let memo = try #require(listed?.first)
            #expect(memo["state"] as? String == "recovered" && memo["format"] as? String == "aac")
            let duration = try #require(memo["duration"] as? Double)
            // Half-second fragments: within a second of what the display said was captured, and never more.
            #expect(duration > captured - 1 && duration <= captured + 0.3, "\(duration) s kept of \(captured) s captured")
            let markers = try #require(memo["markers"] as? [[String: Any]])
            let markerTime = try #require(markers.first?["time"] as? Double)
            #expect(markers.count == 1 && markerTime >= 0.75 && markerTime < duration, "\(markers)")

            // A whole M4A now: ffprobe reads AAC-LC of the memo's length; it plays, and exports.
            let file = try #require(memo["file"] as? String)
            let frames = Int((duration * 48000).rounded())
            let probed = try FFprobe.codec(of: file)
            #expect(probed.codec == "aac" && probed.profile == "LC" && probed.frames == frames)
            let played = try cli.run("play", "Killed", "--device", "null", "--json")
            let summary = try cli.json(played)
            #expect(played.status == 0 && summary["completed"] as? Bool == true, "\(played.standardError)")
            #expect(try cli.run("export", "Killed", cli.scratch.path("killed.wav")).status == 0)
            #expect(try Sox.info(cli.scratch.path("killed.wav")).frames == frames)
            #expect(try cli.run("export", "Killed", cli.scratch.path("killed.m4a")).status == 0)
            #expect(try FFprobe.codec(of: cli.scratch.path("killed.m4a")).frames == frames)
            #expect(try FFprobe.chapters(of: cli.scratch.path("killed.m4a")).map { ($0.start * 10).rounded() } == [0, (markerTime * 10).rounded()])
        }
    }
}
