import Foundation
import Glibc
import TestSupport
import Testing

/// `play` and `record` on a pseudo-terminal stopped with Ctrl-Z and continued as `fg` does (SIGCONT), and ended
/// by SIGTERM or by the terminal closing (SIGHUP): the terminal is the shell's while they are stopped and once they
/// end, theirs again after `fg`, with the keys working; a recording ended by a signal is kept.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct JobControlTests {
    typealias Display = TerminalDisplayTests

    /// Whether the cursor is shown, by the last show (`ESC [ ? 25 h`) or hide (`ESC [ ? 25 l`) written.
    static func cursorIsShown(_ screen: String) -> Bool? {
        guard let last = screen.range(of: "\u{1B}[?25", options: .backwards) else { return nil }
        return screen[last.upperBound...].first == "h"
    }

    /// Whether the program is stopped (state `T` in `/proc`).
    static func isStopped(_ terminal: PseudoTerminal) -> Bool { DevicesTests.state(of: terminal.pid) == "T" }

    /// The state and elapsed time of each status line of a recording titled `title` on `screen`, oldest first, e.g.
    /// `● REC  Keys  0:01.2  96 KB`.
    static func recordingStatuses(_ screen: String, title: String) -> [(isRecording: Bool, elapsed: Double)] {
        Display.frames(screen, height: 2).compactMap { frame -> (Bool, Double)? in
            guard let line = frame.last,
                  let match = line.wholeMatch(of: #/(● REC|⏸ PAUSED)  (.+?)  (\d+):(\d\d\.\d)  [\d.]+ K?B/#),
                  match.2 == title, let minutes = Double(match.3), let seconds = Double(match.4)
            else { return nil }
            return (match.1 == "● REC", minutes * 60 + seconds)
        }
    }

    /// Types Ctrl-Z and checks what the shell then gets: the program stopped, its modes, a cursor; then continues
    /// it as `fg` does and checks that the program took the terminal again.
    static func stopAndContinue(_ terminal: PseudoTerminal) {
        #expect(terminal.waitForExit(timeout: 0) == nil && !isStopped(terminal), "running when Ctrl-Z is typed")
        terminal.type("\u{1A}")
        #expect(terminal.wait(until: { isStopped(terminal) }, timeout: 10), "stopped by Ctrl-Z")
        #expect(terminal.localModes == terminal.initialModes, "the shell gets its modes back")
        // Written before it stopped; maybe not read yet.
        #expect(terminal.read(until: { cursorIsShown($0) == true }, timeout: 5), "and the cursor")
        kill(terminal.pid, SIGCONT)
        #expect(terminal.wait(until: { !isStopped(terminal) && terminal.localModes & Display.rawModes == 0 }, timeout: 10),
                "after fg, keys are taken one by one, unechoed, again")
        #expect(terminal.read(until: { cursorIsShown($0) == false }, timeout: 10), "and the cursor hidden")
    }

    @Test func ctrlZGivesPlayTheShellsTerminalBackAndFgTakesItAgainWithItsKeys() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            _ = try cli.importTone(title: "Tone", seconds: 20)
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Tone", "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
            func state() -> (isPlaying: Bool, position: Double)? {
                Display.frames(play.screen, height: 3).compactMap { Display.playback($0, title: "Tone") }.last
            }
            #expect(play.read(until: { _ in state().map { $0.isPlaying && $0.position >= 0.3 } ?? false }, timeout: 10))
            #expect(play.localModes & Display.rawModes == 0)

            Self.stopAndContinue(play)
            #expect(play.screen.contains("stopped (Ctrl-Z) — playback paused; fg resumes it"))
            #expect(play.read(until: { _ in state()?.isPlaying == true }, timeout: 10), "playing again after fg")
            play.type(" ")
            #expect(play.read(until: { _ in state()?.isPlaying == false }, timeout: 5), "space pauses: the keys work")
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
            #expect(play.localModes == play.initialModes && Self.cursorIsShown(play.screen) == true)
        }
    }

    @Test func ctrlZAndFgWorkForTheMeterToo() async throws {
        try await PulseAudioServer.exclusive { server in
            let meter = try PseudoTerminal(CLI.binary, ["meter", "--device", "pulse"], environment: try server.environment)
            #expect(meter.read(until: { Display.frames($0, height: 3).count > 2 }, timeout: 10))
            Self.stopAndContinue(meter)
            let redrawn = meter.screen.count
            #expect(meter.read(until: { Display.frames(String($0.dropFirst(redrawn)), height: 3).count > 2 }, timeout: 10), "drawing again")
            meter.type("\u{03}")
            #expect(meter.waitForExit(timeout: 10) == 0)
            #expect(meter.localModes == meter.initialModes && Self.cursorIsShown(meter.screen) == true)
        }
    }

    @Test(arguments: ["q", "\r"])
    func recordTakesSpaceToPauseAndResumeAndQOrEnterToStopKeepingTheMemo(stopKey: String) async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let sine = try server.playSine(frequency: 1000)
            defer { sine.stop() }
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Keys"],
                environment: cli.environment.merging(try server.environment) { $1 })
            /// The status line's state and elapsed time, e.g. `● REC  Keys  0:01.2  96 KB`.
            func status() -> (isRecording: Bool, elapsed: Double)? { Self.recordingStatuses(record.screen, title: "Keys").last }
            #expect(record.read(until: { _ in status().map { $0.isRecording && $0.elapsed >= 0.5 } ?? false }, timeout: 10), "\(record.screen.suffix(500))")

            // Space pauses: the status line says so and the time stands still; space again records on.
            record.type(" ")
            #expect(record.read(until: { _ in status()?.isRecording == false }, timeout: 5), "\(record.screen.suffix(500))")
            let pausedAt = try #require(status()).elapsed
            record.read(until: { _ in false }, timeout: 0.5)
            #expect(status().map { !$0.isRecording && $0.elapsed == pausedAt } == true)
            if stopKey == "\r" {
                // Ctrl-Z and fg leave a pause made with space as it was, and say so.
                Self.stopAndContinue(record)
                #expect(record.read(until: { $0.contains("recording still paused; space resumes it") }, timeout: 5))
                #expect(record.screen.contains("stopped (Ctrl-Z) — recording stays paused"))
                record.read(until: { _ in false }, timeout: 0.5)
                #expect(status().map { !$0.isRecording && $0.elapsed == pausedAt } == true)
            }
            record.type(" ")
            #expect(record.read(until: { _ in status().map { $0.isRecording && $0.elapsed > pausedAt + 0.3 } ?? false }, timeout: 5))

            if stopKey == "q" { Self.stopAndContinue(record) }
            #expect(record.read(until: { _ in status()?.isRecording == true }, timeout: 10))
            let lastShown = try #require(status()).elapsed
            record.type(stopKey)
            #expect(record.waitForExit(timeout: 10) == 0)
            #expect(record.localModes == record.initialModes && record.screen.contains("\u{1B}[?25hRecorded “Keys” as "))
            let memo = try cli.json(try cli.run("info", "Keys", "--json"))
            let duration = try #require(memo["duration"] as? Double)
            #expect(memo["state"] as? String == "complete")
            // What was shown last (rounded to a tenth), and the moment until the key took effect: not the paused
            // half second.
            #expect(duration >= lastShown - 0.05 && duration < lastShown + 0.5, "\(duration) s recorded, \(lastShown) s shown last")
        }
    }

    /// Ctrl-Z pauses a recording where it stands: every frame drawn from then on, the one left on the screen while it
    /// is stopped included, shows the time recorded so far, and after `fg` it records on from there.
    @Test func ctrlZAndFgKeepTheRecordingsTimeOnTheStatusLine() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let sine = try server.playSine(frequency: 1000)
            defer { sine.stop() }
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Kept"],
                environment: cli.environment.merging(try server.environment) { $1 })
            func statuses(_ screen: String) -> [(isRecording: Bool, elapsed: Double)] { Self.recordingStatuses(screen, title: "Kept") }
            #expect(record.read(until: { statuses($0).last.map { $0.isRecording && $0.elapsed >= 0.8 } ?? false }, timeout: 10))
            let before = try #require(statuses(record.screen).last).elapsed
            let framesBefore = statuses(record.screen).count
            Self.stopAndContinue(record)
            #expect(record.read(until: { statuses($0).last.map { $0.isRecording && $0.elapsed > before + 0.3 } ?? false }, timeout: 10))
            record.type("q")
            #expect(record.waitForExit(timeout: 10) == 0)
            // The last frame too, drawn as q stops the recording, stays on the screen above the summary.
            let after = statuses(record.screen).dropFirst(framesBefore)
            #expect(!after.isEmpty && after.allSatisfy { $0.elapsed >= before }, "frames after Ctrl-Z: \(after.map { "\($0.isRecording ? "REC" : "PAUSED") \($0.elapsed)" })")
        }
    }

    @Test func recordWithoutAMeterStillTakesItsKeysFromTheTerminal() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Quiet", "--json"],
                environment: cli.environment.merging(try server.environment) { $1 })
            #expect(record.wait(until: { record.localModes & Display.rawModes == 0 }, timeout: 10), "keys taken one by one, unechoed")
            // A fifth of a second of audio in the file (16-bit mono at 48 kHz: 19,200 bytes), then q.
            #expect(record.wait(until: {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: cli.home.path)) ?? []
                return files.contains { $0.hasSuffix(".wav") && ((try? FileManager.default.attributesOfItem(
                    atPath: cli.home.appendingPathComponent($0).path)[.size] as? Int) ?? 0) > 20_000 }
            }, timeout: 10))
            record.type("q")
            #expect(record.waitForExit(timeout: 10) == 0)
            #expect(record.localModes == record.initialModes)
            #expect(!record.screen.contains("\u{1B}[?25"), "nothing drawn, the cursor left alone")
            let memo = try cli.json(try cli.run("info", "Quiet", "--json"))
            #expect(memo["state"] as? String == "complete" && (memo["duration"] as? Double ?? 0) >= 0.2, "\(memo)")
            #expect(record.screen.contains("\"id\":\"\(memo["id"] as? String ?? "?")\""), "\(record.screen)")
        }
    }

    /// How a test ends the program: a signal sent to it, or the terminal closed.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case sigterm, terminalClosed
        var testDescription: String { rawValue }
    }

    @Test(arguments: Ending.allCases)
    func sigtermOrAClosedTerminalEndsARecordingWithTheMemoKept(ending: Ending) async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Cut"],
                environment: cli.environment.merging(try server.environment) { $1 })
            #expect(record.read(until: { (Display.frames($0, height: 2).last?.last?.wholeMatch(of: #/● REC  Cut  0:00\.[5-9]  [\d.]+ K?B/#)) != nil }, timeout: 10))
            #expect(record.waitForExit(timeout: 0) == nil, "still recording when it is ended")
            switch ending {
            case .sigterm:
                kill(record.pid, SIGTERM)
                #expect(record.waitForExit(timeout: 10) == 0)
                #expect(record.localModes == record.initialModes)
                #expect(record.screen.contains("\u{1B}[?25hRecorded “Cut” as "), "\(record.screen.suffix(300))")
            case .terminalClosed:
                record.hangUp()
                #expect(record.waitForExit(timeout: 10) == 0)
            }
            let memo = try cli.json(try cli.run("info", "Cut", "--json"))
            #expect(memo["state"] as? String == "complete")
            // At least what was shown (0:00.5 or more, to a tenth) less a device period still on its way.
            #expect((memo["duration"] as? Double ?? 0) >= 0.3, "\(memo)")
        }
    }

    @Test(arguments: [(SIGTERM, 143), (SIGHUP, 129)] as [(Int32, Int32)])
    func aSignalStopsPlayWithTheShellsExitCodeAndRestoresTheTerminal(signal: Int32, status: Int32) async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            _ = try cli.importTone(title: "Loop", seconds: 1)
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Loop", "--loops", "-1", "--device", "pulse"],
                environment: cli.environment.merging(try server.environment) { $1 })
            #expect(play.read(until: { Display.frames($0, height: 3).compactMap { Display.playback($0, title: "Loop") }.count > 2 }, timeout: 10))
            #expect(play.waitForExit(timeout: 0) == nil && play.localModes & Display.rawModes == 0)
            kill(play.pid, signal)
            #expect(play.waitForExit(timeout: 10) == status)
            #expect(play.localModes == play.initialModes && Self.cursorIsShown(play.screen) == true)
        }
    }
}
