import Foundation
import TestSupport
import Testing

/// `voicememo play URL` on a pseudo-terminal, on a PulseAudio null sink of its own: the download bar under the status
/// line, and no waveform over it (an address's is not measured). A clocked suite (its name is matched by `make test`'s `TerminalDisplayTests`).
@Suite(.timeLimit(.minutes(1))) struct RemoteTerminalDisplayTests {
    @Test func playOfAnAddressDrawsWhatWasHeardAndWhatIsDownloadedUnderTheStatusLine() async throws {
        let cli = try CLI()
        let talk = cli.scratch.file("talk.wav")
        try Sox.synth(to: talk.path, rate: 16000, channels: 1, seconds: 20, "whitenoise")
        // Twice as fast as it plays: the download runs ahead of what is heard.
        let http = try HTTPServer(rate: "64k")
        try http.put(talk, as: "talk.wav")
        // A server of its own, not a turn on the shared one: the other clocked suites' turns do not wait for this one.
        let server = try PulseAudioServer()
        defer { server.stop() }
        do {
            let play = try PseudoTerminal(
                CLI.binary, ["play", http.url("talk.wav").absoluteString, "--no-meter", "--skip-silence", "--device", "pulse"],
                environment: cli.environment.merging(try server.environment) { $1 })
            // The status line ends with the time silence skipping saved (none in noise).
            func last() -> (position: Double, bar: String)? {
                TerminalDisplayTests.frames(play.screen, height: 2).last.flatMap { frame in
                    guard frame[0].hasSuffix("  0:00.0 saved") else { return nil }
                    let status = String(frame[0].dropLast("  0:00.0 saved".count))
                    return TerminalDisplayTests.playback([status], title: "talk.wav").map { ($0.position, frame[1]) }
                }
            }
            #expect(play.read(until: { _ in (last()?.position ?? 0) >= 1.5 }, timeout: 10), "\(play.screen.suffix(2000))")
            let (position, bar) = try #require(last())
            // 99 cells of 20 s: what was heard, what is downloaded ahead, what is not here yet.
            #expect(bar.wholeMatch(of: #/█+▒+·+/#) != nil && bar.count == 99, "\(bar)")
            let heard = bar.prefix { $0 == "█" }.count
            #expect(abs(Double(heard) - position / 20 * 99) <= 1.5, "\(heard) cells heard at \(position) s")
            #expect(bar.filter { $0 == "▒" }.count >= heard / 2, "downloaded ahead: \(bar)")
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
            #expect(TerminalDisplayTests.redrawsInPlace(play.screen, height: 2), "\(play.screen.suffix(2000))")
        }
    }
}
