import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// Assets of a scheme of the app's own, whose bytes an ``AssetResourceLoaderDelegate`` gives: played through a real
/// `Player`, rendered offline at the file's rate and compared sample for sample with the file, as an `http` address's
/// are in RemotePlaybackTests.
@Suite(.timeLimit(.minutes(1))) struct ResourceLoaderTests {
    let noise: NoiseTalk
    /// The talk's bytes, which the loaders give.
    let talkBytes: Data

    init() throws {
        noise = try NoiseTalk()
        talkBytes = try Data(contentsOf: noise.talk)
    }

    /// A player of `url`, given by `loader`, on `renderer`, once its item is ready.
    func player(_ url: URL, loader: any AssetResourceLoaderDelegate, on renderer: OfflineRenderer) async throws -> Player {
        let asset = AudioAsset(url: url, cache: noise.cache)
        asset.resourceLoader.setDelegate(loader, queue: DispatchQueue(label: "test-loader"))
        let player = Player(playerItem: PlayerItem(asset: asset))
        player.currentDevice = renderer.device
        try await until { player.currentItem?.status != .unknown }
        return player
    }

    @Test func anEncryptedFileDecryptedAsItIsReadPlaysToItsEnd() async throws {
        let vault = noise.scratch.file("vault")
        try FileManager.default.createDirectory(at: vault, withIntermediateDirectories: true)
        let key: UInt64 = 0x5EC2E7
        try VaultLoader.crypt(talkBytes, at: 0, key: key).write(to: vault.appendingPathComponent("talk.wav"))
        #expect(throws: AudioFileError.self, "scrambled: not audio") { try AudioFile(forReading: vault.appendingPathComponent("talk.wav")) }
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try await player(URL(string: "memo-enc://vault/talk.wav")!, loader: VaultLoader(vault: vault, key: key), on: renderer)
        let log = EventLog(player.events())
        #expect(player.currentItem?.status == .readyToPlay && player.currentItem?.duration == 30)
        #expect(player.play())
        var played = renderer.render(frameCount: 20 * 16000)
        // Played, all of it is asked for: by now it is all here.
        #expect(try await eventually { player.loadedTimeRanges == [0..<30] }, "\(player.loadedTimeRanges)")
        played += renderer.render(frameCount: 11 * 16000)
        #expect(firstDifference(played, noise.expected) == nil)
        #expect(try await eventually { log.events.contains(.finishedPlaying(successfully: true)) }, "\(log.events)")
    }

    /// A player of the talk through `loader` that plays its first quarter second, then seeks to 20 s: each rendered
    /// frame checked against the talk's.
    func playThenSeekTo20(through loader: MemoryLoader) async throws -> (Player, OfflineRenderer) {
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try await player(URL(string: "memo-mem://talk.wav")!, loader: loader, on: renderer)
        #expect(player.play())
        #expect(firstDifference(renderer.render(frameCount: 4000), Array(noise.expected.prefix(4000))) == nil)
        player.currentTime = 20
        #expect(firstDifference(renderer.render(frameCount: 16000), Array(noise.expected[320_000..<336_000])) == nil)
        return (player, renderer)
    }

    @Test func aSeekCancelsTheRequestUnderWayAndAsksAtItsOffset() async throws {
        // Bytes from 100 KB on are held back: the request of the start is under way when the player seeks.
        let loader = MemoryLoader(talkBytes, chunk: 4096, held: 100_000..<500_000)
        let (player, _) = try await playThenSeekTo20(through: loader)
        // 20 s is byte 44 + 20 × 32000: asked for by a request of its own, and the one that was under way cancelled.
        let asked = withExtendedLifetime(player) { loader.log }
        #expect(asked.first == .information && asked.filter { $0 == .information }.count == 1, "asked once: \(asked)")
        #expect(asked.contains { if case .cancelled = $0 { true } else { false } }, "\(asked)")
        #expect(asked.contains { if case .data(let offset, _, _) = $0 { (600_000...640_044).contains(offset) } else { false } }, "\(asked)")
    }

    @Test func withoutByteRangesOneRequestStreamsFromTheStartAndASeekWaitsForIt() async throws {
        let loader = MemoryLoader(talkBytes, byteRanges: false, chunk: 4096, pause: .milliseconds(5))
        let (player, renderer) = try await playThenSeekTo20(through: loader)
        player.currentTime = 1
        #expect(firstDifference(renderer.render(frameCount: 16000), Array(noise.expected[16000..<32000])) == nil)
        // One request of every byte, from the first, never cancelled: the seeks waited for it, or found their bytes here.
        #expect(loader.log == [.information, .data(offset: 0, length: talkBytes.count, toEnd: true)])
    }

    @Test func aLoaderThatHoldsBackItsBytesEmptiesThePlayersBufferThenItPlaysOn() async throws {
        // Small pieces, and none past 300 KB (9.4 s) until the test lets them go.
        let loader = MemoryLoader(talkBytes, chunk: 1024, pause: .zero, held: 300_000..<Int64.max)
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try await player(URL(string: "memo-mem://talk.wav")!, loader: loader, on: renderer)
        let log = EventLog(player.events())
        #expect(player.play())
        let rendering = Rendering { renderer.render(frameCount: 31 * 16000) }
        #expect(try await eventually { player.isPlaybackBufferEmpty && !player.isPlaybackLikelyToKeepUp && player.isPlaying })
        let loaded = try #require(player.loadedTimeRanges.last?.upperBound)
        #expect(loaded < 9.5, "held back at 300 KB: \(player.loadedTimeRanges)")
        loader.release()
        let played = await rendering.samples
        #expect(firstDifference(played, noise.expected) == nil, "every sample, in order, across the wait")
        #expect(try await eventually { log.events.contains(.finishedPlaying(successfully: true)) }, "\(log.events)")
    }

    @Test func aLoaderThatFinishesWithAnErrorFailsTheItemWithIt() async throws {
        let url = URL(string: "memo-mem://talk.wav")!
        let revoked = AudioFileError(path: url.absoluteString, reason: .downloadFailed(.loaderFailed("the memo's key was revoked")))
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        // Before a byte: the item cannot load.
        let unknown = try await player(url, loader: MemoryLoader(talkBytes, failure: .information), on: renderer)
        #expect(unknown.currentItem?.status == .failed(.file(revoked)))
        #expect(revoked.description.contains("the app's resource loader failed (the memo's key was revoked)") && !revoked.description.contains("\n"))
        // Midway: the item fails to play to its end, with the error. Bytes held back keep the failure away until 5 s played.
        let failing = MemoryLoader(talkBytes, held: 400_000..<Int64.max, failure: .at(500_000))
        let cut = try await player(url, loader: failing, on: renderer)
        let log = EventLog(cut.events())
        let itemLog = EventLog(try #require(cut.currentItem).events())
        #expect(cut.play())
        #expect(firstDifference(renderer.render(frameCount: 5 * 16000), Array(noise.expected.prefix(5 * 16000))) == nil)
        failing.release()
        _ = renderer.render(frameCount: 26 * 16000)
        #expect(try await eventually { itemLog.events.contains(.failedToPlayToEnd(.file(revoked))) }, "\(itemLog.events)")
        #expect(try await eventually { log.events.contains(.finishedPlaying(successfully: false)) }, "\(log.events)")
    }

    @Test func aLoaderThatRefusesOrIsMissingFailsTheItem() async throws {
        let url = URL(string: "memo-mem://talk.wav")!
        let refused = PlayerItem.Status.failed(.file(AudioFileError(path: url.absoluteString, reason: .downloadFailed(.loaderRefused))))
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let refusing = try await player(url, loader: MemoryLoader(talkBytes, failure: .refusal), on: renderer)
        #expect(refusing.currentItem?.status == refused)
        let asset = AudioAsset(url: url, cache: noise.cache)
        await #expect(throws: AudioFileError(path: url.absoluteString, reason: .downloadFailed(.loaderRefused))) {
            try await asset.load(.duration)
        }
        // A file opened by itself has no asset, so no loader: its scheme is not one the library downloads.
        #expect(throws: AudioFileError(path: url.absoluteString, reason: .downloadFailed(.unsupportedAddress("'\(url.absoluteString)'")))) {
            try AudioFile(forReading: url)
        }
    }

    @Test func aSecondPlayReadsTheCacheWithoutAskingForData() async throws {
        let url = URL(string: "memo-mem://talk.wav")!
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        do {
            let first = MemoryLoader(talkBytes, chunk: 64 * 1024, pause: .zero)
            let firstPlayer = try await player(url, loader: first, on: renderer)
            #expect(firstPlayer.play())
            #expect(firstDifference(renderer.render(frameCount: 31 * 16000), noise.expected) == nil)
            #expect(first.log.contains { if case .data = $0 { true } else { false } })
        }
        let second = MemoryLoader(talkBytes, chunk: 64 * 1024, pause: .zero)
        let secondPlayer = try await player(url, loader: second, on: renderer)
        #expect(secondPlayer.play())
        #expect(firstDifference(renderer.render(frameCount: 31 * 16000), noise.expected) == nil)
        // Its content information only, to check that the bytes kept are still of the same length.
        #expect(second.log == [.information])
        // Other content (of another length) at the same address: the cache's bytes are not used.
        let other = MemoryLoader(talkBytes.prefix(44 + 10 * 32000), chunk: 64 * 1024, pause: .zero)
        let otherPlayer = try await player(url, loader: other, on: renderer)
        #expect(otherPlayer.currentItem?.duration == 10)
        #expect(otherPlayer.play())
        #expect(firstDifference(renderer.render(frameCount: 11 * 16000), Array(noise.expected.prefix(10 * 16000))) == nil)
        #expect(other.log.contains { if case .data = $0 { true } else { false } }, "\(other.log)")
    }
}

