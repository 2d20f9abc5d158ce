import Foundation
import TestSupport
import Testing

/// `voicememo play` as a desktop sees it: an MPRIS player on a private session bus, driven with playerctl as media
/// keys and widgets drive it, playing on the null sink of a PulseAudio server of each test's own.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.player)) struct PlayNowPlayingTests {
    let bus: SessionBus
    let cli: CLI

    init() throws {
        bus = try SessionBus()
        cli = try CLI()
    }

    func playerctl(_ arguments: String...) throws -> String {
        let result = try Tool.run("playerctl", ["--player=voicememo"] + arguments, environment: bus.environment)
        return result.status == 0 ? result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) : "(failed: \(result.standardError))"
    }

    @Test func playerctlShowsPausesSeeksAndStopsAMemoPlaying() async throws {
        try await PulseAudioServer.own { server in
            let id = try cli.importTone(title: "Standup", seconds: 60)
            let play = try cli.start(["play", id, "--device", "pulse", "--no-meter"], with: try server.environment.merging(bus.environment) { $1 })
            defer { if play.isRunning { play.kill() } }
            #expect(try await eventually { try playerctl("status") == "Playing" })
            #expect(try playerctl("metadata", "--format", "{{title}}|{{mpris:length}}|{{mpris:trackid}}")
                == "Standup|60000000|'/org/voicememo/track/\(id)'")

            _ = try playerctl("play-pause")
            #expect(try await eventually { try playerctl("status") == "Paused" })
            _ = try playerctl("play-pause")
            #expect(try await eventually { try playerctl("status") == "Playing" })

            _ = try playerctl("position", "30")
            #expect(abs((Double(try playerctl("position")) ?? 0) - 30) < 0.5)
            _ = try playerctl("position", "5+")
            #expect(abs((Double(try playerctl("position")) ?? 0) - 35) < 0.5)

            // The speeds play takes, 0.25 to 4, offered to the remote.
            #expect(try property("MinimumRate") == "d 0.25" && property("MaximumRate") == "d 4")
            let setRate = try Tool.run("busctl", ["--user", "set-property", "org.mpris.MediaPlayer2.voicememo", "/org/mpris/MediaPlayer2",
                                                  "org.mpris.MediaPlayer2.Player", "Rate", "d", "3"], environment: bus.environment)
            #expect(setRate.status == 0, "\(setRate.standardError)")
            #expect(try await eventually { try property("Rate") == "d 3" })

            // A remote Stop ends play as q does.
            #expect(play.isRunning)
            _ = try playerctl("stop")
            let result = play.finish()
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        }
    }

    /// `busctl --user get-property` of the player's Player interface, e.g. `b true`.
    func property(_ name: String) throws -> String {
        try Tool.run("busctl", ["--user", "get-property", "org.mpris.MediaPlayer2.voicememo", "/org/mpris/MediaPlayer2",
                                "org.mpris.MediaPlayer2.Player", name], environment: bus.environment)
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func playerctlMovesThroughAQueueOfThreeMemos() async throws {
        try await PulseAudioServer.own { server in
            let ids = try [("One", 40.0), ("Two", 45.0), ("Three", 50.0)].map { try cli.importTone(title: $0.0, seconds: $0.1) }
            let play = try cli.start(["play", "One", "Two", "Three", "--device", "pulse", "--no-meter"], with: try server.environment.merging(bus.environment) { $1 })
            defer { if play.isRunning { play.kill() } }
            let metadata = { try playerctl("metadata", "--format", "{{title}}|{{mpris:length}}|{{mpris:trackid}}") }
            #expect(try await eventually { try playerctl("status") == "Playing" })
            #expect(try metadata() == "One|40000000|'/org/voicememo/track/\(ids[0])'")
            #expect(try property("CanGoPrevious") == "b false" && property("CanGoNext") == "b true")

            _ = try playerctl("position", "30")
            #expect(abs((Double(try playerctl("position")) ?? 0) - 30) < 0.5)
            _ = try playerctl("position", "5+")
            #expect(abs((Double(try playerctl("position")) ?? 0) - 35) < 0.5)

            // Next: the second memo, from its start, with its own title, length and track id.
            _ = try playerctl("next")
            #expect(try await eventually { try metadata() == "Two|45000000|'/org/voicememo/track/\(ids[1])'" })
            #expect((Double(try playerctl("position")) ?? 99) < 1)
            #expect(try await eventually { try property("CanGoPrevious") == "b true" })
            _ = try playerctl("next")
            #expect(try await eventually { try metadata() == "Three|50000000|'/org/voicememo/track/\(ids[2])'" })
            #expect(try await eventually { try property("CanGoNext") == "b false" }, "nothing after the last memo")
            _ = try playerctl("previous")
            #expect(try await eventually { try metadata().hasPrefix("Two|") })
            _ = try playerctl("play-pause")
            #expect(try await eventually { try playerctl("status") == "Paused" })
            _ = try playerctl("play-pause")
            #expect(try await eventually { try playerctl("status") == "Playing" })

            _ = try playerctl("stop")
            let result = play.finish()
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
            // Off a terminal, a line for each memo as it starts.
            #expect(result.standardOutput.split(separator: "\n").map { $0.prefix(while: { $0 != "(" }) }
                == ["Playing “One” ", "Playing “Two” ", "Playing “Three” ", "Playing “Two” "])
        }
    }

    @Test func memosPlayedTogetherArePublishedAsOneTrackThatActsOnAllAndKeepsThemTogether() async throws {
        try await PulseAudioServer.own { server in
            // A signal and its inverse: silence while they play together to the frame, noise if a seek parts them.
            let signal = cli.scratch.path("signal.wav")
            try Sox.synth(to: signal, rate: 48000, channels: 2, seconds: 40, "whitenoise whitenoise")
            try Tool.output("sox", ["-D", signal, cli.scratch.path("inverse.wav"), "vol", "-1"])
            #expect(try cli.run("import", signal, "--title", "Signal").status == 0)
            #expect(try cli.run("import", cli.scratch.path("inverse.wav"), "--title", "Inverse").status == 0)
            let heard = cli.scratch.path("heard.wav")
            let recorder = try server.recordMonitor(to: heard, channels: 2)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))

            let started = ContinuousClock.now
            let play = try cli.start(
                ["play", "Signal", "Inverse", "--together", "--device", "pulse", "--no-meter"], with: try server.environment.merging(bus.environment) { $1 })
            defer { if play.isRunning { play.kill() } }
            #expect(try await eventually { try playerctl("status") == "Playing" })
            #expect(try playerctl("metadata", "--format", "{{title}}|{{mpris:length}}") == "Signal + Inverse|40000000")
            #expect(try property("CanGoNext") == "b false" && property("CanGoPrevious") == "b false")
            _ = try playerctl("position", "20")
            #expect(try await eventually { abs((Double(try playerctl("position")) ?? 0) - 20.5) < 0.6 })
            _ = try playerctl("play-pause")
            #expect(try await eventually { try playerctl("status") == "Paused" })
            _ = try playerctl("position", "5+")
            _ = try playerctl("play-pause")
            #expect(try await eventually { try playerctl("status") == "Playing" })
            try await Task.sleep(for: .milliseconds(500))
            _ = try playerctl("stop")
            let result = play.finish()
            let played = (ContinuousClock.now - started) / .seconds(1)
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
            try await Task.sleep(for: .milliseconds(300))
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)
            let (frames, _, _, _) = try Sox.info(heard)
            #expect(Double(frames) / 48000 > played, "\(frames) frames recorded over \(played) s of playing")
            #expect(try Sox.samples(of: heard).allSatisfy { $0 == 0 }, "silence throughout: the seeks kept the two together")
        }
    }

    @Test func twoPlaysSideBySideAreTwoPlayers() async throws {
        try await PulseAudioServer.own { server in
            let id = try cli.importTone(title: "Twice", seconds: 60)
            let environment = try server.environment.merging(bus.environment) { $1 }
            let first = try cli.start(["play", id, "--device", "pulse", "--no-meter"], with: environment)
            defer { if first.isRunning { first.kill() } }
            let second = try cli.start(["play", id, "--device", "pulse", "--no-meter"], with: environment)
            defer { if second.isRunning { second.kill() } }
            // The second takes `voicememo.instance<pid>`, as MPRIS asks.
            // Only these two: this test process publishes a player of its own too (NowPlayingTests).
            let names = {
                try Tool.run("playerctl", ["--list-all"], environment: bus.environment).standardOutput.split(separator: "\n").map(String.init)
                    .filter { $0 == "voicememo" || $0.hasPrefix("voicememo.instance") }
            }
            #expect(try await eventually { try names().count == 2 })
            let listed = try names()
            #expect(listed.contains("voicememo") && listed.contains { $0.hasPrefix("voicememo.instance") }, "\(listed)")
        }
    }

    @Test func withoutASessionBusPlayPlaysAndSaysNothingOfIt() throws {
        let id = try cli.importTone(title: "Quiet", seconds: 0.5)
        var environment = cli.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        environment["XDG_RUNTIME_DIR"] = cli.scratch.path("no-runtime-directory")
        let result = try Tool.run(CLI.binary, ["play", id, "--device", "null", "--no-meter"], environment: environment)
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
    }
}
