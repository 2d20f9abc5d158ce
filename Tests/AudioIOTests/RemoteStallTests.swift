import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// A download that stops while an address plays on a device with a real clock (a PulseAudio null sink), in a player or
/// a queue: the output pauses where the audio ran out, and goes on by itself once the server is back and enough is
/// buffered. `.player`: it plays a stalled download in real time.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.player)) struct RemoteStallTests {
    let scratch: ScratchDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    /// Also for an address that took the place of a file the player played (`replaceCurrentItem(with:cache:)`).
    @Test(arguments: [false, true])
    func aServerKilledMidwayStallsPlaybackWhichResumesByItselfWhenItIsBack(replacingAFile: Bool) async throws {
        let talk = scratch.file("talk.wav")
        let intro = scratch.file("intro.wav")
        try Sox.synth(to: intro.path, rate: 16000, channels: 1, seconds: 2, "sine 440")
        // 30 s at 32 KB/s: the first 160 KB (5.1 s) at once, then 1 KB/s (0.03 s of audio a second), a download that
        // stops mid-way whenever the test looks (all of it would take 13 minutes); the server is then killed, and
        // started again without the limit.
        try Sox.synth(to: talk.path, rate: 16000, channels: 1, seconds: 30, "whitenoise")
        let server = try HTTPServer(rate: "1k", rateAfter: "160k")
        try server.put(talk, as: "talk.wav")
        // A server of its own, not a turn on the shared one, which the other clocked suites' time limits wait for.
        let pulse = try PulseAudioServer()
        defer { pulse.stop() }
        do {
            let cache = RemoteCache(directory: scratch.file("cache"))
            let player = try AudioPlayer(contentsOf: replacingAFile ? intro : server.url("talk.wav"), cache: cache)
            player.currentDevice = pulse.device
            let log = EventLog(player.events())
            // Where it resumed, read as the event happens: a test task that looks later, on a busy machine, would find
            // it already played on.
            let resumedPosition = Mutex<TimeInterval?>(nil)
            let observation = player.observe { [weak player] event in
                guard event == .playbackResumed, let player else { return }
                resumedPosition.withLock { $0 = $0 ?? player.currentTime }
            }
            defer { withExtendedLifetime(observation) {} }
            #expect(player.play())
            if replacingAFile {
                try player.replaceCurrentItem(with: server.url("talk.wav"), cache: cache)
                #expect(player.isPlaying && player.url == server.url("talk.wav"))
            }
            #expect(try await eventually { player.currentTime > 1 })
            #expect(server.isRunning)
            server.kill()
            #expect(try #require(player.loadedTimeRanges.first?.upperBound) < 30, "killed mid-download")
            // Stalled where the downloaded audio ends (a busy machine may have stalled it on the way there too).
            #expect(try await eventually(within: 20) {
                guard let end = player.loadedTimeRanges.first?.upperBound else { return false }
                return log.events.last == .playbackStalled && abs(player.currentTime - end) < 0.3
            }, "\(log.events), at \(player.currentTime) s of \(player.loadedTimeRanges)")
            let stalledAt = player.currentTime
            let stalls = log.events.count
            let downloaded = try #require(player.loadedTimeRanges.first?.upperBound)
            #expect(player.isPlaying && player.isPlaybackBufferEmpty && !player.isPlaybackLikelyToKeepUp)
            #expect(abs(stalledAt - downloaded) < 0.3, "stalled where the downloaded audio ends: \(stalledAt) s of \(downloaded) s")
            try await Task.sleep(for: .milliseconds(600))
            #expect(abs(player.currentTime - stalledAt) < 0.15, "the output waits: \(stalledAt) s, then \(player.currentTime) s")
            try server.limit(rate: nil)
            try server.start()
            #expect(try await eventually { log.events.dropFirst(stalls).contains(.playbackResumed) }, "\(log.events)")
            let resumedAt = try #require(resumedPosition.withLock { $0 })
            try await Task.sleep(for: .milliseconds(600))
            #expect(player.currentTime > resumedAt + 0.3, "plays on from \(resumedAt) s: \(player.currentTime) s")
            #expect(abs(resumedAt - stalledAt) < 0.15, "from where it stalled: \(stalledAt) s, \(resumedAt) s")
            player.stop()
        }
    }

    /// A server slower than playing (half the file's rate): each time the output stalls, it goes on once two seconds
    /// are buffered, as the README says, counting what the decoder took in and what is downloaded ahead of it together
    /// (counted apart, it went on after a fraction of a second, and stalled again at once).
    @Test func aSlowDownloadResumesWithTwoSecondsBuffered() async throws {
        let talk = scratch.file("slow.wav")
        // 16 kHz mono 16-bit, 32 KB/s: the first second at once, then half as fast as it plays.
        try Sox.synth(to: talk.path, rate: 16000, channels: 1, seconds: 30, "whitenoise")
        let server = try HTTPServer(rate: "16k", rateAfter: "32k")
        try server.put(talk, as: "slow.wav")
        let pulse = try PulseAudioServer()
        defer { pulse.stop() }
        let player = try AudioPlayer(contentsOf: server.url("slow.wav"), cache: RemoteCache(directory: scratch.file("cache")))
        player.currentDevice = pulse.device
        // What was buffered when it went on, read as the event happens.
        let buffered = Mutex<[TimeInterval]>([])
        let observation = player.observe { [weak player] event in
            guard event == .playbackResumed, let player, let end = player.loadedTimeRanges.first?.upperBound else { return }
            buffered.withLock { $0.append(end - player.currentTime) }
        }
        defer { withExtendedLifetime(observation) {} }
        #expect(player.play())
        #expect(try await eventually(within: 30) { !buffered.withLock { $0 }.isEmpty }, "it stalled, and went on")
        let atResume = try #require(buffered.withLock { $0.first })
        #expect(atResume >= 1.9, "\(atResume) s buffered when it went on")
        player.stop()
    }

    /// Also for an address that took the place of a queue's file (`replaceCurrentItem(with:)`), in a queue that had no
    /// address before.
    @Test(arguments: [false, true])
    func aQueueOfAddressesStallsWhereTheDownloadOfItsItemStoppedAndPlaysOnToTheEndWhenTheServerIsBack(replacingAFile: Bool) async throws {
        // 2 s, then 9 s, at 32 KB/s: each response's first 100 KB (3.2 s) at once, then 256 bytes a second from the
        // response's start. The first item is here at once; the second stops mid-way, at 6.4 s (two responses' worth,
        // checking it and playing it) and 0.008 s more a second: the rest of it would take more than 5 minutes (at
        // 1 KB/s, 80 s, which a test on a busy machine can outlast). The server is then killed, and started again
        // without the limit.
        let intro = scratch.file("intro.wav")
        let talk = scratch.file("talk.wav")
        try Sox.synth(to: intro.path, rate: 16000, channels: 1, seconds: 2, "whitenoise")
        try Sox.synth(to: talk.path, rate: 16000, channels: 1, seconds: 9, "whitenoise")
        let server = try HTTPServer(rate: "256", rateAfter: "100k")
        try server.put(intro, as: "intro.wav")
        try server.put(talk, as: "talk.wav")
        let pulse = try PulseAudioServer()
        defer { pulse.stop() }
        do {
            let (introURL, talkURL) = (server.url("intro.wav"), server.url("talk.wav"))
            let cache = RemoteCache(directory: scratch.file("cache"))
            let item = { (url: URL) in PlayerItem(asset: AudioAsset(url: url, cache: cache)) }
            let queue = QueuePlayer(items: replacingAFile ? [item(intro)] : [item(introURL), item(talkURL)])
            queue.currentDevice = pulse.device
            // Where the queue was when told, read as it is told, however late this task runs.
            let delegate = PositionRecorder(queue)
            #expect(queue.play())
            if replacingAFile { queue.replaceCurrentItem(with: item(talkURL)) }
            #expect(try await eventually(within: 20) { queue.currentItem?.url == talkURL && queue.currentTime > 0.5 })
            #expect(queue.loadedTimeRanges.first?.lowerBound == 0)
            #expect(server.isRunning)
            server.kill()
            let downloaded = try #require(queue.loadedTimeRanges.first?.upperBound)
            #expect(downloaded < 9, "killed mid-download: \(queue.loadedTimeRanges)")
            // Stalled where the downloaded audio ends (a busy machine may have stalled it on the way there too).
            #expect(try await eventually(within: 20) {
                delegate.told.last?.event == .playbackStalled && abs(queue.currentTime - downloaded) < 0.3
            }, "\(delegate.told), at \(queue.currentTime) s of \(queue.loadedTimeRanges)")
            let stalls = delegate.told.count
            let stalledAt = try #require(delegate.told.last?.time)
            #expect(abs(stalledAt - downloaded) < 0.3, "stalled where the downloaded audio ends: \(stalledAt) s of \(downloaded) s")
            #expect(queue.isPlaying && queue.isPlaybackBufferEmpty && !queue.isPlaybackLikelyToKeepUp)
            // Asked to play, and waiting for the download, as AVPlayer tells it.
            #expect(queue.currentItem?.url == talkURL && queue.timeControlStatus == .waitingToPlayAtSpecifiedRate(.toMinimizeStalls))
            #expect(queue.reasonForWaitingToPlay == .toMinimizeStalls)
            // The output waits: the position holds still (on a busy machine it moves even less).
            try await Task.sleep(for: .milliseconds(500))
            #expect(abs(queue.currentTime - stalledAt) < 0.15, "the output waits: \(stalledAt) s, then \(queue.currentTime) s")
            try server.limit(rate: nil)
            try server.start()
            let resumedAt = ContinuousClock.now
            #expect(try await eventually { delegate.told.dropFirst(stalls).contains { $0.event == .playbackResumed } }, "\(delegate.told)")
            let resumed = try #require(delegate.told.dropFirst(stalls).first { $0.event == .playbackResumed })
            #expect(abs(resumed.time - stalledAt) < 0.15, "from where it stalled: \(stalledAt) s, \(resumed.time) s")
            // Nothing skipped on the way to the end: the rest of the talk takes as long as it lasts, played by the clock
            // (less what the device may take in ahead of it, well under a second).
            #expect(try await eventually(within: 20) { delegate.told.contains { $0.event == .finishedPlaying(successfully: true) } }, "\(delegate.told)")
            let heard = ContinuousClock.now - resumedAt
            #expect(heard > .seconds(9 - resumed.time - 1), "\(9 - resumed.time) s left at the resume, heard in \(heard)")
            let events = delegate.told.map(\.event)
            let ended = events.compactMap { if case .itemDidPlayToEnd(let item) = $0 { item.url } else { nil } }
            #expect((replacingAFile || ended.contains(introURL)) && ended.contains(talkURL), "\(events)")
            // The file replaced leaves without playing to its end.
            #expect(!ended.contains(intro), "\(events)")
            #expect(!events.contains(.timeJumped) && !events.contains { if case .itemDidFailToPlayToEnd = $0 { true } else { false } })
            #expect(events.filter { $0 == .playbackStalled }.count == events.filter { $0 == .playbackResumed }.count, "\(events)")
        }
    }
}

/// Writes down each stall, resume, item's end, time jump and end a queue tells, with its position then.
private final class PositionRecorder: Sendable {
    private let seen = Mutex<[(event: BasePlayer.Event, time: TimeInterval)]>([])
    private let observation = Mutex<PlayerObservation?>(nil)
    var told: [(event: BasePlayer.Event, time: TimeInterval)] { seen.withLock { $0 } }

    init(_ player: BasePlayer) {
        let observation = player.observe { [weak self, weak player] event in
            switch event {
            case .playbackStalled, .playbackResumed, .itemDidPlayToEnd, .itemDidFailToPlayToEnd, .finishedPlaying, .timeJumped:
                let time = player?.currentTime ?? 0
                self?.seen.withLock { $0.append((event, time)) }
            default:
                break
            }
        }
        self.observation.withLock { $0 = observation }
    }
}
