import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct QueuePlayerTests {
    /// Three noise files of different lengths on one rig.
    private func items(_ rig: PlaybackRig) throws -> [URL] {
        try [0.2, 0.31, 0.15].enumerated().map { index, seconds in
            let url = rig.scratch.file("item\(index).wav")
            try Sox.synth(to: url.path, rate: 48000, channels: 2, seconds: seconds, "whitenoise whitenoise")
            return url
        }
    }

    private func playToEnd(_ queue: QueuePlayer) async -> [BasePlayer.Event] {
        let stream = queue.events()
        queue.play()
        var events: [BasePlayer.Event] = []
        for await event in stream {
            events.append(event)
            if case .finishedPlaying = event { break }
        }
        return events
    }

    @Test func itemsPlayBackToBackWithoutAGap() async throws {
        let rig = try PlaybackRig()
        let urls = try items(rig)
        let items = try await readyItems(urls)
        let queue = QueuePlayer(items: items)
        queue.currentDevice = rig.device
        #expect(queue.currentItem === items[0] && queue.items() == items)
        // Files are here whole: nothing to wait for.
        #expect(queue.loadedTimeRanges == [0..<items[0].duration] && queue.isPlaybackLikelyToKeepUp && !queue.isPlaybackBufferEmpty)
        let events = await playToEnd(queue)
        #expect(happenings(events) == [.statusChanged(.readyToPlay)] + items.map { .itemDidPlayToEnd($0) } + [.finishedPlaying(successfully: true)])
        // The current item follows the items one by one (an unclocked device may mix one item's start before the
        // last one's is told), ending with none.
        let currentItems = events.compactMap { if case .currentItemChanged(let item) = $0 { Optional(item) } else { nil } }
        #expect(currentItems.last == .some(nil) && currentItems.dropLast().allSatisfy { $0 === items[1] || $0 === items[2] }, "\(currentItems)")
        #expect(events.filter { if case .timeControlStatusChanged = $0 { true } else { false } }
            == [.timeControlStatusChanged(.playing), .timeControlStatusChanged(.paused)])
        #expect(queue.items().isEmpty && queue.currentItem == nil)
        let expected = try urls.map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: expected.count).left, expected) == nil)
    }

    /// As an AVQueuePlayer does: items still loading when `play()` is called play once they have loaded, and `play()`
    /// does not wait for them.
    @Test func itemsStillLoadingPlayOnceLoaded() async throws {
        let rig = try PlaybackRig()
        let urls = try items(rig)
        let items = urls.map(PlayerItem.init(url:))
        let queue = QueuePlayer(items: [])
        queue.currentDevice = rig.device
        for item in items { queue.insert(item, after: nil) }
        let events = await playToEnd(queue)
        #expect(happenings(events).filter { if case .itemDidPlayToEnd = $0 { true } else { false } } == items.map { .itemDidPlayToEnd($0) })
        let expected = try urls.map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: expected.count).left, expected) == nil)
    }

    @Test func advancingSkipsTheCurrentItem() async throws {
        let rig = try PlaybackRig()
        let urls = try items(rig)
        let items = try await readyItems(urls)
        let queue = QueuePlayer(items: items)
        queue.currentDevice = rig.device
        queue.advanceToNextItem()
        #expect(queue.currentItem === items[1])
        _ = await playToEnd(queue)
        let expected = try urls.dropFirst().map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: expected.count).left, expected) == nil)
    }

    @Test func insertedAndRemovedItemsChangeWhatPlays() async throws {
        let rig = try PlaybackRig()
        let urls = try items(rig)
        let items = try await readyItems(urls)
        let queue = QueuePlayer(items: [items[0], items[1]])
        queue.currentDevice = rig.device
        #expect(queue.canInsert(items[2], after: items[0]))
        queue.insert(items[2], after: items[0])
        #expect(queue.items() == [items[0], items[2], items[1]])
        // An item is in a queue once; after one not in the queue, nothing is inserted.
        #expect(!queue.canInsert(items[2], after: nil) && !queue.canInsert(PlayerItem(url: urls[1]), after: PlayerItem(url: urls[0])))
        queue.insert(PlayerItem(url: urls[1]), after: PlayerItem(url: urls[0]))
        queue.remove(items[1])
        #expect(queue.items() == [items[0], items[2]])
        // An item that cannot be read is told when its turn comes, and the queue ends unsuccessfully.
        let missing = PlayerItem(url: rig.scratch.file("missing.wav"))
        queue.insert(missing, after: nil)
        let events = await playToEnd(queue)
        #expect(happenings(events).suffix(2).first.map { if case .itemDidFailToPlayToEnd(missing, _) = $0 { true } else { false } } == true)
        #expect(events.last == .finishedPlaying(successfully: false) && missing.status != .readyToPlay)
        let expected = try [urls[0], urls[2]].map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: expected.count).left, expected) == nil)
    }
}

