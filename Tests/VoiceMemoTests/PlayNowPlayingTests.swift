import Foundation
import TestSupport
import Testing

/// `voicememo play` as a desktop sees it: an MPRIS player on a private session bus, driven with playerctl as media
/// keys and widgets drive it, playing on the PulseAudio null sink.
@Suite(.serialized, .timeLimit(.minutes(1))) struct PlayNowPlayingTests {
    let bus: SessionBus
    let cli: CLI

    init() throws {
        bus = try SessionBus.shared
        cli = try CLI()
    }

    func playerctl(_ arguments: String...) throws -> String {
        let result = try Tool.run("playerctl", ["--player=voicememo"] + arguments, environment: bus.environment)
        return result.status == 0 ? result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) : "(failed: \(result.standardError))"
    }

    @Test func playerctlShowsPausesSeeksAndStopsAMemoPlaying() async throws {
        try await PulseAudioServer.exclusive { server in
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

            // A remote Stop ends play as q does.
            #expect(play.isRunning)
            _ = try playerctl("stop")
            let result = play.finish()
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        }
    }

    @Test func twoPlaysSideBySideAreTwoPlayers() async throws {
        try await PulseAudioServer.exclusive { server in
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
