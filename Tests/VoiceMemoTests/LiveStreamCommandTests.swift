import Foundation
import TestSupport
import Testing

/// `voicememo play` of an Icecast station: it says the stream is live, names each song as it is heard (a plain line off
/// a terminal, the title on the desktop), and plays until stopped; `import` refuses it at once.
@Suite(.timeLimit(.minutes(1))) struct LiveStreamCommandTests {
    let cli: CLI
    let mp3: Data

    init() throws {
        cli = try CLI()
        mp3 = try IcecastServer.twoTones(in: cli.scratch)
    }

    @Test func playNamesEachSongAsItIsHeardAndPlaysUntilStopped() throws {
        // The second title as a hostile station might send it: its escape sequence never reaches the terminal.
        let station = try IcecastServer(
            audio: mp3, titles: [(0, "Song A"), (32_000, "Song B \u{1B}[31mred")], bytesPerSecond: 32_000)
        let output = cli.scratch.path("out.raw")
        let play = try cli.start("play", station.url.absoluteString, "--device", "file:'\(output)',raw")
        defer { if play.isRunning { play.kill() } }
        #expect(play.nextLine() == "Playing “stream” (live) on file:'\(output)',raw")
        #expect(play.nextLine() == "Now playing: Song A")
        #expect(play.nextLine() == "Now playing: Song B [31mred")
        #expect(play.isRunning, "a live stream has no end")
        play.send(SIGINT)
        let result = play.finish()
        #expect(result.status == 130, "\(result.standardError)")
        #expect(!result.standardOutput.contains("\u{1B}"))
        let played = try Data(contentsOf: URL(fileURLWithPath: output)).count / 8
        #expect(played >= 2 * 48000, "the first song and the start of the second reached the device: \(played) frames")
    }

    @Test func importRefusesALiveStreamAtOnceWithOneLine() throws {
        let station = try IcecastServer(audio: mp3, titles: IcecastServer.twoTonesTitles)
        let started = ContinuousClock.now
        let result = try cli.run("import", station.url.absoluteString)
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(result.status == 1)
        #expect(result.standardError.contains("it is a live stream, which never ends and cannot be downloaded whole; play it instead"),
                "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        let listed = try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [Any]
        #expect(listed?.isEmpty == true, "nothing imported")
        #expect(try cli.run("cache", "--json").standardOutput.contains("stream") == false, "nothing cached of it")
    }
}

/// On a terminal, the status line names the song on air and says the stream is live; `q` stops it.
@Suite(.timeLimit(.minutes(1)), .tags(.clocked)) struct LiveStreamTerminalTests {
    @Test func theStatusLineNamesTheSongOnAirAndSaysLive() async throws {
        let cli = try CLI()
        let station = try IcecastServer(audio: try IcecastServer.twoTones(in: cli.scratch), titles: IcecastServer.twoTonesTitles)
        let server = try PulseAudioServer()
        defer { server.stop() }
        let play = try PseudoTerminal(
            CLI.binary, ["play", station.url.absoluteString, "--device", "pulse"], environment: cli.environment.merging(try server.environment) { $1 })
        // `▶ Song B  0:02.5 / live` once the second song is heard, its waveform never drawn.
        #expect(play.read(until: { $0.contains("Song B") && $0.contains(" / live") }, timeout: 20), "\(play.screen.suffix(2000))")
        play.type("q")
        #expect(play.waitForExit(timeout: 10) == 0, "\(play.screen.suffix(2000))")
    }
}

/// The desktop sees a station's song as the title, with no length and no seeking.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct LiveStreamNowPlayingTests {
    @Test func theDesktopShowsTheSongOnAirWithNoLength() async throws {
        let cli = try CLI()
        let bus = try SessionBus()
        let station = try IcecastServer(audio: try IcecastServer.twoTones(in: cli.scratch), titles: IcecastServer.twoTonesTitles)
        func playerctl(_ arguments: String...) throws -> String {
            try Tool.run("playerctl", ["--player=voicememo"] + arguments, environment: bus.environment)
                .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try await PulseAudioServer.own { server in
            // Every title the desktop is told, as it is told: a loaded machine may not look while a song is on.
            let titles = try Tool.start("playerctl", ["--player=voicememo", "--follow", "metadata", "title"], environment: bus.environment)
            defer { titles.kill() }
            let play = try cli.start(
                ["play", station.url.absoluteString, "--device", "pulse", "--no-meter"], with: try server.environment.merging(bus.environment) { $1 })
            defer { if play.isRunning { play.kill() } }
            // Song A for the first 2 s of the station's audio, Song B to 4 s, Song A again once it goes round.
            var told: [String] = []
            while told.suffix(3) != ["Song A", "Song B", "Song A"], let line = titles.nextLine(timeout: 20) {
                if !line.isEmpty, line != told.last { told.append(line) }
            }
            #expect(told.suffix(3) == ["Song A", "Song B", "Song A"], "\(told)")
            #expect(try playerctl("metadata", "mpris:length") == "", "a live stream has no length")
            let canSeek = try Tool.run("busctl", ["--user", "get-property", "org.mpris.MediaPlayer2.voicememo", "/org/mpris/MediaPlayer2",
                                                  "org.mpris.MediaPlayer2.Player", "CanSeek"], environment: bus.environment)
            #expect(canSeek.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "b false")
            #expect(play.isRunning)
            _ = try playerctl("stop")
            #expect(play.finish().status == 0)
        }
    }
}
