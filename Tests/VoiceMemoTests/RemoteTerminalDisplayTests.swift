import Foundation
import TestSupport
import Testing

/// `voicememo play URL` (and `play URL1 URL2`) on a pseudo-terminal, on a PulseAudio null sink of its own: the download
/// bar under the status line, "buffering" while the download falls behind, the waveform of what is downloaded over it,
/// and the marker keys going to the address's chapters. `.clocked`: it plays on PulseAudio, in real time.
@Suite(.timeLimit(.minutes(1)), .tags(.clocked)) struct RemoteTerminalDisplayTests {
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
                TerminalDisplayTests.frames(play.screen, height: 3).last.flatMap { frame in
                    guard frame[1].hasSuffix("  0:00.0 saved") else { return nil }
                    let status = String(frame[1].dropLast("  0:00.0 saved".count))
                    return TerminalDisplayTests.playback([status], title: "talk.wav").map { ($0.position, frame[2]) }
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
            #expect(TerminalDisplayTests.redrawsInPlace(play.screen, height: 3), "\(play.screen.suffix(2000))")
        }
    }

    @Test func playOfTwoAddressesShowsTheSecondBufferingWhereItsDownloadStopsAndPlaysOnWithoutLosingASample() async throws {
        let cli = try CLI()
        // KeyToSoundTests' staircase, whose level tells where in it the listener is: its first second, then the next 5.
        let staircase = cli.scratch.path("staircase.wav")
        try KeyToSoundTests.writeStaircase(seconds: 6, channels: 1, to: staircase, scratch: cli.scratch)
        let intro = cli.scratch.path("intro.wav")
        let talk = cli.scratch.path("talk.wav")
        try Tool.output("sox", [staircase, intro, "trim", "0", "1"])
        try Tool.output("sox", [staircase, talk, "trim", "1"])
        // 96 KB a second; each response's first 150 KB at once, then 1 KB/s: the talk's download stops mid-way (by 3.1 s:
        // its check's and its playing's), however late the test looks.
        let http = try HTTPServer(rate: "1k", rateAfter: "150k")
        try http.put(URL(fileURLWithPath: intro), as: "intro.wav")
        try http.put(URL(fileURLWithPath: talk), as: "talk.wav")
        let server = try PulseAudioServer()
        defer { server.stop() }
        do {
            let heard = cli.scratch.path("heard.wav")
            let recorder = try server.recordMonitor(to: heard, channels: 1)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))
            let play = try PseudoTerminal(
                CLI.binary, ["play", http.url("intro.wav").absoluteString, http.url("talk.wav").absoluteString, "--no-meter", "--device", "pulse"],
                environment: cli.environment.merging(try server.environment) { $1 })
            // `… talk.wav  0:02.1 / 0:05.0  buffering  2/2` over the bar: what was heard, reaching what is downloaded.
            func buffering() -> (position: Double, bar: String)? {
                TerminalDisplayTests.frames(play.screen, height: 3).last.flatMap { frame in
                    frame[1].wholeMatch(of: #/… talk\.wav  0:(\d\d\.\d) / 0:05\.0  buffering  2/2/#).flatMap { match in
                        Double(match.1).map { ($0, frame[2]) }
                    }
                }
            }
            #expect(play.read(until: { _ in buffering() != nil }, timeout: 20), "\(play.screen.suffix(2000))")
            let (position, bar) = try #require(buffering())
            #expect(position < 4.5, "stalled where the download stopped: \(position) s")
            // 99 cells of 5 s: heard, perhaps the last of what is downloaded (the device still holds it), then not here.
            #expect(bar.wholeMatch(of: #/█+▒*·+/#) != nil && bar.count == 99, "\(bar)")
            http.kill()
            try http.limit(rate: nil)
            try http.start()
            #expect(play.waitForExit(timeout: 20) == 0, "\(play.screen.suffix(2000))")
            try await Task.sleep(for: .milliseconds(300))
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            // Every 2.5 ms window of the 6 s was heard once, in order: the staircase goes on across the stall (each
            // window read as the median of five around it: one a stall's edge cuts short reads low, and is no jump).
            let sounding = KeyToSoundTests.steps(in: try Sox.samples(of: heard)).compactMap { $0 }
            #expect(abs(sounding.count - 2400) <= 40, "\(sounding.count) windows of sound, of 2400")
            let smoothed = sounding.indices.map { index in
                let around = sounding[max(0, index - 2)...min(sounding.count - 1, index + 2)]
                return around.sorted { KeyToSoundTests.distance(from: $0, to: $1) > 0 }[around.count / 2]
            }
            let jumps = zip(smoothed, smoothed.dropFirst()).map { KeyToSoundTests.distance(from: $0, to: $1) }.filter { !(-5...12).contains($0) }
            #expect(jumps.isEmpty, "jumps of \(jumps) steps")
        }
    }

    @Test func playOfAnAddressDrawsItsWaveformAsItDownloadsAndJumpsToItsChapters() async throws {
        let cli = try CLI()
        // 20 s of noise as a 128 kb/s MP3 (320 KB) with ID3 chapters at 8 s and 14 s.
        let noise = cli.scratch.path("noise.wav")
        try Sox.synth(to: noise, rate: 48000, channels: 1, seconds: 20, "whitenoise")
        let chapters = cli.scratch.path("chapters.txt")
        try ";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=8000\nEND=14000\ntitle=A\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=14000\nEND=20000\ntitle=B\n"
            .write(toFile: chapters, atomically: true, encoding: .utf8)
        let talk = cli.scratch.file("talk.mp3")
        try Tool.output("ffmpeg", ["-v", "error", "-i", noise, "-i", chapters, "-map_chapters", "1", "-c:a", "libmp3lame", "-b:a", "128k",
                                   "-id3v2_version", "3", talk.path])
        // A little faster than it plays (16 KB/s): the download is mid-way for most of the test.
        let http = try HTTPServer(rate: "20k")
        try http.put(talk, as: "talk.mp3")
        let server = try PulseAudioServer()
        defer { server.stop() }
        do {
            let play = try PseudoTerminal(
                CLI.binary, ["play", http.url("talk.mp3").absoluteString, "--no-meter", "--device", "pulse"],
                environment: cli.environment.merging(try server.environment) { $1 })
            // The waveform's line without its colors, and what the status line shows.
            func last() -> (waveform: String, position: Double, isPlaying: Bool)? {
                TerminalDisplayTests.frames(play.screen, height: 3).last.flatMap { frame in
                    TerminalDisplayTests.playback([frame[1]], title: "talk.mp3").map {
                        (frame[0].replacing(#/\x1B\[\d+m/#, with: ""), $0.position, $0.isPlaying)
                    }
                }
            }
            func unknown() -> Int? { last().map { $0.waveform.filter { $0 == "·" }.count } }
            // Drawn where downloaded, `·` where not yet, the play head in it; 99 cells of 20 s.
            #expect(play.read(until: { _ in (1...80).contains(unknown() ?? 0) }, timeout: 10), "\(play.screen.suffix(2000))")
            let waveform = try #require(last()).waveform
            #expect(waveform.count == 99 && waveform.contains("│"), "\(waveform)")
            #expect(waveform.wholeMatch(of: #/[ ▁▂▃▄▅▆▇█│]+[·│]+/#) != nil, "\(waveform)")
            let early = try #require(unknown())
            // More of it as more downloads.
            #expect(play.read(until: { _ in (unknown() ?? 99) <= early - 10 }, timeout: 10), "\(early) cells unknown, then \(last()?.waveform ?? "")")

            // Paused, the position moves only by the keys: to the next chapter, and the one after it.
            play.type(" ")
            #expect(play.read(until: { _ in last()?.isPlaying == false }, timeout: 5), "\(play.screen.suffix(500))")
            let now = try #require(last()?.position)
            #expect(now < 7.5, "\(now)")
            for chapter in [8.0, 14.0] {
                play.type("]")
                #expect(play.read(until: { _ in abs((last()?.position ?? 0) - chapter) < 0.05 }, timeout: 5), "\(play.screen.suffix(500))")
            }
            play.type("q")
            #expect(play.waitForExit(timeout: 10) == 0)
        }
    }
}
