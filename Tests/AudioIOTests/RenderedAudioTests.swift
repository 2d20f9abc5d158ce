import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// The tap on what a player renders (`renderedAudio()`), read while an offline render runs: the frames it hands over
/// are those rendered, with their times.
@Suite(.timeLimit(.minutes(1))) struct RenderedAudioTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    func noise(_ name: String, seconds: Double) throws -> URL {
        let file = scratch.file(name)
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: seconds, "whitenoise whitenoise")
        return file
    }

    /// Collects what `stream` hands over.
    final class Collected: Sendable {
        let blocks = Mutex<[RenderedAudio]>([])
        init(_ stream: AsyncStream<RenderedAudio>) {
            Task { [weak self] in
                for await block in stream { self?.blocks.withLock { $0.append(block) } }
            }
        }
        var frames: Int { blocks.withLock { $0.reduce(0) { $0 + $1.frameCount } } }
    }

    /// Renders `frames` in periods of 0.1 s, each once the tap has handed over the one before: a render faster than the
    /// tap's reader would lose frames, as it says.
    func render(_ renderer: OfflineRenderer, frames: Int, tapped: Collected) async throws -> [Float] {
        var rendered: [Float] = []
        while rendered.count < frames * 2 {
            let before = tapped.frames
            let period = renderer.render(frameCount: 4800)
            rendered += period
            let sounding = period.contains { $0 != 0 }
            if sounding { try await until { tapped.frames > before } }
        }
        return rendered
    }

    @Test func theTappedFramesAreThoseRenderedAfterVolumeAndPanWithTheirDeviceAndFileTimes() async throws {
        let renderer = try OfflineRenderer()
        let player = try AudioPlayer(contentsOf: try noise("noise.wav", seconds: 0.5))
        player.currentDevice = renderer.device
        player.volume = 0.5
        player.pan = -0.5
        let tapped = Collected(player.renderedAudio())
        _ = renderer.render(frameCount: 2400)
        #expect(player.play())
        let rendered = try await render(renderer, frames: 24000, tapped: tapped)
        try await until { tapped.frames == 24000 }
        let blocks = tapped.blocks.withLock { $0 }
        #expect(blocks.flatMap(\.samples) == Array(rendered.prefix(48000)), "every sample, as the renderer mixed it")
        var frame = 2400
        for block in blocks {
            #expect(block.channelCount == 2 && block.sampleRate == 48000 && block.framesDroppedBefore == 0)
            #expect(block.deviceTime == Double(frame) / 48000, "device time of frame \(frame)")
            #expect(abs(block.itemTime - Double(frame - 2400) / 48000) < 1e-9, "0.05 s of silence before the start")
            frame += block.frameCount
        }
    }

    @Test func aTapAskedForWhilePlayingFollowsSeeksAndAQueuesItems() async throws {
        let renderer = try OfflineRenderer()
        let first = try noise("first.wav", seconds: 0.3), second = try noise("second.wav", seconds: 0.2)
        let queue = QueuePlayer(items: try await readyItems([first, second]))
        queue.currentDevice = renderer.device
        #expect(queue.play())
        _ = renderer.render(frameCount: 4800)
        let tapped = Collected(queue.renderedAudio())
        var rendered = try await render(renderer, frames: 4800, tapped: tapped)
        queue.seek(to: 0.2)
        rendered += try await render(renderer, frames: 4800 + 9600, tapped: tapped)
        try await until { tapped.frames == 19200 }
        let blocks = tapped.blocks.withLock { $0 }
        #expect(blocks.flatMap { $0.samples } == rendered, "from the period after it was asked for, across the seek and the items")
        #expect(abs(blocks[0].itemTime - 0.1) < 1e-9 && blocks[0].deviceTime == 0.1)
        let afterSeek = try #require(blocks.first { $0.deviceTime >= 0.2 })
        #expect(abs(afterSeek.itemTime - 0.2) < 1e-9, "the seek's position")
        let secondItem = try #require(blocks.first { $0.deviceTime >= 0.3 })
        #expect(secondItem.itemTime == 0, "the second item from its start")
    }
}
