import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// ``Playback``, the one protocol of every player and of a group: what code written against it (a status line, a remote
/// control, a sleep timer) sees of each, on the file device.
@Suite struct PlaybackTests {
    enum Kind: String, CaseIterable, Sendable { case audioPlayer, player, queuePlayer, group }

    /// A paused playback of a 2 s stereo tone (a group of two), ready to play.
    func playback(_ kind: Kind, rig: PlaybackRig) async throws -> any Playback {
        let tone = rig.scratch.file("tone.wav")
        try Sox.synth(to: tone.path, rate: 48000, channels: 2, seconds: 2, "sine 440")
        switch kind {
        case .audioPlayer:
            return try rig.player(tone)
        case .player:
            let player = Player(playerItem: try await readyItems([tone])[0])
            player.currentDevice = rig.device
            return player
        case .queuePlayer:
            let queue = QueuePlayer(items: try await readyItems([tone, tone]))
            queue.currentDevice = rig.device
            return queue
        case .group:
            return PlayerGroup(players: [try rig.player(tone), try rig.player(tone)])
        }
    }

    @Test(arguments: Kind.allCases)
    func eachPlaybackTellsItsLengthMovesWithinItAndChangesSpeedWithoutPlaying(kind: Kind) async throws {
        let rig = try PlaybackRig()
        let playback = try await playback(kind, rig: rig)
        try await until { playback.playbackDuration > 0 }
        #expect(abs(playback.playbackDuration - 2) < 0.001 && playback.numberOfChannels == 2)
        #expect(!playback.isPlaying && playback.timeControlStatus == .paused)

        playback.setRate(1.5)
        #expect(playback.rate == 1.5 && !playback.isPlaying, "a speed change does not play")
        playback.setRate(0)
        #expect(playback.rate == 1.5, "0 changes nothing")

        playback.currentTime = 0.5
        #expect(abs(playback.currentTime - 0.5) < 0.001)
        playback.skip(by: 10)
        #expect(abs(playback.currentTime - 2) < 0.001, "a skip stops at the end: \(playback.currentTime)")
        playback.skip(by: -10)
        #expect(playback.currentTime == 0)
        #expect(playback.loadedTimeRanges == [0..<playback.playbackDuration] && !playback.isPlaybackBufferEmpty)
    }

    @Test(arguments: Kind.allCases)
    func eachPlaybackPlaysToItsEndAndSaysSoOnce(kind: Kind) async throws {
        let rig = try PlaybackRig()
        let playback = try await playback(kind, rig: rig)
        let told = Mutex<[BasePlayer.Event]>([])
        let observation = playback.observe { event in told.withLock { $0.append(event) } }
        defer { observation.cancel() }
        let events = playback.events()
        #expect(playback.play())
        for await event in events where event == .finishedPlaying(successfully: true) { break }
        #expect(!playback.isPlaying && playback.timeControlStatus == .paused)
        // A stream hears an event under the player's lock, an observer just after it is let go: wait for the observer,
        // then a moment for a second end that must not come.
        let ended = { told.withLock { $0.contains(.finishedPlaying(successfully: true)) } }
        try await until(ended)
        try await Task.sleep(for: .milliseconds(200))
        let ends = told.withLock { $0.filter { if case .finishedPlaying = $0 { true } else { false } } }
        #expect(ends == [.finishedPlaying(successfully: true)], "\(ends)")
        // Every frame reached the device: a queue's two items, a group's two players mixed into one stream.
        let frames = kind == .queuePlayer ? 2 * 96000 : 96000
        let device = try await rig.deviceSamples(atLeast: frames)
        #expect(device.left.count >= frames)
    }
}
