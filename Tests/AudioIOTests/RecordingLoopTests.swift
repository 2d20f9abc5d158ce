import AudioIO
import Foundation
import TestSupport
import Testing

/// Recording a PulseAudio null sink's monitor while playing into the sink: an end-to-end loop through a
/// device with a real clock. Each test has a server of its own, so that nothing else plays into its sink.
///
/// Timings are checked with room to spare: on a busy machine, events reach a test late.
@Suite struct RecordingLoopTests {
    /// sox `stat`'s rough frequency of the first channel of the file at `path`, in hertz.
    func roughFrequency(of path: String) throws -> Double {
        let text = try Tool.run("sox", [path, "-n", "remix", "1", "stat"]).standardError
        let line = text.split(separator: "\n").first { $0.hasPrefix("Rough   frequency:") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") } ?? .nan
    }

    /// Plays `seconds` of sox's `synth effect` (stereo, 48 kHz) into the server's sink and returns once
    /// `meter` hears it.
    func play(_ effect: String, seconds: Double, volume: Double, on server: PulseAudioServer, rig: RecordingRig, heardBy meter: AudioInputMeter) async throws -> AudioPlayer {
        let tone = rig.scratch.path("played.wav")
        try Sox.synth(to: tone, rate: 48000, channels: 2, seconds: seconds, effect, volume: volume)
        let player = try AudioPlayer(contentsOf: URL(fileURLWithPath: tone))
        player.currentDevice = server.device
        try meter.start()
        #expect(player.play())
        let deadline = ContinuousClock.now + .seconds(5)
        repeat {
            try await Task.sleep(for: .milliseconds(20))
            meter.updateMeters()
        } while meter.peakPower(forChannel: 0) < -60 && ContinuousClock.now < deadline
        return player
    }

    @Test func aRecordingOfTheMonitorContainsThePlayedSignalAndStopsAtItsDuration() async throws {
        let server = try PulseAudioServer()
        defer { server.stop() }
        let rig = try RecordingRig()
        let meter = AudioInputMeter(device: server.device)
        let player = try await play("sine 1000", seconds: 4, volume: 0.5, on: server, rig: rig, heardBy: meter)
        defer { player.stop() }
        let recorder = try rig.recorder("loop.wav", AudioSettings(format: .wav, channelCount: 2), device: server.device)
        recorder.isMeteringEnabled = true

        let started = ContinuousClock.now
        async let recording = rig.record(recorder) { $0.record(forDuration: 1) }
        try await Task.sleep(for: .milliseconds(400))
        recorder.updateMeters()
        for channel in 0..<2 {
            #expect(abs(recorder.peakPower(forChannel: channel) + 6.02) < 0.1, "live peak \(recorder.peakPower(forChannel: channel))")
            #expect(abs(recorder.averagePower(forChannel: channel) + 9.03) < 0.1, "live average \(recorder.averagePower(forChannel: channel))")
        }
        let events = try await recording
        let elapsed = ContinuousClock.now - started

        #expect(events.last == .finishedRecording(successfully: true))
        #expect(elapsed > .milliseconds(950) && elapsed < .milliseconds(2500), "took \(elapsed)")
        #expect(try Sox.info(recorder.url.path).frames == 48000)
        #expect(abs(try roughFrequency(of: recorder.url.path) - 1000) < 20)
        let sox = try Sox.levels(of: recorder.url.path, channels: 2)
        let levels = try #require(recorder.summary?.levels)
        for channel in 0..<2 {
            #expect(abs(sox.peak[channel] + 6.02) < 0.1 && abs(sox.rms[channel] + 9.03) < 0.1)
            #expect(abs(levels.peak[channel] - sox.peak[channel]) < 0.1 && abs(levels.average[channel] - sox.rms[channel]) < 0.1)
        }
    }

    @Test func aScheduledRecordingStartsWhenTheDeviceClockReachesItsTime() async throws {
        let server = try PulseAudioServer()
        defer { server.stop() }
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

    @Test func theInputMeterMeasuresWhatPlaysAndThenSilence() async throws {
        let server = try PulseAudioServer()
        defer { server.stop() }
        let rig = try RecordingRig()
        let meter = AudioInputMeter(device: server.device)
        let player = try await play("sine 440", seconds: 1.5, volume: 0.25, on: server, rig: rig, heardBy: meter)
        #expect(meter.channelCount == 2)
        // A window well inside the tone, past the stream's start.
        try await Task.sleep(for: .milliseconds(200))
        meter.updateMeters()
        try await Task.sleep(for: .milliseconds(200))
        meter.updateMeters()
        for channel in 0..<2 {
            #expect(abs(meter.peakPower(forChannel: channel) + 12.04) < 0.1 && abs(meter.averagePower(forChannel: channel) + 15.05) < 0.1)
        }
        let finished = player.events()
        if player.isPlaying { for await event in finished where event == .finishedPlaying(successfully: true) { break } }
        try await Task.sleep(for: .milliseconds(300))
        meter.updateMeters()
        try await Task.sleep(for: .milliseconds(100))
        meter.updateMeters()
        #expect(meter.peakPower(forChannel: 0) == -160 && meter.averagePower(forChannel: 1) == -160)
        #expect(meter.currentTime > 1.4)
        meter.stop()
    }
}
