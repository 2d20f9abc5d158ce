import AudioIO
import Foundation
import TestSupport
import Testing

/// An address of the app's own scheme whose loader holds back its bytes, played on a device with a real clock (a
/// PulseAudio null sink): the player stalls and waits to minimize stalls, as for an `http` download that falls behind,
/// and plays on by itself once the bytes come. `.player`: it plays in real time.
@Suite(.timeLimit(.minutes(1)), .tags(.player)) struct ResourceLoaderStallTests {
    @Test func aLoaderThatHoldsBackItsBytesStallsThePlayerUntilTheyCome() async throws {
        try ALSATestDevices.install()
        let noise = try NoiseTalk()
        // The first 100 KB (3.1 s) at once, the rest only once the test lets it go.
        let loader = MemoryLoader(try Data(contentsOf: noise.talk), chunk: 4096, held: 100_000..<Int64.max)
        let pulse = try PulseAudioServer()
        defer { pulse.stop() }
        let asset = AudioAsset(url: URL(string: "memo-mem://talk.wav")!, cache: noise.cache)
        asset.resourceLoader.setDelegate(loader, queue: nil)
        #expect(asset.resourceLoader.delegate === loader && asset.resourceLoader.delegateQueue == nil)
        let player = Player(playerItem: PlayerItem(asset: asset))
        player.currentDevice = pulse.device
        let log = EventLog(player.events())
        #expect(player.play())
        #expect(try await eventually(within: 20) { log.events.contains(.playbackStalled) }, "\(log.events)")
        let stalledAt = player.currentTime
        #expect(stalledAt > 2 && stalledAt < 3.2, "stalled where the bytes given end: \(stalledAt) s")
        #expect(player.isPlaying && player.isPlaybackBufferEmpty && !player.isPlaybackLikelyToKeepUp)
        #expect(player.timeControlStatus == .waitingToPlayAtSpecifiedRate(.toMinimizeStalls))
        #expect(player.reasonForWaitingToPlay == .toMinimizeStalls)
        loader.release()
        #expect(try await eventually { log.events.contains(.playbackResumed) }, "\(log.events)")
        #expect(try await eventually { player.timeControlStatus == .playing && player.currentTime > stalledAt + 0.5 })
    }
}
