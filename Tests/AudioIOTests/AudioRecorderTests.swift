import AudioIO
import Foundation
import TestSupport
import Testing

/// Recordings from the test microphone (unclocked, known content).
@Suite struct AudioRecorderTests {
    @Test func sixteenBitWAVAtTheDeviceRateRecordsTheMicrophoneSamplesExactly() async throws {
        let rig = try RecordingRig()
        let (device, samples) = try rig.microphone(seconds: 2.5, "whitenoise")
        let recorder = try rig.recorder("exact.wav", AudioSettings(format: .wav, sampleRate: 48000, channelCount: 1), device: device)
        let events = try await rig.record(recorder) { $0.record(forDuration: 2) }
        #expect(events.contains(.started))
        #expect(events.last == .finishedRecording(successfully: true))
        let recorded = try Sox.samples(of: recorder.url.path)
        #expect(recorded.count == 96000)
        #expect(firstDifference(recorded, Array(samples.prefix(96000))) == nil)
        #expect(recorder.summary?.frameCount == 96000)
    }

    @Test func stereoKeepsEachChannelExactly() async throws {
        let rig = try RecordingRig()
        let (device, samples) = try rig.microphone(seconds: 1.5, "whitenoise pinknoise", channels: 2)
        let recorder = try rig.recorder("stereo.wav", AudioSettings(format: .wav, channelCount: 2), device: device)
        try await rig.record(recorder) { $0.record(forDuration: 1) }
        let recorded = try Sox.samples(of: recorder.url.path)
        #expect(try Sox.info(recorder.url.path).channels == 2)
        #expect(firstDifference(recorded, Array(samples.prefix(96000))) == nil && recorded.count == 96000)
    }

    /// The device is opened in the recording's own format when it takes it, and its samples reach the file as
    /// they are: the same bytes arecord captures with that format.
    @Test(arguments: [
        (AudioSettings(format: .wav, channelCount: 1, bitDepth: .int16), ALSATestDevices.SampleFormat.int16, "S16_LE"),
        (AudioSettings(format: .wav, channelCount: 2, bitDepth: .int24), .int24, "S24_3LE"),
        (AudioSettings(format: .caf, sampleRate: 44100, channelCount: 1, bitDepth: .float32), .float32, "FLOAT_LE"),
    ])
    func aFormatTheDeviceTakesIsRecordedBitForBitAsArecordDoes(
        settings: AudioSettings, format: ALSATestDevices.SampleFormat, arecordFormat: String
    ) async throws {
        let rig = try RecordingRig()
        let bits = settings.effectiveBitDepth == .int16 ? 16 : settings.effectiveBitDepth == .int24 ? 24 : 32
        let rate = Int(settings.sampleRate)
        let (device, samples) = try rig.microphone(
            seconds: 1.5, "whitenoise", channels: settings.channelCount, volume: 0.9, bits: bits, format: format, rate: rate)
        let recorder = try rig.recorder("exact.\(settings.format.fileExtension)", settings, device: device)
        try await rig.record(recorder) { $0.record(forDuration: 1) }
        let captured = rig.scratch.path("arecord.wav")
        try Tool.output("arecord", ["-q", "-D", device, "-f", arecordFormat, "-r", "\(rate)", "-c", "\(settings.channelCount)",
                                    "-s", "\(rate)", captured])
        // Both read by libsndfile: sox scales float files it reads through libsndfile by their peak.
        let recorded = try AudioFile(forReading: recorder.url).read(frameCount: rate)
        #expect(recorded.count == rate * settings.channelCount)
        #expect(try AudioFile(forReading: URL(fileURLWithPath: captured)).read(frameCount: rate) == recorded)
        if settings.effectiveBitDepth != .float32 {
            #expect(firstDifference(try Sox.samples(of: recorder.url.path), Array(samples.prefix(rate * settings.channelCount))) == nil)
        }
    }

