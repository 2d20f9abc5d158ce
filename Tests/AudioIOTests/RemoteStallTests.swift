import AudioIO
import Foundation
import TestSupport
import Testing

/// A download that stops while an address plays on a device with a real clock (a PulseAudio null sink): the output
/// pauses where the audio ran out, and goes on by itself once the server is back and enough is buffered. In
/// `make test`'s clocked suites.
@Suite(.serialized, .timeLimit(.minutes(1))) struct RemoteStallTests {
    let scratch: ScratchDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    @Test func aServerKilledMidwayStallsPlaybackWhichResumesByItselfWhenItIsBack() async throws {
        let talk = scratch.file("talk.wav")
        // 30 s at 32 KB/s: the first 160 KB (5 s) at once, then 1 KB/s, a download that stops mid-way however late the
        // test looks; the server is then killed, and started again without the limit.
        try Sox.synth(to: talk.path, rate: 16000, channels: 1, seconds: 30, "whitenoise")
        let server = try HTTPServer(rate: "1k", rateAfter: "160k")
        try server.put(talk, as: "talk.wav")
        // A server of its own, not a turn on the shared one, which the other clocked suites' time limits wait for.
        let pulse = try PulseAudioServer()
        defer { pulse.stop() }
        do {
            let player = try AudioPlayer(contentsOf: server.url("talk.wav"), cache: RemoteCache(directory: scratch.file("cache")))
            player.currentDevice = pulse.device
            let log = EventLog(player.events())
            #expect(player.play())
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
            #expect(downloaded < 6 && abs(stalledAt - downloaded) < 0.3, "stalled where the downloaded audio ends: \(stalledAt) s of \(downloaded) s")
            try await Task.sleep(for: .milliseconds(600))
            #expect(abs(player.currentTime - stalledAt) < 0.15, "the output waits: \(stalledAt) s, then \(player.currentTime) s")
            try server.limit(rate: nil)
            try server.start()
            #expect(try await eventually { log.events.dropFirst(stalls).contains(.playbackResumed) }, "\(log.events)")
            let resumedAt = player.currentTime
            try await Task.sleep(for: .milliseconds(600))
            #expect(player.currentTime > resumedAt + 0.3, "plays on from \(resumedAt) s: \(player.currentTime) s")
            #expect(abs(resumedAt - stalledAt) < 0.15, "from where it stalled: \(stalledAt) s, \(resumedAt) s")
            player.stop()
        }
    }
}
