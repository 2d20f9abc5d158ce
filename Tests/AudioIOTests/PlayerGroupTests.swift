import AudioIO
import Foundation
import TestSupport
import Testing

/// Players steered as one, on a PulseAudio null sink whose monitor records what a listener hears: a noise and its
/// inverse cancel to silence only while they stay together to the frame.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct PlayerGroupTests {
    let scratch: ScratchDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    @Test func aGroupStartsSeeksPausesAndResumesItsPlayersTogetherAndFinishesOnceAllHave() async throws {
        try await PulseAudioServer.own { server in
            // 12 s of noise on the left, and the inverse of its first 10 s on the right: wherever both are heard, they
            // cancel, frame for frame. Long, so that the steps below hold however late a busy machine wakes this task
            // (tests that wait for processes can hold the threads it runs on for seconds); it plays about 3 s.
            let signal = scratch.file("signal.wav")
            let inverse = scratch.file("inverse.wav")
            try Sox.synth(to: signal.path, rate: 48000, channels: 1, seconds: 12, "whitenoise")
            try Tool.output("sox", ["-D", signal.path, inverse.path, "trim", "0", "10", "vol", "-1"])
            let players = try [(signal, Float(-1)), (inverse, 1)].map { url, pan in
                let player = try AudioPlayer(contentsOf: url)
                player.currentDevice = server.device
                player.pan = pan
                return player
            }
            let group = PlayerGroup(players: players)
            let heard = scratch.path("heard.wav")
            let recorder = try server.recordMonitor(to: heard, channels: 2)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))

            let events = group.events()
            #expect(group.play())
            // Steps taken by where the lead is, not by this task's sleeps.
            try await until { group.currentTime >= 0.5 }
            group.currentTime = 0.2
            #expect(players.allSatisfy { abs($0.currentTime - 0.2) < 0.05 }, "\(players.map(\.currentTime))")
            try await until { group.currentTime >= 0.5 }
            group.pause()
            #expect(!group.isPlaying && group.timeControlStatus == .paused)
            let pausedAt = group.currentTime
            try await Task.sleep(for: .milliseconds(300))
            // On from the seek, and short of where the inverse ends.
            #expect(group.currentTime == pausedAt && (0.5...9).contains(pausedAt), "\(pausedAt)")
            #expect(group.play())
            try await until { group.currentTime >= pausedAt + 0.3 }
            // Near the end, playing: the seek is the group's again.
            group.currentTime = 9
            for await event in events where event == .finishedPlaying(successfully: true) { break }
            #expect(players.allSatisfy { !$0.isPlaying }, "told at the end of the longer")
            try await Task.sleep(for: .milliseconds(300))
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            // Through the start, the seeks, the pause and the resume, every frame both sides sounded cancels (a busy
            // machine may leave one side silent for a moment; never a frame apart); the left went on alone for 2 s.
            let samples = try Sox.samples(of: heard)
            let left = stride(from: 0, to: samples.count - 1, by: 2).map { Int64(samples[$0]) }
            let right = stride(from: 1, to: samples.count, by: 2).map { Int64(samples[$0]) }
            let both = left.indices.filter { left[$0] != 0 && right[$0] != 0 }
            let apart = both.filter { abs(left[$0] + right[$0]) > 1 << 16 }
            #expect(both.count > 48000, "both were heard for \(both.count) frames")
            #expect(apart.isEmpty, "\(apart.count) frames apart, from \(String(format: "%.3f", Double(apart.first ?? 0) / 48000)) s")
            let lastOfRight = try #require(right.lastIndex { $0 != 0 }), lastOfLeft = try #require(left.lastIndex { $0 != 0 })
            let alone = Double(lastOfLeft - lastOfRight) / 48000
            #expect((1.95...2.1).contains(alone), "the left alone for \(alone) s")
        }
    }
}
