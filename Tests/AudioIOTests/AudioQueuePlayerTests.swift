import AudioIO
import Foundation
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct AudioQueuePlayerTests {
    /// Three noise files of different lengths on one rig.
    private func items(_ rig: PlaybackRig) throws -> [URL] {
        try [0.2, 0.31, 0.15].enumerated().map { index, seconds in
            let url = rig.scratch.file("item\(index).wav")
            try Sox.synth(to: url.path, rate: 48000, channels: 2, seconds: seconds, "whitenoise whitenoise")
            return url
        }
    }

    private func playToEnd(_ queue: AudioQueuePlayer) async -> [AudioQueuePlayer.Event] {
        let stream = queue.events()
        queue.play()
        var events: [AudioQueuePlayer.Event] = []
        for await event in stream {
            events.append(event)
            if case .finishedPlaying = event { break }
        }
        return events
    }

    @Test func itemsPlayBackToBackWithoutAGap() async throws {
        let rig = try PlaybackRig()
        let urls = try items(rig)
        let queue = try AudioQueuePlayer(items: urls)
        queue.currentDevice = rig.device
        #expect(queue.currentItem == urls[0] && queue.items == urls)
        let events = await playToEnd(queue)
        #expect(events == urls.map { .itemDidPlayToEnd($0) } + [.finishedPlaying(successfully: true)])
        #expect(queue.items.isEmpty && queue.currentItem == nil)
        let expected = try urls.map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: expected.count).left, expected) == nil)
    }

    @Test func advancingSkipsTheCurrentItem() async throws {
        let rig = try PlaybackRig()
        let urls = try items(rig)
        let queue = try AudioQueuePlayer(items: urls)
        queue.currentDevice = rig.device
        queue.advanceToNextItem()
        #expect(queue.currentItem == urls[1])
        _ = await playToEnd(queue)
        let expected = try urls.dropFirst().map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: expected.count).left, expected) == nil)
    }

    @Test func insertedAndRemovedItemsChangeWhatPlays() async throws {
        let rig = try PlaybackRig()
        let urls = try items(rig)
        let queue = try AudioQueuePlayer(items: [urls[0], urls[1]])
        queue.currentDevice = rig.device
        try queue.insert(urls[2], after: urls[0])
        #expect(queue.items == [urls[0], urls[2], urls[1]])
        queue.remove(urls[1])
        #expect(queue.items == [urls[0], urls[2]])
        #expect(throws: AudioFileError.self) { try queue.insert(rig.scratch.file("missing.wav"), after: nil) }
        _ = await playToEnd(queue)
        let expected = try [urls[0], urls[2]].map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: expected.count).left, expected) == nil)
    }
}
