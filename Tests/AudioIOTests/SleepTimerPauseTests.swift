import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// A ``SleepTimer`` over a player on a PulseAudio null sink, whose monitor records what a listener falling asleep hears.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct SleepTimerPauseTests {
    let scratch: ScratchDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    @Test func theTimerCountsPlayingTimeFadesOutThenPausesAndPutsTheVolumeBack() async throws {
        try await PulseAudioServer.own { server in
            let tone = scratch.file("tone.wav")
            try Sox.synth(to: tone.path, rate: 48000, channels: 1, seconds: 8, "sine 440")
            let player = try AudioPlayer(contentsOf: tone)
            player.currentDevice = server.device
            player.volume = 0.8
            let ends = Mutex(0)
            let timer = SleepTimer(over: player, fadeDuration: 1) { ends.withLock { $0 += 1 } }
            defer { timer.invalidate() }
            let heard = scratch.path("heard.wav")
            let recorder = try server.recordMonitor(to: heard, channels: 1)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))

            timer.set(3)
            // Half a second of playing and a second of pause, stepped on a thread of its own: the test pool's threads
            // may all be waiting on other suites' processes, and a sleep there woke seconds late, the player playing
            // on past its pause (seen: 4.8 s of the 3 the timer allows).
            let (started, played, left) = try await offThePool { () -> (Bool, Double, TimeInterval?) in
                let start = ContinuousClock.now
                guard player.play() else { return (false, 0, nil) }
                usleep(500_000)
                player.pause()
                let played = (ContinuousClock.now - start) / .seconds(1)
                // A second paused does not count.
                usleep(1_000_000)
                return (true, played, timer.remaining)
            }
            #expect(started)
            let remaining = try #require(left)
            #expect(abs(remaining - (3 - played)) < 0.15, "\(remaining) s left after \(played) s of playing")
            player.play()
            try await until { ends.withLock { $0 } == 1 }
            #expect(!player.isPlaying && timer.hasEnded && timer.remaining == 0)
            #expect(player.volume == 0.8, "the volume is back for the next listen: \(player.volume)")
            #expect((2.9...3.6).contains(player.currentTime), "paused after 3 s of playing: \(player.currentTime)")
            try await Task.sleep(for: .milliseconds(500))
            #expect(ends.withLock { $0 } == 1, "ended once")
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            // Counted back from the end of the sound: full level (at 0.8, 1.9 dB under the −9.03 dBFS the monitor hears
            // of this tone at 1), then its last second falling to silence.
            let samples = try Sox.samples(of: heard)
            let threshold = Int32(2_147_483_648 * 0.001)
            let last = try #require(samples.lastIndex { abs($0) > threshold })
            let quarters = (0..<6).reversed().map { Sox.level(of: samples[(last - ($0 + 1) * 12000)..<(last - $0 * 12000)]) }
            #expect(abs(quarters[0] - -10.97) < 0.5 && abs(quarters[1] - -10.97) < 0.5, "before the fade: \(quarters)")
            #expect(zip(quarters.dropFirst(2), quarters.dropFirst(3)).allSatisfy { $1 < $0 - 1 }, "falling: \(quarters)")
        }
    }
}