/// An app's loader of bytes in memory: each data request served on a thread of its own, `chunk` bytes at a time with
/// `pause` between them, those in `held` only after ``release()``; every request it is asked logged.
final class MemoryLoader: AssetResourceLoaderDelegate, @unchecked Sendable {
    /// What the loader was asked, in order.
    enum Asked: Equatable {
        case information
        case data(offset: Int64, length: Int, toEnd: Bool)
        case cancelled(offset: Int64)
    }

    /// How it fails, if it does.
    enum Failure {
        /// Its content information finishes with an error.
        case information
        /// A data request reaching this offset finishes with an error there.
        case at(Int64)
        /// It takes no request.
        case refusal
    }

    struct Revoked: Error, CustomStringConvertible {
        var description: String { "the memo's key was revoked" }
    }

    private let bytes: Data
    private let byteRanges: Bool
    private let chunk: Int
    private let pause: Duration
    private let failure: Failure?
    private let condition = NSCondition()
    private var held: Range<Int64>
    private var asked: [Asked] = []

    init(_ bytes: Data, byteRanges: Bool = true, chunk: Int = 64 * 1024, pause: Duration = .zero, held: Range<Int64> = 0..<0, failure: Failure? = nil) {
        self.bytes = Data(bytes)
        self.byteRanges = byteRanges
        self.chunk = chunk
        self.pause = pause
        self.held = held
        self.failure = failure
    }

