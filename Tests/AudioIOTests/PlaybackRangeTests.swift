import AudioIO
import Foundation
import TestSupport
import Testing

/// `forwardPlaybackStartTime` and `forwardPlaybackEndTime` rendered offline: the frames of the range, compared with
/// the file's, once or looped.
@Suite(.timeLimit(.minutes(1))) struct PlaybackRangeTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    func player(_ file: URL, on renderer: OfflineRenderer) throws -> AudioPlayer {
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = renderer.device
        return player
    }

    /// Frames `from..<to` of interleaved stereo `samples`.
    func frames(_ samples: [Float], _ from: Int, _ to: Int) -> [Float] {
        Array(samples[(2 * from)..<(2 * to)])
    }

    @Test func aRangePlaysFromItsStartFrameToTheFrameBeforeItsEnd() async throws {
        let renderer = try OfflineRenderer()
        let (file, samples) = try scratch.noise("noise.wav", seconds: 1)
        let player = try player(file, on: renderer)
        player.forwardPlaybackStartTime = 0.25
        player.forwardPlaybackEndTime = 0.6
        #expect(player.currentTime == 0.25, "the position moves into the range")
        #expect(player.play())
        let rendered = try renderer.renderAll(in: scratch)
        #expect(rendered.count == 2 * 16800)
        #expect(firstDifference(rendered, frames(samples, 12000, 28800)) == nil)
        try await until { !player.isPlaying }
        #expect(player.currentTime == 0.25, "played to its end, the player is back at the range's start")
    }

    @Test func loopsRepeatExactlyTheRangeBackToBack() throws {
        let renderer = try OfflineRenderer()
        let (file, samples) = try scratch.noise("noise.wav", seconds: 1)
        let player = try player(file, on: renderer)
        player.forwardPlaybackStartTime = 0.1
        player.forwardPlaybackEndTime = 0.35
        player.numberOfLoops = 2
        #expect(player.play())
        let range = frames(samples, 4800, 16800)
        let rendered = try renderer.renderAll(in: scratch)
        #expect(rendered.count == 3 * range.count)
        #expect(firstDifference(rendered, range + range + range) == nil, "three times the range, gapless, to the frame")
    }

    @Test func aRangeLoopedAtTwiceTheSpeedLastsHalfAsLongToTheFrame() throws {
        let renderer = try OfflineRenderer()
        let (file, _) = try scratch.noise("noise.wav", seconds: 1)
        let player = try player(file, on: renderer)
        player.enableRate = true
        player.rate = 2
        player.forwardPlaybackStartTime = 0.5
        player.forwardPlaybackEndTime = 0.75
        player.numberOfLoops = 3
        #expect(player.play())
        #expect(try renderer.renderAll(in: scratch).count == 2 * (4 * 12000 / 2))
    }

    @Test func anEndSetWhilePlayingStopsPlaybackThereAndAnEndBeforeTheStartPlaysNothing() async throws {
        let renderer = try OfflineRenderer()
        let (file, samples) = try scratch.noise("noise.wav", seconds: 1)
        let player = try player(file, on: renderer)
        #expect(player.play())
        let first = renderer.render(frameCount: 4800)
        player.forwardPlaybackEndTime = 0.5
        #expect(player.isPlaying && abs(player.currentTime - 0.1) < 0.001, "inside the range: playback goes on")
        let rest = try renderer.renderAll(in: scratch)
        #expect(firstDifference(first + rest, frames(samples, 0, 24000)) == nil)
        // Told by the engine's event thread; a range set before would start a voice that nothing renders.
        try await until { !player.isPlaying }

        player.forwardPlaybackStartTime = 0.8
        #expect(player.forwardPlaybackEndTime == 0.8, "an end before the start is the start")
        player.forwardPlaybackStartTime = 3
        #expect(player.forwardPlaybackStartTime == 1 && player.forwardPlaybackEndTime == 1, "past the end of the file: its end")
        #expect(player.play())
        #expect(renderer.render(frameCount: 4800).allSatisfy { $0 == 0 })
        try await until { !player.isPlaying }
        #expect(!player.isPlaying, "a range of nothing finishes at once")
    }
}
