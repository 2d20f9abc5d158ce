import AudioIO
import Foundation
import NowPlaying
import TestSupport
import Testing

/// A player published with ``NowPlayingInfoCenter/connect(_:info:)`` on a private session bus, driven by `playerctl`
/// and `busctl` as a desktop's media widget or media keys drive it, playing on a PulseAudio null sink (a real clock).
/// One suite, one test at a time: the info center is the process's.
@Suite(.serialized, .timeLimit(.minutes(3)), .tags(.player)) struct NowPlayingTests {
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

    /// Expects playerctl's position to be the player's own clock (`currentTime`, read just before and just after it was
    /// asked) within 20 ms, and prints the figures for `what`.
    func expectPositionIsTheClock(of what: String, _ currentTime: () -> TimeInterval) throws {
        let before = currentTime()
        let published = Double(try playerctl("position")) ?? -1
        let after = currentTime()
        #expect(published >= before - 0.02 && published <= after + 0.02, "\(what): \(published) s published, \(before)…\(after) s")
        print("position of \(what): \(published) s published, the clock read \(before) s before and \(after) s after")
    }

    /// Expects a Seeked to `position` microseconds on `monitor` within 50 ms of `seek` having returned (a seek itself
    /// takes the time to read and decode the audio at its new position), and prints both times for `what`.
    func expectSeekedPromptly(after what: String, to position: Int64, on monitor: RunningTool, _ seek: () -> Void) throws {
        let start = ContinuousClock.now
        seek()
        let sought = ContinuousClock.now
        #expect(try signalValue(from: monitor) == position)
        let delay = ContinuousClock.now - sought
        #expect(delay < .milliseconds(50), "Seeked \(delay) after \(what)")
        print("Seeked \(delay) after \(what), which took \(sought - start)")
    }

    /// dbus-monitor printing this player's Seeked signals (not those of `voicememo play`s the other suites run), once it
    /// listens.
    func seekedMonitor() async throws -> RunningTool {
        let monitor = try Tool.start("dbus-monitor", [
            "--session", "type='signal',sender='org.mpris.MediaPlayer2.\(Self.playerName)',interface='org.mpris.MediaPlayer2.Player',member='Seeked'",
        ], environment: bus.environment)
        try await Task.sleep(for: .milliseconds(300))
        return monitor
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
            try expectPositionIsTheClock(of: "a player at rate 1") { player.currentTime }
            _ = try busctl("set-property", "Rate", "d", "1.5")
            #expect(player.rate == 1.5)
            #expect(try await eventually { try busctl("get-property", "Rate") == "d 1.5" })
            try await Task.sleep(for: .milliseconds(500))
            try expectPositionIsTheClock(of: "a player at rate 1.5") { player.currentTime }
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
            let monitor = try await seekedMonitor()
            defer { monitor.kill() }
            _ = try playerctl("position", "30")
            let seekedAt = ContinuousClock.now
            #expect(abs(player.currentTime - 30) < 0.2, "\(player.currentTime)")
            #expect(try signalValue(from: monitor) == 30_000_000)
            #expect(ContinuousClock.now - seekedAt < .milliseconds(50))
            _ = try playerctl("position", "5+")
            #expect(abs(player.currentTime - 35) < 0.3, "\(player.currentTime)")
            let forward = try #require(try signalValue(from: monitor))
            #expect(abs(Double(forward) / 1e6 - 35) < 0.3)

            // A seek the app makes itself (a key, a chapter list) reaches clients as fast: nothing is polled.
            try expectSeekedPromptly(after: "a player's seek in the app", to: 12_000_000, on: monitor) { player.currentTime = 12 }

            _ = try playerctl("volume", "0.5")
            #expect(player.volume == 0.5)
            #expect(try await eventually { try playerctl("volume") == "0.500000" })

            _ = try playerctl("stop")
            #expect(!player.isPlaying && player.currentTime == 0)
            #expect(try await eventually { try playerctl("status") == "Stopped" })
        }
    }

    @Test func aQueueIsPublishedItemByItemWithItsClockNextAndPrevious() async throws {
        try await PulseAudioServer.exclusive { server in
            let names = ["one", "two", "three"]
            let urls = try names.map { name in
                let file = scratch.file("\(name).wav")
                try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 30, "sine 440")
                return file
            }
            let queue = QueuePlayer(items: urls.map(PlayerItem.init(url:)))
            queue.currentDevice = server.device
            let connection = NowPlayingInfoCenter.default.connect(queue) { item in
                let name = item.deletingPathExtension().lastPathComponent
                return NowPlayingInfo(identifier: name, title: name.capitalized)
            }
            defer { connection.cancel(); queue.removeAllItems() }
            #expect(queue.play())
            #expect(try await eventually { try playerctl("status") == "Playing" })
            let metadata = { try playerctl("metadata", "--format", "{{title}}|{{mpris:length}}|{{mpris:trackid}}") }
            #expect(try metadata() == "One|30000000|'/org/voicememo/track/one'")
            // MPRIS's ends of a list: nothing before the first item.
            #expect(try busctl("get-property", "CanGoPrevious") == "b false" && busctl("get-property", "CanGoNext") == "b true")

            // The position is the queue's clock, at rate 1 and at 1.5.
            try await Task.sleep(for: .milliseconds(500))
            try expectPositionIsTheClock(of: "a queue at rate 1") { queue.currentTime }
            _ = try busctl("set-property", "Rate", "d", "1.5")
            #expect(queue.rate == 1.5)
            try await Task.sleep(for: .milliseconds(500))
            try expectPositionIsTheClock(of: "a queue at rate 1.5") { queue.currentTime }

            // A seek in the item, from the app and from a client: Seeked at once.
            let monitor = try await seekedMonitor()
            defer { monitor.kill() }
            try expectSeekedPromptly(after: "a queue's seek in the app", to: 20_000_000, on: monitor) { queue.currentTime = 20 }
            _ = try playerctl("position", "5+")
            #expect(abs(queue.currentTime - 25) < 0.3, "\(queue.currentTime)")

            // Next and previous move through the items; the last has no next.
            _ = try playerctl("next")
            #expect(try await eventually { try metadata() == "Two|30000000|'/org/voicememo/track/two'" })
            #expect(try await eventually { try busctl("get-property", "CanGoPrevious") == "b true" })
            _ = try playerctl("next")
            #expect(try await eventually { try metadata().hasPrefix("Three|") })
            #expect(try await eventually { try busctl("get-property", "CanGoNext") == "b false" })
            // playerctl sends no Next to a player that says it cannot go next; one sent all the same does nothing.
            _ = try busctl("call", "Next")
            #expect(queue.currentItem?.url == urls[2], "no next after the last item")
            _ = try playerctl("previous")
            #expect(try await eventually { try metadata().hasPrefix("Two|") })
            #expect(queue.currentItem?.url == urls[1] && queue.isPlaying)
            #expect(try playerctl("status") == "Playing")
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