    var log: [Asked] { condition.withLock { asked } }

    func release() {
        condition.withLock {
            held = 0..<0
            condition.broadcast()
        }
    }

    func resourceLoader(
        _ resourceLoader: AssetResourceLoader, shouldWaitForLoadingOfRequestedResource loadingRequest: AssetResourceLoadingRequest
    ) -> Bool {
        if case .refusal = failure { return false }
        if let information = loadingRequest.contentInformationRequest {
            condition.withLock { asked.append(.information) }
            if case .information = failure {
                loadingRequest.finishLoading(with: Revoked())
                return true
            }
            information.contentType = "audio/wav"
            information.contentLength = Int64(bytes.count)
            information.isByteRangeAccessSupported = byteRanges
            loadingRequest.finishLoading()
        }
        if let request = loadingRequest.dataRequest {
            condition.withLock {
                asked.append(.data(offset: request.requestedOffset, length: request.requestedLength, toEnd: request.requestsAllDataToEndOfResource))
            }
            Thread { [self] in serve(request, of: loadingRequest) }.start()
        }
        return true
    }

    func resourceLoader(_ resourceLoader: AssetResourceLoader, didCancel loadingRequest: AssetResourceLoadingRequest) {
        condition.withLock { asked.append(.cancelled(offset: loadingRequest.dataRequest?.requestedOffset ?? -1)) }
    }

    private func serve(_ request: AssetResourceLoadingDataRequest, of loadingRequest: AssetResourceLoadingRequest) {
        let end = request.requestedOffset + Int64(request.requestedLength)
        while request.currentOffset < end, !loadingRequest.isCancelled {
            let offset = request.currentOffset
            var next = min(end, offset + Int64(chunk))
            if case .at(let failing) = failure, failing < next {
                guard failing > offset else {
                    loadingRequest.finishLoading(with: Revoked())
                    return
                }
                next = failing
            }
            condition.withLock {
                while held.overlaps(offset..<next), !loadingRequest.isCancelled { _ = condition.wait(until: Date() + 0.05) }
            }
            request.respond(with: bytes[Int(offset)..<Int(next)])
            if pause > .zero { Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) * 1e-18) }
        }
        loadingRequest.finishLoading()
    }
}
