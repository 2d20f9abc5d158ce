import Foundation
import TestSupport
import Testing

/// `voicememo record` captures from the moment it says it records: a person who starts it and speaks at once keeps the
/// first word. A beep played right after the start is whole in the memo, on PulseAudio (a real clock) and on ALSA (the
/// test microphone, whose file the memo starts with).
@Suite(.timeLimit(.minutes(1)), .tags(.clocked)) struct CaptureStartTests {
    /// Seconds of the beep.
    static let beepSeconds = 0.3
    /// A sample at least this far from zero (of full scale) is part of the beep: it peaks at half of full scale, and
    /// the sink and the mic are silent otherwise.
    static let loud = 0.1

    /// Where the beep is in `samples` (48 kHz): its first and last loud sample, in seconds.
    static func beep(in samples: [Int32]) -> (onset: Double, length: Double)? {
        let threshold = Int32(loud * Double(Int32.max))
        guard let first = samples.firstIndex(where: { abs(Int64($0)) > threshold }),
              let last = samples.lastIndex(where: { abs(Int64($0)) > threshold })
        else { return nil }
        return (Double(first) / 48000, Double(last - first + 1) / 48000)
    }

    @Test func aBeepRightAfterTheStartIsWholeInAPulseAudioMemo() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let beep = cli.scratch.path("beep.wav")
            try Sox.synth(to: beep, rate: 48000, channels: 2, seconds: Self.beepSeconds, "sine 1000")
            // What the sink plays, as parec records it: PulseAudio may start a new stream a few milliseconds into its
            // audio (on its next tick), and the memo is to hold the beep as the sink played it.
            let reference = cli.scratch.path("reference.wav")
            let monitor = try server.recordMonitor(to: reference, channels: 1)
            let started = ContinuousClock.now
            let recording = try cli.start(["record", "--device", "pulse", "--title", "Beep"], with: try server.environment)
            // As a person who starts it and speaks: 0.3 s after the command, and not before it says it records (a
            // machine busy with other tests may take longer to start it).
            #expect(recording.nextLine()?.hasPrefix("Recording “Beep” as ") == true)
            try await Task.sleep(until: started + .milliseconds(300))
            // paplay buffers the whole beep before it starts it, so that the sink plays it without a gap.
            let player = try Tool.run("paplay", [beep], environment: try server.environment)
            #expect(player.status == 0, "\(player.standardError)")
            try await Task.sleep(for: .milliseconds(500))
            recording.send(SIGINT)
            let result = recording.finish()
            monitor.send(SIGINT)
            _ = monitor.finish()
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
            let file = try #require(try memoFile(cli))
            let found = try #require(Self.beep(in: try Sox.samples(of: file)), "no beep in the memo")
            let played = try #require(Self.beep(in: try Sox.samples(of: reference)), "the sink played no beep")
            // Silence before the beep: the capture ran before it started. All of it that the sink played: nothing cut.
            #expect(found.onset > 0.005, "the memo starts inside the beep, at \(found.onset) s")
            #expect(abs(found.length - played.length) < 2.0 / 48000, "the beep lasts \(found.length) s, the sink played \(played.length) s")
            #expect(played.length > Self.beepSeconds - 0.02, "the sink played \(played.length) s of the beep")
        }
    }

    @Test func aBeepAtAKnownTimeInTheMicrophoneIsThereInTheMemo() throws {
        let cli = try CLI()
        // One second of silence, the beep, one second of silence: the memo starts with the microphone's first sample.
        let silence = cli.scratch.path("silence.wav"), beep = cli.scratch.path("beep.wav"), source = cli.scratch.path("mic.wav")
        try Sox.synth(to: silence, rate: 48000, channels: 1, seconds: 1, "sine 1000", volume: 0)
        try Sox.synth(to: beep, rate: 48000, channels: 1, seconds: Self.beepSeconds, "sine 1000")
        try Tool.output("sox", [silence, beep, silence, source])
        let device = try ALSATestDevices.microphone(playing: source)
        let result = try cli.run("record", "--device", device, "--duration", "2", "--json")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let file = try #require(try cli.json(result)["file"] as? String)
        let found = try #require(Self.beep(in: try Sox.samples(of: file)), "no beep in the memo")
        let expected = try #require(Self.beep(in: try Sox.samples(of: source)))
        #expect(found.onset == expected.onset && found.length == expected.length, "\(found) against \(expected)")
        #expect(abs(expected.onset - 1) < 0.001)
    }

    /// The file of the one memo in the store.
    func memoFile(_ cli: CLI) throws -> String? {
        let data = Data(try cli.run("list", "--json").standardOutput.utf8)
        let memos = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return memos.first?["file"] as? String
    }
}
