import AudioIO
import Foundation
import TestSupport
import Testing

/// Recorders on the test microphone (`testmic`: an unclocked `file` PCM playing a raw file, DESIGN §7)
/// or on a PulseAudio null sink's monitor (a real clock), with the files they write in a scratch
/// directory.
struct RecordingRig {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// A microphone whose capture is `seconds` of sox's `synth effect` at `rate` with `channels`, `bits` per
    /// sample, laid out as `format` (what the first recorder on it asks for: a 16-bit recording `.int16`),
    /// and the samples it gives, interleaved, left-justified in 32 bits (a 16-bit sample `s` is `s << 16`).
    func microphone(
        seconds: Double, _ effect: String, channels: Int = 1, volume: Double = 0.5, bits: Int = 16,
        format: ALSATestDevices.SampleFormat = .int16, rate: Int = 48000
    ) throws -> (device: String, samples: [Int32]) {
        let source = scratch.path("mic-\(UUID().uuidString.prefix(8)).wav")
        try Sox.synth(to: source, rate: rate, channels: channels, bits: bits, seconds: seconds, effect, volume: volume)
        let device = try ALSATestDevices.microphone(playing: source, format: format, rate: rate, channels: channels)
        return (device, try Sox.samples(of: source))
    }

    /// A microphone whose capture is the audio file at `path`, as a 16-bit mono recording asks for it.
    func microphone(playing path: String) throws -> String {
        try ALSATestDevices.microphone(playing: path)
    }

    /// A recorder into `name` in the scratch directory, on `device`.
    func recorder(_ name: String, _ settings: AudioSettings, device: String) throws -> AudioRecorder {
        let recorder = try AudioRecorder(url: scratch.file(name), settings: settings)
        recorder.currentDevice = device
        return recorder
    }

    /// Prepares `recorders` (of one device), starts them all at one device time `delay` seconds from now for
    /// `duration` seconds, and waits until each has finished.
    func recordTogether(_ recorders: [AudioRecorder], in delay: Double, forDuration duration: Double) async {
        #expect(recorders.allSatisfy { $0.prepareToRecord() })
        let streams = recorders.map { $0.events() }
        let time = recorders[0].deviceCurrentTime + delay
        #expect(recorders.allSatisfy { $0.record(atTime: time, forDuration: duration) })
        for stream in streams {
            for await event in stream where event == .finishedRecording(successfully: true) { break }
        }
    }

    /// Runs `start` on `recorder` and waits until it reports the recording finished; returns every event.
    @discardableResult
    func record(_ recorder: AudioRecorder, start: (AudioRecorder) -> Bool) async throws -> [AudioRecorder.Event] {
        let stream = recorder.events()
        guard start(recorder) else { throw RigTimeout(description: "recording did not start: \(recorder.status)") }
        var events: [AudioRecorder.Event] = []
        for await event in stream {
            events.append(event)
            if case .finishedRecording = event { break }
        }
        return events
    }
}

/// The rig's microphone and recording loop, checked on a short recording of a known signal.
@Suite(.timeLimit(.minutes(1))) struct RecordingRigTests {
    @Test func aRecordingOfTheRigsMicrophoneEndsAndHoldsItsSamples() async throws {
        let rig = try RecordingRig()
        let (device, samples) = try rig.microphone(seconds: 0.5, "sine 440")
        let recorder = try rig.recorder("rig.wav", AudioSettings(format: .wav, channelCount: 1), device: device)
        let events = try await rig.record(recorder) { $0.record(forDuration: 0.25) }
        #expect(events.last == .finishedRecording(successfully: true))
        let recorded = try Sox.samples(of: recorder.url.path)
        #expect(recorded.count == 12000 && firstDifference(recorded, Array(samples.prefix(12000))) == nil)
    }
}