    /// Recorders sharing a device take the format of the first that opened it, and convert from it: rate
    /// (libsoxr), channels and bit depth.
    @Test func aSecondRecorderOnTheDeviceConvertsFromTheFirstsFormat() async throws {
        let rig = try RecordingRig()
        let (device, samples) = try rig.microphone(seconds: 2.5, "sine 1000", volume: 0.5)
        let first = try rig.recorder("first.wav", AudioSettings(format: .wav, channelCount: 1), device: device)
        let second = try rig.recorder(
            "second.caf", AudioSettings(format: .caf, sampleRate: 44100, channelCount: 2, bitDepth: .int24), device: device)
        await rig.recordTogether([first, second], in: 0.1, forDuration: 2)
        #expect(try Sox.samples(of: first.url.path) == Array(samples.prefix(96000)))
        let info = try Sox.info(second.url.path)
        #expect(info.rate == 44100 && info.channels == 2 && info.bits == 24 && info.frames == 88200)
        let sox = try Sox.levels(of: second.url.path, channels: 2)
        for channel in 0..<2 {
            #expect(abs(sox.peak[channel] + 6.02) < 0.1 && abs(sox.rms[channel] + 9.03) < 0.1)
        }
    }

    @Test func opusIsAcceptedByOpusinfoAndSoxi() async throws {
        let rig = try RecordingRig()
        let (device, _) = try rig.microphone(seconds: 1.5, "sine 440", format: .float32)
        let recorder = try rig.recorder("voice.opus", AudioSettings(format: .opus, sampleRate: 48000, channelCount: 1), device: device)
        try await rig.record(recorder) { $0.record(forDuration: 1) }
        #expect(try Tool.run("opusinfo", [recorder.url.path]).status == 0)
        let decoded = rig.scratch.path("decoded.wav")
        try Tool.output("opusdec", ["--quiet", "--rate", "48000", recorder.url.path, decoded])
        let info = try Sox.info(decoded)
        #expect(info.channels == 1 && info.frames == 48000)
    }

