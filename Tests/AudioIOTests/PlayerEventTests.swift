import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// The events a player UI watches `AVPlayer` for — time control status, rate, time jumps, seek completion, the queue's
/// current item — on players rendered offline: the renderer's clock moves only when the test renders, so what has been
/// heard, and when, is up to the test.
@Suite(.timeLimit(.minutes(1))) struct PlayerEventTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// Stereo white noise of `seconds` at 48 kHz.
    func noise(_ name: String, seconds: Double) throws -> URL {
        let file = scratch.file(name)
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: seconds, "whitenoise whitenoise")
        return file
    }

    /// The interleaved samples of `file`, from frame `from` on, `frames` of them.
    func samples(of file: URL, from: Int, frames: Int) throws -> [Float] {
        let audio = try AudioFile(forReading: file)
        return Array(try audio.read(frameCount: Int(audio.frameCount))[(2 * from)..<(2 * (from + frames))])
    }

    func player(_ file: URL, on renderer: OfflineRenderer) throws -> AudioPlayer {
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = renderer.device
        return player
    }

    /// A player of 3 s of noise on a renderer, 0.1 s into it, its start heard.
    func playingNoise() async throws -> (renderer: OfflineRenderer, file: URL, player: AudioPlayer, log: EventLog<AudioPlayer.Event>) {
        let renderer = try OfflineRenderer()
        let file = try noise("noise.wav", seconds: 3)
        let player = try player(file, on: renderer)
        let log = EventLog(player.events())
        #expect(player.play())
        _ = renderer.render(frameCount: 4800)
        try await until { log.events.contains(.started) }
        return (renderer, file, player, log)
    }

    @Test func aSeekJumpsAndCompletesWhenItsFirstFrameIsRendered() async throws {
        let (renderer, file, player, log) = try await playingNoise()

        let finished = Mutex<[Bool]>([])
        player.seek(to: 2) { result in finished.withLock { $0.append(result) } }
        #expect(player.currentTime == 2)
        #expect(finished.withLock { $0 }.isEmpty, "not complete before its first frame is rendered")
        #expect(firstDifference(renderer.render(frameCount: 4800), try samples(of: file, from: 96000, frames: 4800)) == nil, "from the exact frame")
        try await until { finished.withLock { $0 } == [true] && log.events.count == 4 }
        #expect(log.events == [.statusChanged(.readyToPlay), .timeControlStatusChanged(.playing), .started, .timeJumped])
    }

    @Test func aSeekSupersededOrCancelledBeforeItIsHeardReportsFalse() async throws {
        let (renderer, file, player, log) = try await playingNoise()

        let results = Mutex<[String: Bool]>([:])
        player.seek(to: 1) { finished in results.withLock { $0["first"] = finished } }
        player.seek(to: 2) { finished in results.withLock { $0["second"] = finished } }
        // Handlers are called in the order their seeks ended, by whichever thread delivers the player's events then.
        try await until { results.withLock { $0 } == ["first": false] }
        player.cancelPendingSeeks()
        try await until { results.withLock { $0 } == ["first": false, "second": false] }
        #expect(player.currentTime == 2, "the position stays where the cancelled seek put it")

        player.seek(to: 2.5) { finished in results.withLock { $0["third"] = finished } }
        #expect(firstDifference(renderer.render(frameCount: 4800), try samples(of: file, from: 120_000, frames: 4800)) == nil)
        try await until { results.withLock { $0["third"] } == true }
        player.pause()
        player.seek(to: 0.5) { finished in results.withLock { $0["paused"] = finished } }
        #expect(results.withLock { $0["paused"] } == true, "a seek while paused is complete at once")
        try await until { log.events.filter { $0 == .timeJumped }.count == 4 }
        #expect(log.events.filter { $0 == .timeJumped }.count == 4, "every seek is a time jump: \(log.events)")
    }

    @Test func aRateChangeIsReportedOnceWithTheRateItBecame() async throws {
        let player = try AudioPlayer(contentsOf: try noise("noise.wav", seconds: 1))
        let delegate = RecordingDelegate()
        player.delegate = delegate
        let log = EventLog(player.events())
        player.enableRate = true
        player.rate = 1.5
        player.rate = 1.5
        player.rate = 9
        #expect(delegate.told.withLock { $0 } == [.rateChanged(1.5), .rateChanged(4)], "9 is clamped to 4; 1.5 twice is one change")
        try await until { log.events.count == 2 }
        #expect(log.events == [.rateChanged(1.5), .rateChanged(4)])
    }

    @Test func timeControlStatusWaitsForAScheduledStartThenFollowsPlayPauseAndTheEnd() async throws {
        let renderer = try OfflineRenderer()
        let player = try player(try noise("noise.wav", seconds: 0.5), on: renderer)
        let delegate = RecordingDelegate()
        player.delegate = delegate
        let log = EventLog(player.events())

        #expect(player.play(atTime: renderer.currentTime + 0.2))
        #expect(player.timeControlStatus == .waitingToPlayAtSpecifiedRate(.scheduledStart))
        _ = renderer.render(frameCount: 4800)
        #expect(player.timeControlStatus == .waitingToPlayAtSpecifiedRate(.scheduledStart), "0.1 s rendered: not yet")
        _ = renderer.render(frameCount: 9600)
        try await until { player.timeControlStatus == .playing }
        player.pause()
        #expect(player.timeControlStatus == .paused)
        player.play()
        _ = renderer.render(frameCount: 48000)
        try await until { log.events.last == .finishedPlaying(successfully: true) }
        #expect(player.timeControlStatus == .paused)

        let statuses: [AudioPlayer.Event] = [
            .timeControlStatusChanged(.waitingToPlayAtSpecifiedRate(.scheduledStart)), .timeControlStatusChanged(.playing),
            .timeControlStatusChanged(.paused), .timeControlStatusChanged(.playing), .timeControlStatusChanged(.paused),
        ]
        #expect(log.events == [.statusChanged(.readyToPlay), statuses[0], statuses[1], .started, statuses[2], statuses[3], statuses[4],
                               .finishedPlaying(successfully: true)])
        #expect(delegate.told.withLock { $0 } == statuses + [.finishedPlaying(successfully: true)])
    }

    @Test func eachLoopStartingOverIsATimeJump() async throws {
        let renderer = try OfflineRenderer()
        let player = try player(try noise("noise.wav", seconds: 0.1), on: renderer)
        player.numberOfLoops = 2
        let log = EventLog(player.events())
        #expect(player.play())
        // Into the second pass, then the third: each heard as a jump back to the start.
        _ = renderer.render(frameCount: 7200)
        try await until { log.events.filter { $0 == .timeJumped }.count == 1 }
        _ = renderer.render(frameCount: 4800)
        try await until { log.events.filter { $0 == .timeJumped }.count == 2 }
        #expect(player.currentTime < 0.1)
        _ = renderer.render(frameCount: 4800)
        try await until { log.events.last == .finishedPlaying(successfully: true) }
        #expect(log.events.filter { $0 == .timeJumped }.count == 2, "three passes, two jumps back: \(log.events)")
    }

    @Test func aQueueGoesBackAndForthThroughItsItemsAndTellsEachChange() async throws {
        let renderer = try OfflineRenderer()
        let urls = try (0..<3).map { try noise("item\($0).wav", seconds: 0.3) }
        let items = try await readyItems(urls)
        let queue = QueuePlayer(items: items)
        queue.currentDevice = renderer.device
        let log = EventLog(queue.events())
        #expect(queue.play())
        // The first item played to its end, the second begun.
        _ = renderer.render(frameCount: 19200)
        try await until { log.events.contains(.itemDidPlayToEnd(items[0])) }
        #expect(queue.previousItems == [items[0]] && queue.items() == [items[1], items[2]])

        queue.advanceToPreviousItem()
        #expect(queue.currentItem === items[0] && queue.items() == items && queue.previousItems.isEmpty)
        #expect(firstDifference(renderer.render(frameCount: 4800), try samples(of: urls[0], from: 0, frames: 4800)) == nil, "the first item again, from its start")
        queue.advanceToPreviousItem()
        #expect(queue.currentItem === items[0], "nothing came before the first item")
        queue.advanceToNextItem()
        queue.advanceToNextItem()
        #expect(queue.currentItem === items[2] && queue.previousItems == [items[0], items[1]])
        queue.advanceToPreviousItem()
        #expect(queue.currentItem === items[1] && queue.items() == [items[1], items[2]] && queue.previousItems == [items[0]])
        #expect(firstDifference(renderer.render(frameCount: 4800), try samples(of: urls[1], from: 0, frames: 4800)) == nil)

        let changes: [BasePlayer.Event] = [items[1], items[0], items[1], items[2], items[1]].map { .currentItemChanged($0) }
        try await until { log.events.filter { if case .currentItemChanged = $0 { true } else { false } } == changes }
        #expect(log.events.filter { if case .statusChanged = $0 { false } else { true } }
            == [.timeControlStatusChanged(.playing), changes[0], .itemDidPlayToEnd(items[0])] + changes.dropFirst())
    }

    @Test func aQueueSeeksWithinItsItemAndReportsItsRate() async throws {
        let renderer = try OfflineRenderer()
        let urls = try (0..<2).map { try noise("item\($0).wav", seconds: 1) }
        let queue = QueuePlayer(items: try await readyItems(urls))
        queue.currentDevice = renderer.device
        let log = EventLog(queue.events())
        #expect(queue.play())
        _ = renderer.render(frameCount: 4800)

        let finished = Mutex<[Bool]>([])
        queue.seek(to: 0.5) { result in finished.withLock { $0.append(result) } }
        #expect(queue.currentTime == 0.5 && finished.withLock { $0 }.isEmpty)
        #expect(firstDifference(renderer.render(frameCount: 4800), try samples(of: urls[0], from: 24000, frames: 4800)) == nil)
        try await until { finished.withLock { $0 } == [true] }
        queue.currentTime = 5
        #expect(queue.currentTime == 1, "clamped to the item's length")
        queue.rate = 1.25
        #expect(queue.timeControlStatus == .playing)
        try await until { log.events.count == 5 }
        #expect(log.events == [.statusChanged(.readyToPlay), .timeControlStatusChanged(.playing), .timeJumped, .timeJumped, .rateChanged(1.25)])
    }
}

/// The events of an `events()` stream, collected as they come.
final class EventLog<Event: Sendable>: Sendable {
    private let seen = Mutex<[Event]>([])

    init(_ stream: AsyncStream<Event>) {
        Task { [weak self] in
            for await event in stream { self?.seen.withLock { $0.append(event) } }
        }
    }

    var events: [Event] { seen.withLock { $0 } }
}