/// Items that cannot be played are reported one by one and skipped; the rest plays back to back.
@Suite(.timeLimit(.minutes(1))) struct QueuePlayerFailureTests {
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
        let items = try await readyItems(urls)
        let queue = QueuePlayer(items: items)
        queue.currentDevice = rig.device
        try Data(repeating: 7, count: 4096).write(to: changed)
        let failure = try #require(throws: AudioFileError.self) { try AudioFile(forReading: changed) }
        let stream = queue.events()
        #expect(queue.play())
        var events: [BasePlayer.Event] = []
        for await event in stream {
            events.append(event)
            if case .finishedPlaying = event { break }
        }
        var expected: [BasePlayer.Event] = items.map { item in
            item.url == changed ? .itemDidFailToPlayToEnd(item, failure) : .itemDidPlayToEnd(item)
        } + [.finishedPlaying(successfully: false)]
        // Ready once a voice is made; a change of status comes first among what one call reports, before the first
        // item that could not be opened.
        expected.insert(.statusChanged(.readyToPlay), at: 0)
        #expect(happenings(events) == expected)
        #expect(queue.status == .readyToPlay, "an item failing while others play leaves the queue ready")
        let played = try urls.filter { $0 != changed }.map { try rig.expectedSamples(of: $0).left }.reduce([], +)
        #expect(firstDifference(try await rig.deviceSamples(atLeast: played.count).left, played) == nil)
    }

    @Test func aQueueOfNothingPlayableFailsAtOnce() async throws {
        let rig = try PlaybackRig()
        let changed = rig.scratch.file("changed.wav")
        try Sox.synth(to: changed.path, rate: 48000, channels: 2, seconds: 0.1, "sine 300 sine 400")
        let queue = QueuePlayer(items: try await readyItems([changed]))
        queue.currentDevice = rig.device
        try Data(repeating: 7, count: 4096).write(to: changed)
        let stream = queue.events()
        #expect(!queue.play())
        queue.removeAllItems()
        var events: [BasePlayer.Event] = []
        for await event in stream {
            events.append(event)
            if case .itemDidFailToPlayToEnd = event { break }
        }
        guard case .itemDidFailToPlayToEnd(let item, _) = events.last else { Issue.record("\(events)"); return }
        #expect(item.url == changed && queue.items().isEmpty)
        let reason = try #require(throws: AudioFileError.self) { try AudioFile(forReading: changed) }
        #expect(queue.status == .failed(.file(reason)), "nothing in the queue could be played")
    }
}

