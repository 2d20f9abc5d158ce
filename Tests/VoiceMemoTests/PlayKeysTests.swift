import Foundation
import TestSupport
import Testing

/// `voicememo play` of memos in turn on a pseudo-terminal, its keys typed as a person types them, playing on the null
/// sink of a PulseAudio server of its own: the status line read back after each key.
@Suite(.timeLimit(.minutes(1)), .tags(.player)) struct PlayKeysTests {
    /// What `play`'s status line says of memos played in turn, e.g.
    /// `▶ One  0:03.2 / 0:40.0  1/3  sleep 15:00  0:00.0 saved`.
    struct QueueStatus {
        let isPlaying: Bool
        let title: String
        let position: Double
        let place: String
        let sleep: String?
        /// The time saved, shown while silence is skipped.
        let saved: String?

        init?(_ line: String) {
            guard let match = line.wholeMatch(
                    of: #/([▶⏸]) (.+)  (\d+):(\d\d\.\d) / \d+:\d\d\.\d  (\d+/\d+)(?:  sleep ([\d:]+))?(?:  ([\d:.]+) saved)?/#),
                let minutes = Double(match.3), let seconds = Double(match.4)
            else { return nil }
            (isPlaying, title, position, place, sleep, saved) = (
                match.1 == "▶", String(match.2), minutes * 60 + seconds, String(match.5), match.6.map(String.init), match.7.map(String.init))
        }
    }

    @Test func playInTurnTakesTheSkipNextPreviousSleepAndSkipSilenceKeys() async throws {
        try await PulseAudioServer.own { server in
            let cli = try CLI()
            for title in ["One", "Two", "Three"] { _ = try cli.importTone(title: title, seconds: 40) }
            let play = try PseudoTerminal(
                CLI.binary, ["play", "One", "Two", "Three", "--no-meter", "--device", "pulse"],
                environment: cli.environment.merging(try server.environment) { $1 })
            // Without the meter: the waveform of the memo heard over the status line.
            func shows(_ condition: @escaping (QueueStatus) -> Bool) -> (String) -> Bool {
                { screen in TerminalDisplayTests.frames(screen, height: 2).last.flatMap { QueueStatus($0[1]) }.map(condition) ?? false }
            }
            func status() throws -> QueueStatus { try #require(TerminalDisplayTests.frames(play.screen, height: 2).last.flatMap { QueueStatus($0[1]) }) }

            #expect(play.read(until: shows { $0.isPlaying && $0.title == "One" && $0.place == "1/3" && $0.position >= 0.5 }, timeout: 10),
                    "\(play.screen.suffix(500))")
            // Shift+→ (as xterm sends it), then , and . as a terminal without shifted arrows types them: 15 s each.
            var from = try status().position
            play.type("\u{1B}[1;2C")
            #expect(play.read(until: shows { abs($0.position - (from + 15)) < 0.6 }, timeout: 5), "from \(from): \(play.screen.suffix(300))")
            from = try status().position
            play.type(",")
            #expect(play.read(until: shows { abs($0.position - (from - 15)) < 0.6 }, timeout: 5), "from \(from): \(play.screen.suffix(300))")
            from = try status().position
            play.type(".")
            #expect(play.read(until: shows { abs($0.position - (from + 15)) < 0.6 }, timeout: 5), "from \(from): \(play.screen.suffix(300))")

            // n and p: the next memo from its start, and back.
            play.type("n")
            #expect(play.read(until: shows { $0.title == "Two" && $0.place == "2/3" && $0.position < 1 }, timeout: 5))
            play.type("p")
            #expect(play.read(until: shows { $0.title == "One" && $0.place == "1/3" && $0.position < 1 }, timeout: 5))

            // s: 15 minutes, then 30, 60, and off.
            play.type("s")
            #expect(play.read(until: shows { ["15:00", "14:59"].contains($0.sleep) }, timeout: 5), "\(play.screen.suffix(300))")
            play.type("ss")
            #expect(play.read(until: shows { ["1:00:00", "59:59"].contains($0.sleep) }, timeout: 5), "\(play.screen.suffix(300))")
            play.type("s")
            #expect(play.read(until: shows { $0.sleep == nil }, timeout: 5))

            // k: silence skipped in the memos in turn (a tone has none to skip), and no longer.
            #expect(try status().saved == nil)
            play.type("k")
            #expect(play.read(until: shows { $0.saved == "0:00.0" }, timeout: 5), "\(play.screen.suffix(300))")
            play.type("k")
            #expect(play.read(until: shows { $0.saved == nil }, timeout: 5))
            #expect(TerminalDisplayTests.frames(play.screen, height: 2).last?[0].contains("█") == true, "the waveform row")

            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
            #expect(play.localModes == play.initialModes)
        }
    }

    /// `]` and `[` go to the markers of the memo heard: the first's, then after `n` the second's.
    @Test func theMarkerKeysGoToTheMarkersOfTheMemoHeardInTurn() async throws {
        try await PulseAudioServer.own { server in
            let cli = try CLI()
            _ = try MarkerEditTests.importMarked(cli, title: "One", seconds: 20, markers: [(0, "Start"), (5, "A"), (10, "B")], format: "wav")
            _ = try MarkerEditTests.importMarked(cli, title: "Two", seconds: 20, markers: [(0, "Start"), (3, "C"), (12, "D")], format: "opus")
            let play = try PseudoTerminal(
                CLI.binary, ["play", "One", "Two", "--no-meter", "--device", "pulse"],
                environment: cli.environment.merging(try server.environment) { $1 })
            func at(_ title: String, _ time: Double) -> (String) -> Bool {
                { screen in
                    TerminalDisplayTests.frames(screen, height: 1).last.flatMap { QueueStatus($0[0]) }
                        .map { $0.title == title && $0.position >= time - 0.05 && $0.position < time + 0.6 } ?? false
                }
            }
            #expect(play.read(until: at("One", 0.2), timeout: 10), "\(play.screen.suffix(300))")
            // Back within a second of a marker goes to the one before it, as a player's "previous" does.
            for (key, title, time) in [("]", "One", 5.0), ("]", "One", 10), ("[", "One", 5), ("n", "Two", 0), ("]", "Two", 3),
                                       ("]", "Two", 12), ("[", "Two", 3)] {
                play.type(key)
                #expect(play.read(until: at(title, time), timeout: 5), "\(key) to \(title) \(time): \(play.screen.suffix(300))")
            }
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
        }
    }
}
