@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// Markers dropped while recording, from the test microphone (unclocked, known content): each at the frame recorded
/// before it, in the recorder and in the file, where the format has a place for it.
@Suite(.timeLimit(.minutes(1))) struct AudioRecorderMarkerTests {
    /// Waits until a paused recorder has taken its last period: its time stands still.
    private func settled(_ recorder: AudioRecorder) async throws -> TimeInterval {
        var last = -1.0
        while recorder.currentTime != last {
            last = recorder.currentTime
            try await Task.sleep(for: .milliseconds(20))
        }
        return last
    }

    @Test(arguments: [
        (AudioSettings(format: .wav), ALSATestDevices.SampleFormat.int16),
        (AudioSettings(format: .opus), .float32),
        (AudioSettings(format: .aac), .float32),
    ])
    func aMarkerIsAtTheFrameRecordedBeforeItInTheRecorderAndTheFile(settings: AudioSettings, format: ALSATestDevices.SampleFormat) async throws {
        let rig = try RecordingRig()
        let (device, _) = try rig.microphone(seconds: 4, "sine 440", format: format)
        let recorder = try rig.recorder("marked.\(settings.format.fileExtension)", settings, device: device)
        #expect(recorder.addMarker("too early") == nil, "nothing is prepared yet")
        let events = recorder.events()
        #expect(recorder.record())
        for await event in events where event == .started { break }
        try await Task.sleep(for: .milliseconds(30))
        recorder.pause()
        let time = try await settled(recorder)
        let first = try #require(recorder.addMarker("Intro"))
        #expect(first == AudioMarker(framePosition: Int64((time * 48000).rounded()), name: "Intro") && first.framePosition > 0)
        // Resumed for a second more, then finished.
        try await rig.record(recorder) { $0.record(forDuration: 1) }
        #expect(recorder.markers == [first])
        let summary = try #require(recorder.summary)
        #expect(summary.frameCount == first.framePosition + 48000)
        #expect(recorder.addMarker("too late") == nil, "the recording is finished")

        let file = try AudioFile(forReading: recorder.url)
        #expect(file.frameCount == summary.frameCount)
        // WAV cue points and M4A chapters keep the frame; Opus' CHAPTER comments the millisecond.
        let kept = try #require(file.metadata.markers.first)
        #expect(file.metadata.markers.count == 1 && kept.name == "Intro")
        let slack: Int64 = settings.format == .opus ? 24 : 0
        #expect(abs(kept.framePosition - first.framePosition) <= slack, "\(kept) for \(first)")
    }
}
