import AudioIO
import Foundation
import TestSupport
import Testing

/// A recorder whose capture thread the system runs late (a busy machine, a sound server that hands input over in
/// bursts) loses nothing while the device holds what came meanwhile: a recording asks its device for half a second of
/// input, whatever the session's I/O buffer duration (10 ms here, the default). The microphone overruns as a sound card
/// does once a whole buffer is unread. `.clocked`: it keeps time.
@Suite(.timeLimit(.minutes(1)), .tags(.clocked)) struct LateCaptureThreadTests {
    @Test func aCaptureThreadHeldUpForAThirdOfASecondLosesNoFrame() async throws {
        let scratch = try ScratchDirectory()
        let beep = scratch.path("beep.wav")
        // Full of signal where the thread is held up: a frame lost anywhere in it shows.
        try Sox.synth(to: beep, rate: 48000, channels: 1, seconds: 1, "sine 1000")
        let microphone = try ALSATestDevices.clockedMicrophone(playing: beep)
        let recorder = try AudioRecorder(url: scratch.file("late.wav"), settings: AudioSettings(format: .wav, channelCount: 1))
        recorder.currentDevice = microphone.device(
            hearingFrom: ALSATestDevices.monotonicNow + 300_000_000, stall: .milliseconds(330))
        let events = recorder.events()
        #expect(AudioSession.shared.preferredIOBufferDuration == 0.01)
        #expect(recorder.record(forDuration: 1.6))
        var overruns: [TimeInterval] = []
        for await event in events {
            if case .overrun(let lost) = event { overruns.append(lost) }
            if case .finishedRecording(let successfully) = event {
                #expect(successfully)
                break
            }
        }
        #expect(overruns.isEmpty, "lost \(overruns) s")
        // Every frame of the tone, in order: a lost stretch would stand as silence in it.
        let recorded = try Sox.samples(of: recorder.url.path), tone = try Sox.samples(of: beep)
        let onset = try #require(recorded.firstIndex { $0 != 0 }, "no tone in the recording") - tone.firstIndex { $0 != 0 }!
        #expect(onset + tone.count <= recorded.count, "the tone starts at frame \(onset), too late to end inside")
        let heard = Array(recorded[onset..<min(recorded.count, onset + tone.count)])
        #expect(firstDifference(heard, tone) == nil)
        #expect(recorded.count == 76_800, "1.6 s")
    }
}
