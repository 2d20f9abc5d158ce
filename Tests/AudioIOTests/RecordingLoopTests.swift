import AudioIO
import Foundation
import TestSupport
import Testing

/// Recording a PulseAudio null sink's monitor while playing into the sink: an end-to-end loop through a
/// device with a real clock, on the test process's server, one test at a time.
///
/// A busy machine may hold a test back for seconds between two of its steps, so tones play far longer
/// than needed, and the tests poll for what they wait for rather than sleep for it.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct RecordingLoopTests {
    /// sox `stat`'s rough frequency of the first channel of the file at `path`, in hertz.
    func roughFrequency(of path: String) throws -> Double {
        let text = try Tool.run("sox", [path, "-n", "remix", "1", "stat"]).standardError
        let line = text.split(separator: "\n").first { $0.hasPrefix("Rough   frequency:") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? .nan
    }

    /// Has the server play a sine into its sink and returns once `meter` hears it alone; stop it when done.
    ///
    /// The sink's first blocks with a new tone may still hold the tone of the test before, for a block or two (15 ms
    /// seen): both started on a block boundary, so at 1000 Hz they add up in phase to full scale. A reading of the
    /// tone's own peak says that has passed.
    func play(sineOf frequency: Int, amplitude: Double, on server: PulseAudioServer, heardBy meter: AudioInputMeter) async throws -> ServerSine {
        try meter.start()
        let sine = try server.playSine(frequency: frequency, amplitude: amplitude)
        let peak = Float(20 * log10(amplitude))
        try await until { meter.updateMeters(); return abs(meter.peakPower(forChannel: 0) - peak) < 0.05 }
        return sine
    }

    @Test func aRecordingOfTheMonitorContainsThePlayedSignalAndStopsAtItsDuration() async throws {
        try await PulseAudioServer.exclusive { server in
            let rig = try RecordingRig()
            let meter = AudioInputMeter(device: server.device)
            let sine = try await play(sineOf: 1000, amplitude: 0.5, on: server, heardBy: meter)
            defer { sine.stop() }

            // Metered live while it records.
            let live = try rig.recorder("live.wav", AudioSettings(format: .wav, channelCount: 2), device: server.device)
            live.isMeteringEnabled = true
            #expect(live.record())
            try await until { live.currentTime >= 0.3 }
            live.updateMeters()
            live.stop()
            for channel in 0..<2 {
                #expect(abs(live.peakPower(forChannel: channel) + 6.02) < 0.1, "live peak \(live.peakPower(forChannel: channel))")
                #expect(abs(live.averagePower(forChannel: channel) + 9.03) < 0.1, "live average \(live.averagePower(forChannel: channel))")
            }

            // Stopped by its duration, after as much time as that on the device's clock.
            let recorder = try rig.recorder("loop.wav", AudioSettings(format: .wav, channelCount: 2), device: server.device)
            let started = ContinuousClock.now
            let events = try await rig.record(recorder) { $0.record(forDuration: 1) }
            #expect(events.last == .finishedRecording(successfully: true))
            #expect(ContinuousClock.now - started > .milliseconds(950))
            #expect(try Sox.info(recorder.url.path).frames == 48000)
            #expect(abs(try roughFrequency(of: recorder.url.path) - 1000) < 20)
            let sox = try Sox.levels(of: recorder.url.path, channels: 2)
            let levels = try #require(recorder.summary?.levels)
            for channel in 0..<2 {
                #expect(abs(sox.peak[channel] + 6.02) < 0.1 && abs(sox.rms[channel] + 9.03) < 0.1)
                #expect(abs(levels.peak[channel] - sox.peak[channel]) < 0.1 && abs(levels.average[channel] - sox.rms[channel]) < 0.1)
            }
        }
    }

    @Test func aScheduledRecordingStartsWhenTheDeviceClockReachesItsTime() async throws {
        try await PulseAudioServer.exclusive { server in
            let rig = try RecordingRig()
            let recorder = try rig.recorder("later.wav", AudioSettings(format: .wav), device: server.device)
            #expect(recorder.prepareToRecord())
            let events = recorder.events()
            let time = recorder.deviceCurrentTime + 0.3
            let called = ContinuousClock.now
            #expect(recorder.record(atTime: time, forDuration: 0.2))
            for await event in events where event == .started { break }
            #expect(recorder.deviceCurrentTime >= time)
            #expect(ContinuousClock.now - called > .milliseconds(280))
            for await event in events where event == .finishedRecording(successfully: true) { break }
            #expect(recorder.deviceCurrentTime >= time + 0.2)
            #expect(try Sox.info(recorder.url.path).frames == 9600)
        }
    }

    @Test func theInputMeterMeasuresWhatPlaysAndThenSilence() async throws {
        try await PulseAudioServer.exclusive { server in
            let meter = AudioInputMeter(device: server.device)
            let sine = try await play(sineOf: 440, amplitude: 0.25, on: server, heardBy: meter)
            // The stream's channels are those of whoever opened the device first in this process (a mono recording,
            // or the meter's two): each measures the sink's tone.
            #expect((1...2).contains(meter.channelCount))
            // A window well inside the tone, past the stream's start.
            let heard = meter.currentTime
            try await until { meter.currentTime >= heard + 0.2 }
            meter.updateMeters()
            try await until { meter.currentTime >= heard + 0.4 }
            meter.updateMeters()
            for channel in 0..<meter.channelCount {
                let (peak, average) = (meter.peakPower(forChannel: channel), meter.averagePower(forChannel: channel))
                #expect(abs(peak + 12.04) < 0.1 && abs(average + 15.05) < 0.1, "peak \(peak), average \(average)")
            }
            sine.stop()
            try await until { meter.updateMeters(); return meter.peakPower(forChannel: 0) == -160 }
            #expect(meter.peakPower(forChannel: meter.channelCount - 1) == -160 && meter.averagePower(forChannel: meter.channelCount - 1) == -160)
            meter.stop()
            #expect(!meter.isRunning && meter.failure == nil)
        }
    }

    @Test func aVanishingDeviceStopsTheRecordingAndKeepsWhatWasRecorded() async throws {
        // A server of its own: its sink goes away.
        let server = try PulseAudioServer()
        defer { server.stop() }
        let rig = try RecordingRig()
        let recorder = try rig.recorder("lost.wav", AudioSettings(format: .wav), device: server.device)
        let events = recorder.events()
        #expect(recorder.record())
        try await until { recorder.currentTime >= 0.3 }
        try server.unloadSink()
        var seen: [AudioRecorder.Event] = []
        for await event in events {
            seen.append(event)
            if case .finishedRecording = event { break }
        }
        #expect(seen.last == .finishedRecording(successfully: false))
        guard case .failed(.device(let error)) = recorder.status else { Issue.record("status \(recorder.status)"); return }
        #expect(error.operation == .stream && error.device == server.device)
        let summary = try #require(recorder.summary)
        let frames = try Sox.info(recorder.url.path).frames
        #expect(summary.frameCount >= 14400 && frames == Int(summary.frameCount))
    }
}