    @Test(arguments: ["tone", "speech", "silence"])
    func theRecordingsLevelsAgreeWithSoxStatsAndItsLoudnessWithFFmpeg(signal: String) async throws {
        let rig = try RecordingRig()
        let source = rig.scratch.path("\(signal).wav")
        switch signal {
        case "speech": try Tool.output("espeak-ng", ["-w", source, "Levels measured while recording agree with sox."])
        case "tone": try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 1.2, "sine 1000")
        default: try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 1.2, "sine 1000", volume: 0)
        }
        let info = try Sox.info(source)
        // All but the last 0.1 s: the microphone must not run past its file.
        let seconds = Double(info.frames) / info.rate - 0.1
        let recorder = try rig.recorder("\(signal).wav", AudioSettings(format: .wav, channelCount: 1), device: try rig.microphone(playing: source))
        try await rig.record(recorder) { $0.record(forDuration: seconds) }
        let levels = try #require(recorder.summary?.levels)
        let sox = try Sox.levels(of: recorder.url.path, channels: 1)
        #expect(abs(levels.peak[0] - sox.peak[0]) < 0.1, "peak \(levels.peak[0]) vs sox \(sox.peak[0])")
        #expect(abs(levels.average[0] - sox.rms[0]) < 0.1, "average \(levels.average[0]) vs sox \(sox.rms[0])")
        if signal == "silence" { #expect(levels.peak == [-160] && levels.average == [-160]) }
        // The loudness too, measured on the way: what measuring the file gives, and what ffmpeg's meter reads.
        let loudness = try #require(recorder.summary?.loudness)
        #expect(loudness == (try AudioFile(forReading: recorder.url).measureLoudness()))
        let ffmpeg = try LoudnessTests.ffmpeg(recorder.url.path)
        #expect(abs(loudness.integrated - ffmpeg.integrated) <= 0.1, "\(loudness) vs ffmpeg's \(ffmpeg)")
    }

    @Test func pausedTimeIsNotRecordedAndNothingElseIsLost() async throws {
        let rig = try RecordingRig()
        let (device, samples) = try rig.microphone(seconds: 8, "whitenoise")
        let recorder = try rig.recorder("paused.wav", AudioSettings(format: .wav, channelCount: 1), device: device)
        let events = recorder.events()
        #expect(recorder.record())
        recorder.pause()
        #expect(!recorder.isRecording)
        // The capture thread pauses at its next period.
        try await Task.sleep(for: .milliseconds(20))
        let atPause = recorder.currentTime
        try await Task.sleep(for: .milliseconds(30))
        #expect(recorder.currentTime == atPause)
        #expect(recorder.record(forDuration: 0.5))
        for await event in events where event == .finishedRecording(successfully: true) { break }
        let recorded = try Sox.samples(of: recorder.url.path)
        let before = Int((atPause * 48000).rounded())
        #expect(recorded.count == before + 24000)
        #expect(firstDifference(Array(recorded[..<before]), Array(samples[..<before])) == nil)
        // Resumed where the microphone is by then: a whole later stretch, from a period boundary on (the
        // period being read when pause() came is not recorded), and no silence in between.
        let resumed = Array(recorded[before...])
        let start = try #require(stride(from: before, to: samples.count - 24000, by: 480).first {
            Array(samples[$0..<($0 + 64)]) == Array(resumed.prefix(64))
        })
        #expect(firstDifference(resumed, Array(samples[start..<(start + 24000)])) == nil)
    }

    @Test func recordersScheduledForOneDeviceTimeStartOnTheSameFrame() async throws {
        let rig = try RecordingRig()
        let (device, _) = try rig.microphone(seconds: 1.5, "whitenoise")
        let first = try rig.recorder("first.wav", AudioSettings(format: .wav), device: device)
        let second = try rig.recorder("second.wav", AudioSettings(format: .wav), device: device)
        await rig.recordTogether([first, second], in: 0.3, forDuration: 0.5)
        let a = try Sox.samples(of: first.url.path)
        let b = try Sox.samples(of: second.url.path)
        #expect(a.count == 24000 && a == b)
    }

    @Test(arguments: [Double.infinity, 1e300])
    func timesNoFrameCountCanHoldAreTakenAsNeverAndNow(time: Double) async throws {
        let rig = try RecordingRig()
        // Endless silence on the unclocked null device: a duration too long to count runs until stopped,
        // a start too far to count never comes, a NaN start is now.
        let endless = try rig.recorder("endless.wav", AudioSettings(format: .wav), device: "null")
        #expect(endless.record(forDuration: time))
        let never = try rig.recorder("never.wav", AudioSettings(format: .wav), device: "null")
        #expect(never.record(atTime: time, forDuration: 1))
        let now = try rig.recorder("now.wav", AudioSettings(format: .wav), device: "null")
        #expect(now.record(atTime: .nan, forDuration: 0.1))
        try await Task.sleep(for: .milliseconds(300))
        #expect(endless.isRecording && endless.currentTime > 0.1)
        #expect(never.currentTime == 0)
        #expect(now.currentTime == 0.1 || now.summary?.frameCount == 4800)
        for recorder in [endless, never, now] { recorder.stop() }
    }

    @Test func deleteRecordingRemovesTheFile() async throws {
        let rig = try RecordingRig()
        let (device, _) = try rig.microphone(seconds: 0.5, "sine 300")
        let recorder = try rig.recorder("gone.wav", AudioSettings(format: .wav), device: device)
        try await rig.record(recorder) { $0.record(forDuration: 0.2) }
        #expect(FileManager.default.fileExists(atPath: recorder.url.path))
        #expect(recorder.deleteRecording())
        #expect(!FileManager.default.fileExists(atPath: recorder.url.path))
    }

    /// Two recorders given one file (two processes, or one twice): the one that comes second fails to prepare, and the
    /// first records on into the file, which loses nothing.
    @Test func aSecondRecorderOfOneFileFailsAndTheFirstLosesNothing() async throws {
        let rig = try RecordingRig()
        let (device, samples) = try rig.microphone(seconds: 1.5, "whitenoise")
        let first = try rig.recorder("memo.wav", AudioSettings(format: .wav), device: device)
        let second = try rig.recorder("memo.wav", AudioSettings(format: .wav), device: device)
        #expect(first.prepareToRecord())
        #expect(!second.prepareToRecord())
        #expect(second.status == .failed(.file(AudioFileError(path: first.url.path, reason: .inUse))))
        try await rig.record(first) { $0.record(forDuration: 1) }
        let recorded = try Sox.samples(of: first.url.path)
        #expect(recorded.count == 48000 && firstDifference(recorded, Array(samples.prefix(48000))) == nil)
    }

    @Test func aDeviceThatCannotBeOpenedFailsPreparationWithTheReason() throws {
        let rig = try RecordingRig()
        let recorder = try rig.recorder("none.wav", AudioSettings(format: .wav), device: "nosuchdevice")
        #expect(!recorder.prepareToRecord() && !recorder.record())
        guard case .failed(let error) = recorder.status else { Issue.record("status \(recorder.status)"); return }
        #expect("\(error)".hasPrefix("cannot open audio device 'nosuchdevice': "))
        #expect(!FileManager.default.fileExists(atPath: recorder.url.path))
    }
}
