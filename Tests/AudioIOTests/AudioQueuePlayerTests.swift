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

/// Items that cannot be played are reported one by one and skipped; the rest plays back to back.
@Suite(.timeLimit(.minutes(1))) struct AudioQueuePlayerFailureTests {
    @Test(arguments: [0, 1, 2])
    func anItemThatChangedOnTheDiskIsReportedAndSkipped(at position: Int) async throws {
        let rig = try PlaybackRig()
        var urls = try [0.2, 0.15].enumerated().map { index, seconds in
            let url = rig.scratch.file("item\(index).wav")
            try Sox.synth(to: url.path, rate: 48000, channels: 2, seconds: seconds, "whitenoise whitenoise")
            return url
        }
        // Readable when queued, overwritten with something that is not audio before it plays.
        let changed = rig.scratch.file("changed.wav")
        try Sox.synth(to: changed.path, rate: 48000, channels: 2, seconds: 0.1, "sine 300 sine 400")
        urls.insert(changed, at: position)
        let queue = try AudioQueuePlayer(items: urls)
        queue.currentDevice = rig.device
        try Data(repeating: 7, count: 4096).write(to: changed)
        let failure = try #require(throws: AudioFileError.self) { try AudioFile(forReading: changed) }
        let stream = queue.events()
        #expect(queue.play())
        var events: [AudioQueuePlayer.Event] = []
        for await event in stream {
            events.append(event)
            if case .finishedPlaying = event { break }
        }
        let expected: [AudioQueuePlayer.Event] = urls.map { url in
            url == changed ? .itemDidFailToPlayToEnd(url, failure) : .itemDidPlayToEnd(url)
        } + [.finishedPlaying(successfully: false)]
        #expect(events == expected)
        let played = try urls.filter { $0 != changed }.map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: played.count).left, played) == nil)
    }

    @Test func aQueueOfNothingPlayableFailsAtOnce() async throws {
        let rig = try PlaybackRig()
        let changed = rig.scratch.file("changed.wav")
        try Sox.synth(to: changed.path, rate: 48000, channels: 2, seconds: 0.1, "sine 300 sine 400")
        let queue = try AudioQueuePlayer(items: [changed])
        queue.currentDevice = rig.device
        try Data(repeating: 7, count: 4096).write(to: changed)
        let stream = queue.events()
        #expect(!queue.play())
        queue.removeAllItems()
        var events: [AudioQueuePlayer.Event] = []
        for await event in stream {
            events.append(event)
            break
        }
        guard case .itemDidFailToPlayToEnd(let url, _) = events.first else { Issue.record("\(events)"); return }
        #expect(url == changed && queue.items.isEmpty)
    }
}
