import Foundation
import TestSupport
import Testing

/// `voicememo record` captures from the moment it is started: a person who starts it and speaks at once keeps the
/// first word, however long the store takes to get ready. A beep played right after the start is whole in the memo, on
/// PulseAudio (a real clock) and on an ALSA device on the monotonic clock, while another process holds the store's lock
/// for 3.5 s (as an import or an edit does while it changes the index; a rebuild of an index lost from a
/// store of 2,000 memos took 19 s of CPU in a debug build), so that a command that opened its device only once it had
/// the store would find the beep gone, and one whose ring held less (two seconds once: a CI run lost 2.07 s) a gap in
/// it; and on ALSA's test microphone, whose file the memo starts with.
/// One test at a time: each keeps time, and the other would load the machine meanwhile.
@Suite(.serialized, .timeLimit(.minutes(3)), .tags(.clocked)) struct CaptureStartTests {
    /// Seconds of the beep.
    static let beepSeconds = 0.3
    /// A sample at least this far from zero (of full scale) is part of the beep: it peaks at half of full scale, and
    /// the sink and the mic are silent otherwise.
    static let loud = 0.1
    /// When the beep is heard after the command starts: as a person who starts it and speaks (not sooner: a debug build
    /// took up to 0.57 s to have its device capturing beside the other real-time tests of `make test`).
    static let beepAfter: Duration = .milliseconds(800)
    /// How long another process holds the store's lock after the command starts: past the beep's end, and well past
    /// two seconds, within the eight the recording's ring holds before the writer takes from it.
    static let storeHeld: Duration = .milliseconds(3500)

    /// Where the beep is in `samples` (48 kHz): its first and last loud sample, in seconds.
    static func beep(in samples: [Int32]) -> (onset: Double, length: Double)? {
        let threshold = Int32(loud * Double(Int32.max))
        guard let first = samples.firstIndex(where: { abs(Int64($0)) > threshold }),
              let last = samples.lastIndex(where: { abs(Int64($0)) > threshold })
        else { return nil }
        return (Double(first) / 48000, Double(last - first + 1) / 48000)
    }

    /// Takes the lock of `cli`'s store (`lock` in the machine's state of it, which every change of the store waits for),
    /// as another voicememo process changing it would; closing the descriptor lets it go.
    static func holdStore(of cli: CLI) throws -> FileHandle {
        try FileManager.default.createDirectory(at: cli.storeState, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let descriptor = open(cli.storeState.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0 && flock(descriptor, LOCK_EX) == 0)
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Lets `store` go at `instant`, on a thread of its own: a task of the test pool may resume seconds late beside
    /// tests that wait on processes, and a lock held past the eight seconds the recording's ring holds overruns it.
    static func release(_ store: FileHandle, at instant: ContinuousClock.Instant) {
        Thread {
            let left = instant - .now
            if left > .zero { usleep(UInt32(left / .microseconds(1))) }
            try? store.close()
        }.start()
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
            let store = try Self.holdStore(of: cli)
            let started = ContinuousClock.now
            let recording = try cli.start(["record", "--device", "pulse", "--title", "Beep"], with: try server.environment)
            try await Task.sleep(until: started + Self.beepAfter)
            // paplay buffers the whole beep before it starts it, so that the sink plays it without a gap.
            let player = try Tool.run("paplay", [beep], environment: try server.environment)
            #expect(player.status == 0, "\(player.standardError)")
            Self.release(store, at: started + Self.storeHeld)
            #expect(recording.nextLine()?.hasPrefix("Recording “Beep” as ") == true)
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

    @Test func aBeepRightAfterTheStartIsWholeInAMemoFromAnALSADeviceWithAClock() async throws {
        let cli = try CLI()
        let beep = cli.scratch.path("beep.wav")
        try Sox.synth(to: beep, rate: 48000, channels: 1, seconds: Self.beepSeconds, "sine 1000")
        let microphone = try ALSATestDevices.clockedMicrophone(playing: beep)
        let store = try Self.holdStore(of: cli)
        let started = ContinuousClock.now
        let device = microphone.device(hearingFrom: ALSATestDevices.monotonicNow + Int64(Self.beepAfter / .nanoseconds(1)))
        let recording = try cli.start(["record", "--device", device, "--duration", "2", "--json"], with: [:])
        Self.release(store, at: started + Self.storeHeld)
        let result = recording.finish()
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let file = try #require(try cli.json(result)["file"] as? String)
        let recorded = try Sox.samples(of: file), played = try Sox.samples(of: beep)
        let found = try #require(Self.beep(in: recorded), "no beep in the memo")
        // Silence before the beep, and every sample of it in order: the device was capturing before it was heard, and
        // the ring held what came while the store was busy.
        #expect(found.onset > 0.005, "the memo starts inside the beep, at \(found.onset) s")
        let onset = try #require(recorded.firstIndex { $0 != 0 }) - played.firstIndex { $0 != 0 }!
        #expect(onset >= 0 && onset + played.count <= recorded.count, "the beep starts at frame \(onset)")
        if onset >= 0, onset + played.count <= recorded.count {
            #expect(firstDifference(Array(recorded[onset..<(onset + played.count)]), played) == nil)
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
