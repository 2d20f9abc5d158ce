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
            // 3 s of noise, and the inverse of its first 2 s: silence while both play, the noise alone for its last second.
            let signal = scratch.file("signal.wav")
            let inverse = scratch.file("inverse.wav")
            try Sox.synth(to: signal.path, rate: 48000, channels: 1, seconds: 3, "whitenoise")
            try Tool.output("sox", ["-D", signal.path, inverse.path, "trim", "0", "2", "vol", "-1"])
            let players = try [signal, inverse].map { url in
                let player = try AudioPlayer(contentsOf: url)
                player.currentDevice = server.device
                return player
            }
            let group = PlayerGroup(players: players)
            let heard = scratch.path("heard.wav")
            let recorder = try server.recordMonitor(to: heard, channels: 1)
            defer { if recorder.isRunning { recorder.kill() } }
            try await Task.sleep(for: .milliseconds(300))

            let events = group.events()
            #expect(group.play())
            try await Task.sleep(for: .milliseconds(600))
            group.currentTime = 0.2
            #expect(players.allSatisfy { abs($0.currentTime - 0.2) < 0.05 }, "\(players.map(\.currentTime))")
            try await Task.sleep(for: .milliseconds(300))
            group.pause()
            #expect(!group.isPlaying && group.timeControlStatus == .paused)
            let pausedAt = group.currentTime
            try await Task.sleep(for: .milliseconds(300))
            // On from the seek, and short of where the inverse ends (a busy machine may sleep this task long).
            #expect(group.currentTime == pausedAt && (0.3...1.9).contains(pausedAt), "\(pausedAt)")
            #expect(group.play())
            for await event in events where event == .finishedPlaying(successfully: true) { break }
            #expect(players.allSatisfy { !$0.isPlaying }, "told at the end of the longer")
            try await Task.sleep(for: .milliseconds(300))
            recorder.send(SIGINT)
            #expect(recorder.finish().status == 0)

            // What sounded is the noise's last second alone: before it, the two cancelled exactly, through the start,
            // the seek, the pause and the resume.
            let samples = try Sox.samples(of: heard)
            let loud = samples.indices.filter { samples[$0] != 0 }
            let first = try #require(loud.first), last = try #require(loud.last)
            let sounded = Double(last - first) / 48000
            #expect((0.95...1.05).contains(sounded), "sounded for \(sounded) s: the noise alone, the last second")
        }
    }
}
