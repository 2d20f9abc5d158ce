import AudioIO
import Foundation
import NowPlaying
import TestSupport
import Testing

/// A player published with ``NowPlayingInfoCenter/connect(_:info:)`` on a private session bus, driven by `playerctl`
/// and `busctl` as a desktop's media widget or media keys drive it, playing on a PulseAudio null sink (a real clock).
/// One suite, one test at a time: the info center is the process's.
@Suite(.serialized, .timeLimit(.minutes(1))) struct NowPlayingTests {
    static let playerName = "voicememotest"

    let bus: SessionBus
    let scratch: ScratchDirectory

    init() throws {
        bus = try SessionBus.shared
        scratch = try ScratchDirectory()
        NowPlayingInfoCenter.default.playerName = Self.playerName
    }

    func playerctl(_ arguments: String...) throws -> String {
        let result = try Tool.run("playerctl", ["--player=\(Self.playerName)"] + arguments, environment: bus.environment)
        #expect(result.status == 0, "playerctl \(arguments): \(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `busctl --user VERB` on the player object's Player interface, e.g. `get-property Rate`.
    func busctl(_ verb: String, _ arguments: String...) throws -> String {
        let result = try Tool.run("busctl", ["--user", verb, "org.mpris.MediaPlayer2.\(Self.playerName)", "/org/mpris/MediaPlayer2",
                                             "org.mpris.MediaPlayer2.Player"] + arguments, environment: bus.environment)
        #expect(result.status == 0, "busctl \(verb) \(arguments): \(result.standardError)")
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// playerctl's position, and the player's own just before and just after it was asked.
    func positions(of player: AudioPlayer) throws -> (before: Double, published: Double, after: Double) {
        let before = player.currentTime
        let published = Double(try playerctl("position")) ?? -1
        return (before, published, player.currentTime)
    }

    @Test func playerctlSeesWhatPlaysAndItsPositionAtAnyRate() async throws {
        try await PulseAudioServer.exclusive { server in
            let file = scratch.file("standup.wav")
            try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 30, "sine 440")
            let player = try AudioPlayer(contentsOf: file)
            player.currentDevice = server.device
            let date = Date(timeIntervalSince1970: 1_800_000_000)
            let connection = NowPlayingInfoCenter.default.connect(
                player, info: NowPlayingInfo(identifier: "3f2a9c1e0b7d", title: "Standup", artist: "Ada", creationDate: date))
            // The sink is left silent for the next test.
            defer { connection.cancel(); player.stop() }
            #expect(NowPlayingInfoCenter.default.publishingError == nil)
            #expect(player.play())

            let metadata = try playerctl("metadata", "--format", "{{title}}|{{artist}}|{{mpris:length}}|{{mpris:trackid}}|{{xesam:contentCreated}}")
            #expect(metadata == "Standup|Ada|30000000|'/org/voicememo/track/3f2a9c1e0b7d'|2027-01-15T08:00:00Z")
            #expect(try await eventually { try playerctl("status") == "Playing" })

            // The published position is the player's clock, at rate 1 and at 1.5.
            try await Task.sleep(for: .milliseconds(500))
            let atOne = try positions(of: player)
            #expect(atOne.published >= atOne.before - 0.02 && atOne.published <= atOne.after + 0.02, "\(atOne)")
            _ = try busctl("set-property", "Rate", "d", "1.5")
            #expect(player.rate == 1.5)
            #expect(try await eventually { try busctl("get-property", "Rate") == "d 1.5" })
            try await Task.sleep(for: .milliseconds(500))
            let atOneAndAHalf = try positions(of: player)
            #expect(atOneAndAHalf.published >= atOneAndAHalf.before - 0.02 && atOneAndAHalf.published <= atOneAndAHalf.after + 0.02, "\(atOneAndAHalf)")
        }
    }

    @Test func playerctlPausesSeeksSkipsAndStops() async throws {
        try await PulseAudioServer.exclusive { server in
            let file = scratch.file("lecture.wav")
            try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 60, "sine 440")
            let player = try AudioPlayer(contentsOf: file)
            player.currentDevice = server.device
            let connection = NowPlayingInfoCenter.default.connect(player, info: NowPlayingInfo(identifier: "lecture", title: "Lecture"))
            defer { connection.cancel(); player.stop() }
            #expect(player.play())

            _ = try playerctl("pause")
            #expect(!player.isPlaying)
            #expect(try await eventually { try playerctl("status") == "Paused" })
            _ = try playerctl("play-pause")
            #expect(player.isPlaying)
            #expect(try await eventually { try playerctl("status") == "Playing" })

            // A jump to 30 s and one 5 s further: each a Seeked signal as it happens.
            let monitor = try Tool.start("dbus-monitor", ["--session", "type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked'"], environment: bus.environment)
            defer { monitor.kill() }
            try await Task.sleep(for: .milliseconds(300))
            _ = try playerctl("position", "30")
            let seekedAt = ContinuousClock.now
            #expect(abs(player.currentTime - 30) < 0.2, "\(player.currentTime)")
            #expect(try signalValue(from: monitor) == 30_000_000)
            #expect(ContinuousClock.now - seekedAt < .milliseconds(50))
            _ = try playerctl("position", "5+")
            #expect(abs(player.currentTime - 35) < 0.3, "\(player.currentTime)")
            let forward = try #require(try signalValue(from: monitor))
            #expect(abs(Double(forward) / 1e6 - 35) < 0.3)

            _ = try playerctl("volume", "0.5")
            #expect(player.volume == 0.5)
            #expect(try await eventually { try playerctl("volume") == "0.500000" })

            _ = try playerctl("stop")
            #expect(!player.isPlaying && player.currentTime == 0)
            #expect(try await eventually { try playerctl("status") == "Stopped" })
        }
    }

    /// The `int64` of the next Seeked signal dbus-monitor prints.
    func signalValue(from monitor: RunningTool) throws -> Int64? {
        while let line = monitor.nextLine(timeout: 5) {
            let words = line.split(separator: " ")
            if words.first == "int64", let value = words.last.flatMap({ Int64($0) }) { return value }
        }
        return nil
    }
}