/// What `AVQueuePlayer` inherits from `AVPlayer` — status, volume, pan, rate, meters, time observers — checked on
/// the samples the offline renderer gets for the items played back to back.
@Suite(.timeLimit(.minutes(1))) struct QueuePlayerControlTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// A 48 kHz file of sox's `effect`.
    func file(_ name: String, seconds: Double, channels: Int = 2, _ effect: String, volume: Double = 0.5) throws -> URL {
        let url = scratch.file(name)
        try Sox.synth(to: url.path, rate: 48000, channels: channels, seconds: seconds, effect, volume: volume)
        return url
    }

    func samples(of file: URL) throws -> [Float] {
        let audio = try AudioFile(forReading: file)
        return try audio.read(frameCount: Int(audio.frameCount))
    }

    func queue(_ items: [URL], on renderer: OfflineRenderer) async throws -> QueuePlayer {
        let queue = QueuePlayer(items: try await readyItems(items))
        queue.currentDevice = renderer.device
        return queue
    }

    /// Hertz of `tone` at `rate` frames a second, from its zero crossings.
    func frequency(_ tone: ArraySlice<Float>, rate: Double = 48000) -> Double {
        Double(zip(tone, tone.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count) / 2 / (Double(tone.count) / rate)
    }

    @Test func volumeOneHalfHalvesEverySampleOfEveryItem() async throws {
        let renderer = try OfflineRenderer()
        let items = [try file("first.wav", seconds: 0.2, "whitenoise whitenoise"), try file("second.wav", seconds: 0.3, "whitenoise whitenoise")]
        let queue = try await queue(items, on: renderer)
        queue.volume = 0.5
        #expect(queue.volume == 0.5)
        queue.play()
        let output = scratch.file("half.wav")
        try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 2, bitDepth: .float32))
        let expected = try (samples(of: items[0]) + samples(of: items[1])).map { $0 * 0.5 }
        #expect(try samples(of: output).count == expected.count)
        #expect(firstDifference(try samples(of: output), expected) == nil)
        queue.volume = 7
        #expect(queue.volume == 1, "clamped to 0…1")
    }

    @Test func panFullyLeftSilencesTheRightChannelOfEveryItem() async throws {
        let renderer = try OfflineRenderer()
        let items = [try file("first.wav", seconds: 0.2, "whitenoise whitenoise"), try file("second.wav", seconds: 0.3, "whitenoise whitenoise")]
        let queue = try await queue(items, on: renderer)
        queue.pan = -1
        queue.play()
        let rendered = renderer.render(frameCount: 24000)
        let both = try samples(of: items[0]) + samples(of: items[1])
        let left = stride(from: 0, to: rendered.count, by: 2).map { rendered[$0] }
        let right = stride(from: 1, to: rendered.count, by: 2).map { rendered[$0] }
        #expect(firstDifference(left, stride(from: 0, to: both.count, by: 2).map { both[$0] }) == nil, "the left as it is")
        #expect(right.allSatisfy { $0 == 0 })
        queue.pan = -3
        #expect(queue.pan == -1, "clamped to −1…1")
    }

    @Test func rate2HalvesTwoQueuedTonesAndKeepsTheirPitch() async throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let items = [try file("a.wav", seconds: 2, channels: 1, "sine 440"), try file("e.wav", seconds: 2, channels: 1, "sine 660")]
        let queue = try await queue(items, on: renderer)
        queue.rate = 2
        #expect(queue.isPlaying, "a rate other than 0 plays, as AVQueuePlayer's does")
        let output = scratch.file("fast.wav")
        let summary = try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 1, bitDepth: .float32))
        #expect(abs(summary.duration - 2) < 0.05, "4 s of tones in \(summary.duration) s")
        let tone = try samples(of: output)
        // Each tone's middle half second, away from the seam and the stretcher's edges.
        let first = frequency(tone[12000..<36000])
        let second = frequency(tone[60000..<84000])
        #expect(abs(first - 440) < 440 * 0.02, "\(first) Hz")
        #expect(abs(second - 660) < 660 * 0.02, "\(second) Hz")
    }

    @Test func aRateSetWhilePlayingIsHeardWithinARing() async throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let items = [try file("a.wav", seconds: 2, channels: 1, "sine 440"), try file("e.wav", seconds: 2, channels: 1, "sine 660")]
        let queue = try await queue(items, on: renderer)
        queue.play()
        let unchanged = renderer.render(frameCount: 24000)
        #expect(firstDifference(unchanged, Array(try samples(of: items[0]).prefix(24000))) == nil, "rate 1 passes samples as they are")
        queue.rate = 2
        #expect(queue.isPlaying, "setting the rate neither starts nor stops the queue")
        let output = scratch.file("faster.wav")
        let summary = try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 1, bitDepth: .float32))
        // 3.5 s of tones left, of which at most a ring (0.25 s) was read at rate 1: 1.75…2 s at rate 2.
        #expect(summary.duration > 1.7 && summary.duration < 2.05, "the rest in \(summary.duration) s")
        let tone = try samples(of: output)
        let last = frequency(tone[(tone.count - 36000)..<(tone.count - 12000)])
        #expect(abs(last - 660) < 660 * 0.02, "\(last) Hz")
    }

    @Test func metersReadTheLevelsSoxMeasuresInEachItem() async throws {
        let renderer = try OfflineRenderer()
        let stereo = try file("stereo.wav", seconds: 0.5, "sine 997 sine 500", volume: 0.5)
        let mono = try file("mono.wav", seconds: 0.5, channels: 1, "sine 440", volume: 0.25)
        let queue = try await queue([stereo, mono], on: renderer)
        queue.isMeteringEnabled = true
        queue.play()
        _ = renderer.render(frameCount: 20000)
        queue.updateMeters()
        let soxStereo = try Sox.levels(of: stereo.path, channels: 2)
        for channel in 0..<2 {
            #expect(abs(Double(queue.peakPower(forChannel: channel)) - soxStereo.peak[channel]) < 0.1, "peak of \(channel)")
            #expect(abs(Double(queue.averagePower(forChannel: channel)) - soxStereo.rms[channel]) < 0.1, "average of \(channel)")
        }
        // Past the seam and well into the mono item: what is read from then on is that item's one channel.
        _ = renderer.render(frameCount: 8000)
        queue.updateMeters()
        _ = renderer.render(frameCount: 16000)
        queue.updateMeters()
        let soxMono = try Sox.levels(of: mono.path, channels: 1)
        #expect(abs(Double(queue.peakPower(forChannel: 0)) - soxMono.peak[0]) < 0.1, "\(queue.peakPower(forChannel: 0))")
        #expect(abs(Double(queue.averagePower(forChannel: 0)) - soxMono.rms[0]) < 0.1, "\(queue.averagePower(forChannel: 0))")
        #expect(queue.peakPower(forChannel: 1) == -160, "a mono item has one channel")
        _ = renderer.render(frameCount: 8000)
        queue.updateMeters()
        queue.updateMeters()
        #expect(queue.averagePower(forChannel: 0) == -160, "nothing played since")
    }

    @Test func aPeriodicObserverFiresAtItsIntervalOverEachItemsTime() async throws {
        let renderer = try OfflineRenderer()
        let items = [try file("first.wav", seconds: 0.3, "whitenoise whitenoise"), try file("second.wav", seconds: 0.3, "whitenoise whitenoise")]
        let queue = try await queue(items, on: renderer)
        let calls = Mutex<[TimeInterval]>([])
        let observer = queue.addPeriodicTimeObserver(forInterval: 0.1) { time in calls.withLock { $0.append(time) } }
        queue.play()
        // Steps of 700 frames, which never end on a multiple of 0.1 s (4800 frames) of either item (14400 frames).
        // The renderer's clock stands still between steps: a step that crosses one is waited for.
        var crossed: [(item: Int, index: Int)] = []
        for step in 1...41 {
            _ = renderer.render(frameCount: 700)
            let item = step * 700 / 14400
            let index = step * 700 % 14400 / 4800
            if crossed.last.map({ $0.item != item || $0.index != index }) ?? true {
                crossed.append((item, index))
                try await until { calls.withLock { $0.count } == crossed.count }
            }
        }
        queue.removeTimeObserver(observer)
        let times = calls.withLock { $0 }
        #expect(crossed.map(\.index) == [0, 1, 2, 0, 1, 2])
        #expect(times.count == 6, "\(times)")
        for (time, crossing) in zip(times, crossed) {
            let multiple = Double(crossing.index) / 10
            #expect(time >= multiple && time <= multiple + 701.0 / 48000, "\(time) s for \(multiple) s of item \(crossing.item)")
        }
    }

    @Test func statusIsReadyOncePlayingAndFailedWhenNoItemCanBe() async throws {
        let renderer = try OfflineRenderer()
        let good = try file("good.wav", seconds: 0.1, "sine 300 sine 400")
        let queue = try await queue([good], on: renderer)
        #expect(queue.status == .unknown)
        let events = queue.events()
        #expect(queue.play())
        #expect(queue.status == .readyToPlay)
        for await event in events {
            #expect(event == .statusChanged(.readyToPlay))
            break
        }

        let unreadable = try file("unreadable.wav", seconds: 0.1, "sine 300 sine 400")
        let failing = try await self.queue([unreadable], on: renderer)
        try Data(repeating: 7, count: 4096).write(to: unreadable)
        let reason = try #require(throws: AudioFileError.self) { try AudioFile(forReading: unreadable) }
        #expect(!failing.play())
        #expect(failing.status == .failed(.file(reason)))
    }
}

/// What `events` say happened (the status, items ending, the end), without the changes of the state the queue is in
/// (playing or not, its rate, its current item), whose number an unclocked device that races through items varies.
func happenings(_ events: [BasePlayer.Event]) -> [BasePlayer.Event] {
    events.filter { event in
        switch event {
        case .currentItemChanged, .timeControlStatusChanged, .rateChanged: false
        default: true
        }
    }
}
