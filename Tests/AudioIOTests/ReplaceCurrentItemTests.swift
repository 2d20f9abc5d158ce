import AudioIO
import Foundation
import TestSupport
import Testing

/// `AudioPlayer.replaceCurrentItem(with:)`: one player going on with another file or data, rendered offline.
@Suite(.timeLimit(.minutes(1))) struct ReplaceCurrentItemTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    @Test func aPlayingPlayerGoesOnWithTheNewFileFromItsStartKeepingItsSettings() async throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.3)
        let player = try AudioPlayer(contentsOf: a.url)
        player.currentDevice = renderer.device
        player.volume = 0.5
        player.forwardPlaybackEndTime = 0.15
        let log = EventLog(player.events())
        #expect(player.play())
        let first = renderer.render(frameCount: 4800)
        try player.replaceCurrentItem(with: b.url)
        #expect(player.url == b.url && player.duration == 0.3)
        #expect(player.isPlaying && player.status == .readyToPlay)
        #expect(player.forwardPlaybackEndTime == nil, "the range was the old item's")
        let rest = try renderer.renderAll(in: scratch)
        #expect(firstDifference(first + rest, (Array(a.samples.prefix(9600)) + b.samples).map { $0 * 0.5 }) == nil,
                "a tenth of a, then all of b, at the volume set")
        try await until { log.events.contains(.finishedPlaying(successfully: true)) }
        #expect(log.events.filter { $0 != .started } == [
            .statusChanged(.readyToPlay), .timeControlStatusChanged(.playing), .statusChanged(.unknown), .statusChanged(.readyToPlay),
            .timeControlStatusChanged(.paused), .finishedPlaying(successfully: true),
        ], "playing on without a pause: \(log.events)")
    }

    @Test func aPausedPlayerTakesDataAndABadFileLeavesItAsItWas() throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.1)
        let player = try AudioPlayer(contentsOf: a.url)
        player.currentDevice = renderer.device
        #expect(player.prepareToPlay())
        player.currentTime = 0.1
        let bytes = try Data(contentsOf: b.url)
        try player.replaceCurrentItem(with: bytes)
        #expect(player.url == nil && player.data == bytes && player.duration == 0.1)
        #expect(player.currentTime == 0 && !player.isPlaying && player.status == .unknown)
        #expect(throws: AudioFileError.self) { try player.replaceCurrentItem(with: scratch.file("missing.wav")) }
        #expect(player.data == bytes, "what could not be read changes nothing")
        #expect(player.play())
        #expect(firstDifference(try renderer.renderAll(in: scratch), b.samples) == nil)
    }
}
