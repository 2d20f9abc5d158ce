import AudioIO
import Foundation
import TestSupport
import Testing

/// Players of http addresses, on a local nginx that throttles (limit_rate) and counts the bytes it sends, rendered
/// offline at the file's own rate: what plays is compared sample for sample with the file.
@Suite(.timeLimit(.minutes(1))) struct RemotePlaybackTests {
    let noise: NoiseTalk

    init() throws {
        noise = try NoiseTalk()
    }

    func player(_ url: URL, on renderer: OfflineRenderer) throws -> AudioPlayer {
        let player = try AudioPlayer(contentsOf: url, cache: noise.cache)
        player.currentDevice = renderer.device
        return player
    }

    @Test func theFirstAudioOfAThrottledDownloadPlaysWithinASecond() throws {
        // 128 KB/s: the whole file takes 7.5 s.
        let server = try HTTPServer(rate: "128k")
        try server.put(noise.talk, as: "talk.wav")
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let started = ContinuousClock.now
        let player = try player(server.url("talk.wav"), on: renderer)
        #expect(player.status == .unknown && player.isPlaybackBufferEmpty)
        #expect(player.play())
        let first = renderer.render(frameCount: 8000)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .seconds(1), "the first half second played after \(elapsed)")
        #expect(player.status == .readyToPlay && player.duration == 30)
        #expect(firstDifference(first, Array(noise.expected.prefix(8000))) == nil)
        let loaded = player.loadedTimeRanges
        #expect(loaded.first?.lowerBound == 0 && (loaded.last?.upperBound ?? 30) < 15, "only the start is here: \(loaded)")
        #expect(!player.isPlaybackLikelyToKeepUp || loaded.first!.upperBound >= 2.5)
    }

    @Test func aPlayerOfAFileGoesOnWithAnAddressAndBackWithoutBeingMadeAgain() throws {
        let server = try HTTPServer()
        try server.put(noise.talk, as: "talk.wav")
        let intro = noise.scratch.file("intro.wav")
        try Sox.synth(to: intro.path, rate: 16000, channels: 1, seconds: 0.5, "whitenoise")
        let introSamples = try AudioFile(forReading: intro).read(frameCount: 8000)
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try player(intro, on: renderer)
        #expect(player.play())
        #expect(firstDifference(renderer.render(frameCount: 4000), Array(introSamples.prefix(4000))) == nil)
        try player.replaceCurrentItem(with: server.url("talk.wav"), cache: noise.cache)
        #expect(player.isPlaying && player.status == .readyToPlay && player.duration == 30, "played on once its header was here")
        #expect(firstDifference(renderer.render(frameCount: 16000), Array(noise.expected.prefix(16000))) == nil)
        try player.replaceCurrentItem(with: intro)
        #expect(!player.isPlaybackBufferEmpty && player.loadedTimeRanges == [0..<0.5], "a file again")
        #expect(firstDifference(renderer.render(frameCount: 8000), introSamples) == nil)
    }

    @Test func aSeekIntoAPartNotDownloadedAsksForItAndPlaysItsSamples() throws {
        let server = try HTTPServer(rate: "64k")
        try server.put(noise.talk, as: "talk.wav")
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try player(server.url("talk.wav"), on: renderer)
        #expect(player.play())
        #expect(firstDifference(renderer.render(frameCount: 4000), Array(noise.expected.prefix(4000))) == nil)
        player.currentTime = 20
        let after = renderer.render(frameCount: 16000)
        #expect(firstDifference(after, Array(noise.expected[320_000..<336_000])) == nil)
        // The bytes of 20 s (44 + 20 × 32000) were asked for by a range request of their own, not waited for.
        let ranges = server.requests().map(\.range) + [player.loadedTimeRanges.description]
        #expect(player.loadedTimeRanges.contains { $0.contains(20.5) }, "\(ranges)")
        #expect(player.loadedTimeRanges.count >= 2, "a gap between the start and 20 s: \(player.loadedTimeRanges)")
    }

    @Test func anOpusAddressFetchesItsEndEarlyForItsLengthAndPlaysBeforeTheMiddleIsHere() throws {
        let long = noise.scratch.file("long.wav")
        try Sox.synth(to: long.path, rate: 16000, channels: 1, seconds: 180, "whitenoise")
        let opus = noise.scratch.file("long.opus")
        try Tool.output("ffmpeg", ["-v", "error", "-i", long.path, "-c:a", "libopus", "-b:a", "40k", opus.path])
        // About 900 KB at 48 KB/s: some 19 s for all of it. libsndfile finds the length in the last 64 KiB.
        let server = try HTTPServer(rate: "48k")
        try server.put(opus, as: "long.opus")
        // libsndfile decodes Opus at the rate the encoder was given, here 16 kHz: the render takes it as it is.
        let decoded = try AudioFile(forReading: opus)
        let renderer = try OfflineRenderer(sampleRate: decoded.sampleRate, channelCount: 1)
        let player = try player(server.url("long.opus"), on: renderer)
        #expect(player.prepareToPlay())
        #expect(player.duration == 180, "the length, from the last page's granule position")
        let loaded = player.loadedTimeRanges
        #expect(loaded.count == 2 && loaded[0].lowerBound == 0 && loaded[0].upperBound < 60 && loaded[1].upperBound == 180,
                "the start and the end, not the middle: \(loaded)")
        #expect(player.play())
        let reference = try decoded.read(frameCount: Int(decoded.sampleRate))
        let played = renderer.render(frameCount: Int(decoded.sampleRate))
        #expect(firstDifference(played, reference) == nil, "the first second, as libsndfile decodes the file")
        #expect((player.loadedTimeRanges.first?.upperBound ?? 180) < 120, "played before the middle is here")
    }

    @Test func aSecondPlayOfTheSameAddressDownloadsNothing() async throws {
        let server = try HTTPServer()
        try server.put(noise.talk, as: "talk.wav")
        for pass in 1...2 {
            let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
            let player = try player(server.url("talk.wav"), on: renderer)
            #expect(player.play())
            let played = renderer.render(frameCount: noise.expected.count)
            #expect(firstDifference(played, noise.expected) == nil, "pass \(pass)")
            // The download goes on to the end after playback, and the cache commits it.
            #expect(try await eventually { noise.cache.byteCount == 960_044 }, "pass \(pass): \(noise.cache.byteCount) bytes kept")
        }
        let served = server.requests()
        #expect(server.bodyBytes() == 960_044, "one download in all: \(served.map { "\($0.status) \($0.range) \($0.bodyBytes)" })")
    }

    @Test func aServerKilledMidwayAndStartedAgainCostsNoSample() async throws {
        // The first 300 KB (9.6 s) at once, then 1 KB/s: the rest, over 600 KB, would take more than 10 minutes, and
        // the download is mid-way whenever the test looks (if a busy test pool resumes it late, a little further on:
        // 0.03 s of audio a second).
        let server = try HTTPServer(rate: "1k", rateAfter: "300k")
        try server.put(noise.talk, as: "talk.wav")
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try player(server.url("talk.wav"), on: renderer)
        #expect(player.play())
        // On a thread of its own: a busy test pool may hold a task back for longer than the test waits.
        let rendering = Rendering { renderer.render(frameCount: 30 * 16000) }
        // The render waits for what is missing (a device without a clock): at the end of what is here, not at the start,
        // whose empty buffer lasts until the player's next look finds the first audio (seconds into the render, on a busy
        // machine).
        #expect(try await eventually {
            (player.loadedTimeRanges.first?.upperBound ?? 0) > 9 && player.isPlaybackBufferEmpty && !player.isPlaybackLikelyToKeepUp
        })
        #expect(server.isRunning)
        server.kill()
        #expect(try #require(player.loadedTimeRanges.first?.upperBound) < 30, "killed mid-download")
        // Bytes sent before the kill may still be on their way to the decoder.
        #expect(try await eventually { player.isPlaybackBufferEmpty && !player.isPlaybackLikelyToKeepUp } && player.isPlaying)
        try server.limit(rate: nil)
        try server.start()
        let played = await rendering.samples
        #expect(firstDifference(played, noise.expected) == nil, "every sample, in order, across the outage")
        let resumed = server.requests().filter { $0.range.hasPrefix("bytes=") && !$0.range.hasPrefix("bytes=0-") }
        #expect(!resumed.isEmpty, "the download went on with a range request: \(server.requests().map(\.range))")
    }

    @Test func aServerWithoutRangesPlaysFromTheStart() throws {
        let server = try HTTPServer()
        try server.put(noise.talk, as: "talk.wav")
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try player(server.url("norange/talk.wav"), on: renderer)
        #expect(player.play())
        player.currentTime = 25
        #expect(firstDifference(renderer.render(frameCount: 16000), Array(noise.expected[400_000..<416_000])) == nil)
        #expect(server.requests().allSatisfy { $0.status == 200 }, "nginx sent the whole file each time")
    }

    @Test func aQueueOfAddressesPlaysThemBackToBack() async throws {
        let server = try HTTPServer()
        try server.put(noise.talk, as: "talk.wav")
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let queue = QueuePlayer(items: [server.url("talk.wav"), server.url("norange/talk.wav")].map { PlayerItem(asset: AudioAsset(url: $0, cache: noise.cache)) })
        queue.currentDevice = renderer.device
        // As an app does: play once the items are ready (their headers here), for the renderer to have them at once.
        try await until { queue.items().allSatisfy { $0.status == .readyToPlay } }
        #expect(queue.play())
        let output = noise.scratch.file("queue.wav")
        try renderer.render(to: output, settings: AudioSettings(format: .wav, sampleRate: 16000, channelCount: 1, bitDepth: .float32))
        let played = try AudioFile(forReading: output)
        #expect(firstDifference(try played.read(frameCount: Int(played.frameCount)), noise.expected + noise.expected) == nil)
    }

    @Test func aQueueOnADeviceWithoutAClockWaitsForItsItemsDownloadAndNeverStalls() async throws {
        // The first 300 KB (9.6 s) of each response at once, then 1 KB/s from the response's start: checking the talk
        // and playing it bring some 19 s of it at once, then 0.03 s a second (past 20 s within a minute, when a busy
        // test pool resumes the test that late), and all of it would take more than 5 minutes. Its download is mid-way
        // whenever the test looks.
        let server = try HTTPServer(rate: "1k", rateAfter: "300k")
        let intro = noise.scratch.file("intro.wav")
        try Sox.synth(to: intro.path, rate: 16000, channels: 1, seconds: 2, "whitenoise")
        let introFile = try AudioFile(forReading: intro)
        let introSamples = try introFile.read(frameCount: Int(introFile.frameCount))
        try server.put(intro, as: "intro.wav")
        try server.put(noise.talk, as: "talk.wav")
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let queue = QueuePlayer(items: [server.url("intro.wav"), server.url("talk.wav")].map { PlayerItem(asset: AudioAsset(url: $0, cache: noise.cache)) })
        queue.currentDevice = renderer.device
        let log = EventLog(queue.events())
        #expect(queue.loadedTimeRanges.isEmpty && !queue.isPlaybackLikelyToKeepUp, "not opened before it plays")
        try await until { queue.items().allSatisfy { $0.status == .readyToPlay } }
        #expect(queue.play())
        // A second past the end, for the queue to be told of it.
        let rendering = Rendering { renderer.render(frameCount: 33 * 16000) }
        // The render waits for what is missing of the talk: at the end of what is here, not at the start, whose empty
        // buffer lasts until the queue's next look finds the first audio (seconds into the render, on a busy machine).
        #expect(try await eventually {
            queue.currentItem?.url == server.url("talk.wav") && queue.isPlaybackBufferEmpty && !queue.isPlaybackLikelyToKeepUp
        })
        #expect(server.isRunning)
        server.kill()
        let loaded = queue.loadedTimeRanges
        #expect(loaded.first?.lowerBound == 0 && (loaded.last?.upperBound ?? 30) < 30, "killed mid-download: \(loaded)")
        // Bytes sent before the kill may still be on their way to the decoder.
        #expect(try await eventually { queue.isPlaybackBufferEmpty && !queue.isPlaybackLikelyToKeepUp } && queue.isPlaying)
        try server.limit(rate: nil)
        try server.start()
        let played = await rendering.samples
        #expect(firstDifference(Array(played.prefix(32 * 16000)), introSamples + noise.expected) == nil, "every sample, in order, across the outage")
        #expect(try await eventually { log.events.contains(.finishedPlaying(successfully: true)) }, "\(log.events)")
        #expect(!log.events.contains(.playbackStalled) && !log.events.contains(.playbackResumed), "\(log.events)")
    }

    @Test func aFailedDownloadIsTheStatusWithTheReason() async throws {
        let server = try HTTPServer()
        let renderer = try OfflineRenderer()
        let missing = try player(server.url("missing.wav"), on: renderer)
        #expect(!missing.prepareToPlay())
        #expect(missing.status == .failed(.file(AudioFileError(path: server.url("missing.wav").absoluteString, reason: .downloadFailed(.notFound(status: 404))))))
        let forbidden = try player(server.url("private/talk.wav"), on: renderer)
        #expect(!forbidden.play())
        #expect("\(forbidden.status)".contains("HTTP 403"))
        let nowhere = try AudioPlayer(contentsOf: URL(string: "http://voicememo-test.invalid/talk.wav")!, cache: noise.cache)
        #expect(!nowhere.prepareToPlay())
        #expect(nowhere.status == .failed(.file(AudioFileError(path: "http://voicememo-test.invalid/talk.wav", reason: .downloadFailed(.hostNotFound("voicememo-test.invalid"))))))
    }
}

/// A render on a thread of its own, awaited for its samples.
final class Rendering: @unchecked Sendable {
    private let lock = NSLock()
    private var result: [Float]?
    private var waiting: CheckedContinuation<[Float], Never>?

    init(_ render: @escaping @Sendable () -> [Float]) {
        Thread { [self] in
            let samples = render()
            let waiter = lock.withLock { () -> CheckedContinuation<[Float], Never>? in
                result = samples
                return waiting.take()
            }
            waiter?.resume(returning: samples)
        }.start()
    }

    /// The rendered samples, once the render is done.
    var samples: [Float] {
        get async {
            await withCheckedContinuation { continuation in
                let done = lock.withLock { () -> [Float]? in
                    if result == nil { waiting = continuation }
                    return result
                }
                if let done { continuation.resume(returning: done) }
            }
        }
    }
}
