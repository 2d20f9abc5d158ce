import AudioIO
import Foundation
import TestSupport
import Testing

/// The session's policy when the device in use goes away: a PulseAudio server of the test's own whose
/// null sink is unloaded while a player plays into it and a recorder records its monitor.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct AudioSessionRouteTests {
    @Test func aVanishingSinkPausesThePlayerAndFinishesTheRecordingWithWhatWasCaptured() async throws {
        let server = try PulseAudioServer()
        defer { server.stop() }
        let rig = try RecordingRig()
        let tone = rig.scratch.file("tone.wav")
        try Sox.synth(to: tone.path, rate: 48000, channels: 2, seconds: 30, "sine 440")
        let player = try AudioPlayer(contentsOf: tone)
        player.currentDevice = server.device
        let recorder = try rig.recorder("lost.wav", AudioSettings(format: .wav), device: server.device)
        let sessionEvents = AudioSession.shared.events()
        let playerEvents = player.events()
        let playerLog = Task {
            var seen: [AudioPlayer.Event] = []
            for await event in playerEvents { seen.append(event) }
            return seen
        }
        let recorderEvents = recorder.events()

        #expect(player.play() && recorder.record())
        try await until { player.currentTime >= 0.5 && recorder.currentTime >= 0.3 }
        try server.unloadSink()

        // Both streams report the device gone, each once, as a route change.
        var lost: [PortDescription] = []
        for await event in sessionEvents {
            if case .routeChanged(.oldDeviceUnavailable, let port?, let previous) = event, port.name == server.device {
                #expect(previous.outputs.contains { $0.name == server.device } || previous.inputs.contains { $0.name == server.device })
                lost.append(port)
                if lost.count == 2 { break }
            }
        }
        // The player paused where it was, still ready: no finish, no failure, nothing played elsewhere.
        try await until { !player.isPlaying }
        let pausedAt = player.currentTime
        #expect(pausedAt >= 0.5 && pausedAt < 30, "\(pausedAt)")
        #expect(player.status == .readyToPlay)
        // The recording finished, its file holding what was captured.
        var recorded: [AudioRecorder.Event] = []
        for await event in recorderEvents {
            recorded.append(event)
            if case .finishedRecording = event { break }
        }
        #expect(recorded.last == .finishedRecording(successfully: false))
        let summary = try #require(recorder.summary)
        let frames = try Sox.info(recorder.url.path).frames
        #expect(summary.frameCount >= 14400 && Int(summary.frameCount) == frames)

        // Back again: playing resumes from where it paused, on the same device.
        try server.loadSink()
        #expect(player.play())
        try await until { player.currentTime > pausedAt + 0.3 }
        #expect(player.currentDevice == server.device)
        player.stop()
        playerLog.cancel()
        let seen = await playerLog.value
        #expect(!seen.contains { if case .finishedPlaying = $0 { true } else { false } }, "\(seen)")
        // Resuming on the device that came back goes on playing: it is no second start.
        #expect(seen.filter { $0 == .started }.count == 1, "\(seen)")
    }

    @Test func aVanishingSinkPausesTheQueueWhereItWasAndItResumesThere() async throws {
        let server = try PulseAudioServer()
        defer { server.stop() }
        let scratch = try ScratchDirectory()
        let queue = try await toneQueue(2, seconds: 30, in: scratch, on: server.device)
        let items = queue.items()
        let queueEvents = queue.events()
        let queueLog = Task {
            var seen: [BasePlayer.Event] = []
            for await event in queueEvents { seen.append(event) }
            return seen
        }
        #expect(queue.play())
        try await until { queue.currentTime >= 0.5 }
        try server.unloadSink()

        // Paused where it was: the same item, the same position, and no end of the queue reported.
        try await until { !queue.isPlaying }
        let pausedAt = queue.currentTime
        #expect(pausedAt >= 0.5 && pausedAt < 30, "\(pausedAt)")
        #expect(queue.items() == items)

        // Back again: playing resumes from where it paused (not from the item's start).
        try server.loadSink()
        #expect(queue.play())
        try await until { queue.currentTime != pausedAt }
        #expect(queue.currentTime > pausedAt && queue.items() == items)
        queue.removeAllItems()
        queueLog.cancel()
        let seen = await queueLog.value
        #expect(!seen.contains { if case .finishedPlaying = $0 { true } else { false } }, "\(seen)")
    }
}
