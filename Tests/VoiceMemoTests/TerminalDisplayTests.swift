import Foundation
import Glibc
import TestSupport
import Testing

/// The live display of `voicememo meter` and `voicememo play` as a person sees it: the real binary on a
/// pseudo-terminal of 100 columns, with a known signal on a PulseAudio null sink (a tone played into it,
/// its monitor as the input). What the program draws is read back frame by frame; keys and Ctrl-C are
/// typed on the terminal.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct TerminalDisplayTests {
    /// One channel's line: `L ██████▒▒|···  -6.0 peak  -9.0 avg dBFS`.
    struct ChannelLine {
        let bar: [Character]
        let peak: Double
        let average: Double

        init?(_ line: String) {
            let words = line.split(separator: " ")
            // Silence reads -inf: the floor of the levels, -160 dBFS, here.
            func level(_ word: Substring) -> Double? { word == "-inf" ? -160 : Double(word) }
            guard words.count == 7, words[3] == "peak", words[5] == "avg", let peak = level(words[2]),
                let average = level(words[4])
            else { return nil }
            // Colors are escapes around the cells: what is left is the cells.
            bar = Array(words[1].replacing(#/\x1B\[\d+m/#, with: ""))
            self.peak = peak
            self.average = average
        }

        func isNear(peak expectedPeak: Double, average expectedAverage: Double) -> Bool {
            abs(peak - expectedPeak) < 0.1 && abs(average - expectedAverage) < 0.1
        }
    }

    /// The redraws on `screen` of a display of `height` lines: each goes back up over the last one
    /// (`ESC [ height F`) and redraws its lines, each cleared first (`ESC [ 2K`). Only complete frames.
    static func frames(_ screen: String, height: Int) -> [[String]] {
        screen.components(separatedBy: "\u{1B}[\(height)F").compactMap { frame in
            let lines = frame.components(separatedBy: "\r\n").dropLast()
            guard lines.count >= height else { return nil }
            return lines.suffix(height).map { $0.components(separatedBy: "\u{1B}[2K").last ?? $0 }
        }
    }

    /// Whether every redraw but the last (which may be cut short) ends where the next one goes back up
    /// from: `height` lines each, nothing printed between them, so the display stays in place and never
    /// scrolls. Take the screen before typing Ctrl-C: the terminal then throws away output not yet read.
    static func redrawsInPlace(_ screen: String, height: Int) -> Bool {
        let pieces = screen.components(separatedBy: "\u{1B}[\(height)F").dropLast()
        return pieces.count > 1 && pieces.allSatisfy { piece in
            let lines = piece.components(separatedBy: "\r\n")
            return lines.count == height + 1 && lines.last == ""
        }
    }

    /// The terminal's modes a live display changes: line editing and echo.
    static let rawModes = tcflag_t(ICANON | ECHO)

    @Test func theMeterMovesWithTheSignalRedrawsInPlaceAndCtrlCRestoresTheTerminal() async throws {
        try await PulseAudioServer.exclusive { server in
            var environment = try server.environment
            environment["NO_COLOR"] = "1"
            let meter = try PseudoTerminal(CLI.binary, ["meter", "--device", "pulse"], environment: environment)
            let modesBefore = meter.initialModes
            #expect(modesBefore & Self.rawModes == Self.rawModes)
            func readings() -> [[ChannelLine]] {
                Self.frames(meter.screen, height: 3).map { $0.prefix(2).compactMap(ChannelLine.init) }
            }
            func lastReading(_ condition: @escaping ([ChannelLine]) -> Bool) -> () -> Bool {
                { readings().last.map { $0.count == 2 && condition($0) } ?? false }
            }
            let silent = { (channels: [ChannelLine]) in channels.allSatisfy { $0.peak == -160 && $0.average == -160 } }
            let playing = { (channels: [ChannelLine]) in channels.allSatisfy { $0.isNear(peak: -6.02, average: -9.03) } }

            #expect(meter.read(until: { _ in lastReading(silent)() }, timeout: 10), "\(meter.screen)")
            #expect(meter.localModes & Self.rawModes == 0, "keys are taken one by one, unechoed, while the meter runs")
            let sine = try server.playSine(frequency: 1000)
            defer { sine.stop() }
            #expect(meter.read(until: { _ in lastReading(playing)() }, timeout: 10), "\(meter.screen)")
            sine.stop()
            let toneFrames = readings().count
            #expect(meter.read(until: { _ in lastReading { silent($0) && !$0[0].bar.contains("|") }() }, timeout: 10))

            // 68 cells (100 columns less the numbers) over −60…0 dB: the tone's average of −9.03 dBFS
            // fills 57, its peak of −6.02 shades 4 more, and the held peak marks the next one.
            let tone68 = Array(String(repeating: "█", count: 57) + "▒▒▒▒|······")
            let quiet68 = Array(String(repeating: "·", count: 68))
            let loud = try #require(readings().last(where: playing))
            #expect(loud.allSatisfy { $0.bar == tone68 }, "\(loud.map { String($0.bar) })")
            // After the tone the bar empties at once, and the peak mark stays a moment, then goes.
            let after = readings().dropFirst(toneFrames).filter(silent)
            #expect(after.first?[0].bar == Array(String(repeating: "·", count: 61) + "|······"))
            #expect(after.last?.allSatisfy { $0.bar == quiet68 } == true)

            let screen = meter.screen
            #expect(Self.redrawsInPlace(screen, height: 3), "\(screen.suffix(2000))")
            #expect(Self.frames(screen, height: 3).allSatisfy { $0[2].hasPrefix("METER  pulse  0:") })
            #expect(screen.hasPrefix("\u{1B}[?25l") && !screen.contains("\u{1B}[0m"), "cursor hidden; NO_COLOR: no colors")
            meter.type("\u{03}")
            #expect(meter.waitForExit(timeout: 10) == 0)
            #expect(meter.screen.hasSuffix("\u{1B}[?25h"))
            #expect(meter.localModes == modesBefore, "the terminal's modes are put back")
        }
    }

    /// The position and state on `play`'s status line, e.g. `▶ Tone  0:03.2 / 0:20.0`.
    static func playback(_ frame: [String], title: String) -> (isPlaying: Bool, position: Double)? {
        guard let match = frame.last?.wholeMatch(of: #/([▶⏸]) (.+)  (\d+):(\d\d\.\d) / (\d+):(\d\d\.\d)/#),
            match.2 == title, let minutes = Double(match.3), let seconds = Double(match.4)
        else { return nil }
        return (match.1 == "▶", minutes * 60 + seconds)
    }

    /// From a stereo memo to a mono one (`n`, or `p` back), the display loses a channel's bar: the screen then shows the
    /// mono memo's lines and nothing of the stereo one's below them.
    @Test func aMemoWithFewerChannelsLeavesNoLineOfTheOneBeforeOnTheScreen() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            _ = try cli.importTone(title: "Wide", seconds: 20, channels: 2)
            _ = try cli.importTone(title: "Narrow", seconds: 20, channels: 1)
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Wide", "Narrow", "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
            #expect(play.read(until: { TerminalScreen($0).rows.last?.hasPrefix("▶ Wide") == true }, timeout: 10), "\(play.screen.suffix(300))")
            let wide = TerminalScreen(play.screen).rows.count
            play.type("n")
            #expect(play.read(until: { TerminalScreen($0).rows.contains { $0.hasPrefix("▶ Narrow") } }, timeout: 10), "\(play.screen.suffix(300))")
            play.read(until: { _ in false }, timeout: 0.5)
            let rows = TerminalScreen(play.screen).rows
            #expect(rows.last?.hasPrefix("▶ Narrow") == true && rows.count == wide - 1 && !rows.contains { $0.hasPrefix("▶ Wide") },
                    "the screen: \(rows)")
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
        }
    }

    @Test func playShowsPositionAndLevelsTakesKeysAndQuitRestoresTheTerminal() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            _ = try cli.importTone(title: "Tone", seconds: 20)
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Tone", "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
            let modesBefore = play.initialModes
            func states() -> [(isPlaying: Bool, position: Double, channels: [ChannelLine])] {
                Self.frames(play.screen, height: 3).compactMap { frame in
                    Self.playback(frame, title: "Tone").map { ($0.isPlaying, $0.position, frame.prefix(1).compactMap(ChannelLine.init)) }
                }
            }
            /// The column of the play head on the waveform's line, and the line's width, without its colors.
            func head() -> (column: Int, width: Int, position: Double)? {
                Self.frames(play.screen, height: 3).compactMap { frame -> (Int, Int, Double)? in
                    let cells = Array(frame[1].replacing(#/\x1B\[\d+m/#, with: ""))
                    guard let column = cells.firstIndex(of: "│"), let state = Self.playback(frame, title: "Tone") else { return nil }
                    return (column, cells.count, state.position)
                }.last
            }
            func shows(_ condition: @escaping ((isPlaying: Bool, position: Double, channels: [ChannelLine])) -> Bool) -> (String) -> Bool {
                { _ in states().last.map(condition) ?? false }
            }

            // Playing: the position runs and the memo's one channel shows the tone.
            #expect(play.read(until: shows { $0.isPlaying && $0.position >= 0.5 && $0.channels.count == 1
                && $0.channels.allSatisfy { $0.isNear(peak: -6.02, average: -9.03) } }, timeout: 10), "\(play.screen.suffix(2000))")
            #expect(play.localModes & Self.rawModes == 0)
            #expect(play.screen.contains("\u{1B}[32m█"), "colors without NO_COLOR")
            // The device takes audio 8 times a second and the display is redrawn 20 times: no redraw between two
            // periods reads the tone as silence.
            #expect(play.read(until: shows { $0.position >= 1.2 }, timeout: 10))
            // Under the meter, the memo's waveform over the width (the last column free), the play head moving along.
            #expect(play.read(until: { _ in (head()?.position ?? 0) >= 1.2 }, timeout: 10), "\(play.screen.suffix(1000))")
            let drawn = try #require(head())
            #expect(drawn.width == 99 && abs(drawn.column - Int(drawn.position / 20 * 99)) <= 1, "\(drawn)")
            let toneFrames = states().filter { $0.isPlaying && $0.position >= 0.3 }
            #expect(toneFrames.count > 3 && toneFrames.allSatisfy { $0.channels.allSatisfy { $0.peak > -160 } },
                    "\(toneFrames.map { $0.channels.map(\.peak) })")

            // Space pauses: the position stands still and nothing is heard.
            play.type(" ")
            #expect(play.read(until: shows { !$0.isPlaying }, timeout: 5))
            play.read(until: { _ in false }, timeout: 0.5)
            let paused = try #require(states().last)
            play.read(until: { _ in false }, timeout: 0.5)
            let stillPaused = try #require(states().last)
            #expect(!stillPaused.isPlaying && stillPaused.position == paused.position)
            #expect(stillPaused.channels.allSatisfy { $0.peak == -160 }, "\(stillPaused.channels.map(\.peak))")
            let pausedAt = paused.position

            // → seeks 5 s ahead, still paused; space plays on from there.
            play.type("\u{1B}[C")
            #expect(play.read(until: shows { !$0.isPlaying && abs($0.position - (pausedAt + 5)) < 0.11 }, timeout: 5))
            play.type(" ")
            #expect(play.read(until: shows { $0.isPlaying && $0.position > pausedAt + 5.2 }, timeout: 5))
            #expect(abs((head()?.column ?? 0) - Int((pausedAt + 5.2) / 20 * 99)) <= 2, "the head moved with the seek")

            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
            #expect(play.screen.hasSuffix("\u{1B}[?25h"))
            #expect(play.localModes == modesBefore)
            #expect(Self.redrawsInPlace(play.screen, height: 3), "\(play.screen.suffix(2000))")
        }
    }

    @Test func kSkipsSilenceAndTheStatusLineShowsTheTimeSaved() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            // Half a second of tone, then 1.5 s of silence, four times over.
            let tone = cli.scratch.path("tone.wav"), silence = cli.scratch.path("silence.wav"), source = cli.scratch.path("pauses.wav")
            try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
            try Tool.output("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", silence, "trim", "0", "1.5"])
            try Tool.output("sox", [tone, silence, tone, silence, tone, silence, tone, silence, source])
            #expect(try cli.run("import", source, "--title", "Pauses").status == 0)
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Pauses", "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
            /// The time saved on the last status line, if it shows one.
            func saved() -> Double? {
                guard let line = Self.frames(play.screen, height: 3).last?.last,
                      let match = line.firstMatch(of: #/  (\d+):(\d\d\.\d) saved$/#),
                      let minutes = Double(match.1), let seconds = Double(match.2)
                else { return nil }
                return minutes * 60 + seconds
            }
            #expect(play.read(until: { screen in Self.frames(screen, height: 3).count > 2 }, timeout: 10))
            #expect(saved() == nil, "not skipping: nothing saved shown")
            play.type("k")
            // Each pause past the first key press loses 1.3 s: three of them in under 4 s of listening.
            #expect(play.read(until: { _ in (saved() ?? 0) >= 2.5 }, timeout: 10), "\(play.screen.suffix(500))")
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
        }
    }

    /// `play` holds a long buffer on a sound server (a second queued): the meter shows the level of what is heard, as the
    /// position does, not of what the engine has mixed ahead.
    @Test func playsMeterShowsWhatIsHeardNotWhatIsQueued() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let source = cli.scratch.path("tone-then-silence.wav")
            try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 1.5, "sine 440")
            let padded = cli.scratch.path("padded.wav")
            try Tool.output("sox", [source, padded, "pad", "0", "2.5"])
            #expect(try cli.run("import", padded, "--title", "Then").status == 0)
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Then", "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
            #expect(play.waitForExit(timeout: 15) == 0)
            // The channel's bar, the waveform row, the status line.
            let shown = Self.frames(play.screen, height: 3).compactMap { frame in
                Self.playback(frame, title: "Then").flatMap { state in ChannelLine(frame[0]).map { (state.position, $0.peak) } }
            }
            // The tone is shown while it is heard (to 1.5 s, the position shown to a tenth, a redraw 50 ms late at most),
            // and silence after.
            let early = shown.filter { $0.0 >= 0.3 && $0.0 <= 1.3 }, late = shown.filter { $0.0 >= 1.8 && $0.0 <= 3.5 }
            #expect(early.count > 10 && early.allSatisfy { $0.1 > -10 }, "\(early)")
            #expect(late.count > 10 && late.allSatisfy { $0.1 == -160 }, "\(late)")
        }
    }

    @Test func ctrlCStopsPlayWith130AndRestoresTheTerminal() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            _ = try cli.importTone(title: "Loop", seconds: 1)
            let play = try PseudoTerminal(
                CLI.binary, ["play", "Loop", "--loops", "-1", "--no-meter", "--device", "pulse"],
                environment: cli.environment.merging(try server.environment) { $1 })
            let modesBefore = play.initialModes
            // Without the meter the display is the waveform and the status line.
            #expect(play.read(until: { Self.frames($0, height: 2).filter { Self.playback($0, title: "Loop")?.isPlaying == true }.count > 2 }, timeout: 10))
            #expect(Self.redrawsInPlace(play.screen, height: 2), "\(play.screen.suffix(2000))")
            play.type("\u{03}")
            #expect(play.waitForExit(timeout: 10) == 130)
            #expect(play.screen.hasSuffix("\u{1B}[?25h"))
            #expect(play.localModes == modesBefore)
        }
    }

    @Test func ctrlCDuringARecordingFinishesTheMemoAndRestoresTheTerminal() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Live"],
                environment: cli.environment.merging(try server.environment) { $1 })
            // A mono memo: one channel line (dim dots for silence, in color) over the REC status line.
            // Half a second into the recording, e.g. "● REC  Live  0:00.5  48 KB".
            let recording = #/● REC  Live  0:00\.[5-9]  [\d.]+ K?B/#
            #expect(record.read(until: { (Self.frames($0, height: 2).last?.last?.wholeMatch(of: recording)) != nil }, timeout: 10))
            #expect(record.localModes & Self.rawModes == 0)
            #expect(Self.frames(record.screen, height: 2).last?.first?.hasPrefix("M \u{1B}[0m\u{1B}[2m·") == true)
            record.type("\u{03}")
            #expect(record.waitForExit(timeout: 10) == 0)
            #expect(record.localModes == record.initialModes)
            #expect(record.screen.contains("\u{1B}[?25hRecorded “Live” as "), "\(record.screen.suffix(500))")
            let memo = try cli.json(try cli.run("info", "Live", "--json"))
            #expect(memo["state"] as? String == "complete" && (memo["duration"] as? Double ?? 0) > 0)
        }
    }

    @Test func aDeviceThatFailsUnderTheMeterRestoresTheTerminalBeforeItsOneLineError() async throws {
        // A server of its own: the test takes its sink away.
        let server = try PulseAudioServer()
        defer { server.stop() }
        var environment = try server.environment
        environment["NO_COLOR"] = "1"
        let meter = try PseudoTerminal(CLI.binary, ["meter", "--device", "pulse"], environment: environment)
        #expect(meter.read(until: { Self.frames($0, height: 3).count > 2 }, timeout: 10), "\(meter.screen)")
        #expect(meter.localModes & Self.rawModes == 0)
        try server.unloadSink()
        #expect(meter.waitForExit(timeout: 10) == 1)
        #expect(meter.localModes == meter.initialModes)
        // The last redraw, the cursor shown again, then the error on a line of its own.
        let ending = try #require(meter.screen.components(separatedBy: "\u{1B}[?25h").last)
        let lines = ending.split(separator: "\r\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("voicememo: ") && lines[0].hasSuffix("pick another device with --device ('voicememo devices' lists them)"), "\(ending)")
    }
}
