import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct AudioPlayerTests {
    @Test(arguments: ["wav", "caf"])
    func loopsLandOnTheDeviceSampleForSampleWithoutGaps(format: String) async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.\(format)")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.5, "whitenoise whitenoise")
        let (left, right) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        player.numberOfLoops = 2
        #expect(try await rig.playToEnd([player]) == [true])
        let device = try await rig.deviceSamples(atLeast: 3 * 24000)
        #expect(firstDifference(device.left, left + left + left) == nil)
        #expect(firstDifference(device.right, right + right + right) == nil)
        #expect(device.left.dropFirst(72000).allSatisfy { $0 == 0 }, "nothing after the last loop")
    }

    @Test func anOpusLoopSeamHasNoExtraOrMissingFrame() async throws {
        let rig = try PlaybackRig()
        try Sox.synth(to: rig.scratch.path("noise.wav"), rate: 48000, channels: 2, seconds: 0.3, "whitenoise whitenoise")
        let file = rig.scratch.file("noise.opus")
        _ = try AudioFileConverter.convert(
            contentsOf: rig.scratch.file("noise.wav"), to: file, settings: AudioSettings(format: .opus, channelCount: 2))
        let (left, right) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        player.numberOfLoops = 2
        #expect(try await rig.playToEnd([player]) == [true])
        let device = try await rig.deviceSamples(atLeast: 3 * left.count)
        #expect(firstDifference(device.left, left + left + left) == nil)
        #expect(firstDifference(device.right, right + right + right) == nil)
    }

    @Test func panFullyLeftSilencesTheRightChannel() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.3, "whitenoise whitenoise")
        let (left, _) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        player.pan = -1
        try await rig.playToEnd([player])
        let device = try await rig.deviceSamples(atLeast: left.count)
        #expect(firstDifference(device.left, left) == nil, "the left channel stays at unity")
        #expect(device.right.allSatisfy { $0 == 0 })
    }

    @Test func aMonoFilePlaysOnBothChannelsAtUnity() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("mono.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 0.3, "whitenoise")
        let mono = try Sox.samples(of: file.path)
        try await rig.playToEnd([rig.player(file)])
        let device = try await rig.deviceSamples(atLeast: mono.count)
        #expect(firstDifference(device.left, mono) == nil && firstDifference(device.right, mono) == nil)
    }

    @Test func halfVolumeHalvesEverySample() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.3, "whitenoise whitenoise")
        let (left, right) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        player.volume = 0.5
        try await rig.playToEnd([player])
        let device = try await rig.deviceSamples(atLeast: left.count)
        #expect(firstDifference(device.left, left.map { $0 / 2 }) == nil)
        #expect(firstDifference(device.right, right.map { $0 / 2 }) == nil)
    }

    @Test func aFadeReachesItsTargetOnTime() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("level.wav")
        // Long enough that the fade starts while it plays, even on an unclocked device.
        try rig.writeConstant(0.5, seconds: 20, to: file)
        let player = try rig.player(file)
        let finished = player.events()
        player.play()
        player.setVolume(0, fadeDuration: 0.25)
        for await event in finished { if case .finishedPlaying = event { break } }
        let device = try await rig.deviceSamples(atLeast: 960_000)
        let full = Int32(0.5 * 2_147_483_648.0)
        let rampStart = try #require(device.left.firstIndex { $0 < full })
        let silentFrom = try #require(device.left.firstIndex { $0 == 0 })
        try #require(rampStart + 12000 <= device.left.count, "the fade began before the end")
        // The first frame of the fade is the first one below full level, its 12000th the first at 0.
        #expect(silentFrom - rampStart + 1 == 12000, "0.25 s at 48 kHz, from \(rampStart) to \(silentFrom)")
        let middle = Double(device.left[rampStart + 6000]) / Double(full)
        #expect(abs(middle - 0.5) < 0.01, "half-way down at half the fade: \(middle)")
        #expect(device.left[silentFrom...].prefix(960_000 - silentFrom).allSatisfy { $0 == 0 })
    }

    @Test func doubleRateHalvesTheLengthAndKeepsThePitch() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 2, "sine 1000")
        let player = try rig.player(file)
        player.enableRate = true
        player.rate = 2
        #expect(try await rig.playToEnd([player]) == [true])
        let device = try await rig.deviceSamples(atLeast: 40000)
        let threshold = Int32(0.05 * 2_147_483_648.0)
        let first = try #require(device.left.firstIndex { abs($0) > threshold })
        let last = try #require(device.left.lastIndex { abs($0) > threshold })
        let seconds = Double(last - first) / 48000
        #expect(abs(seconds - 1) < 0.05, "\(seconds) s of sound")
        let sound = device.left[first...last]
        let crossings = zip(sound, sound.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        let frequency = Double(crossings) / 2 / seconds
        #expect(abs(frequency - 1000) / 1000 < 0.02, "\(frequency) Hz")
    }

    @Test func withTheRateEnabledButLeftAt1EverySampleReachesTheDeviceUntouched() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.5, "whitenoise whitenoise")
        let (left, right) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        player.enableRate = true
        #expect(try await rig.playToEnd([player]) == [true])
        let device = try await rig.deviceSamples(atLeast: left.count)
        #expect(firstDifference(device.left, left) == nil)
        #expect(firstDifference(device.right, right) == nil)
    }

    @Test func aBoundaryTimeJustAfterTheStartFiresOnce() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 2, "sine 440")
        let player = try rig.player(file)
        // The unclocked device mixes far past 1 ms before the engine's first tick.
        let fired = Mutex<[TimeInterval]>([])
        let observer = player.addBoundaryTimeObserver(forTimes: [0.001]) { time in fired.withLock { $0.append(time) } }
        #expect(try await rig.playToEnd([player]) == [true])
        player.removeTimeObserver(observer)
        #expect(fired.withLock { $0.count } == 1)
    }

    @Test func twoPlayersStartedForOneDeviceTimeStartOnTheSameFrame() async throws {
        let rig = try PlaybackRig()
        let signal = rig.scratch.file("signal.wav")
        let inverse = rig.scratch.file("inverse.wav")
        try Sox.synth(to: signal.path, rate: 48000, channels: 2, seconds: 0.5, "whitenoise whitenoise")
        // No dither (-D), so that the inverse is exact.
        try Tool.output("sox", ["-D", signal.path, inverse.path, "vol", "-1"])
        let players = [try rig.player(signal), try rig.player(inverse)]
        for player in players { player.prepareToPlay() }
        // Half a second ahead: a busy machine may hold this task for tenths of a second between reading the
        // device's time and scheduling, and a start already past is aligned by skipping what was missed.
        #expect(try await rig.playToEnd(players) { players in
            let time = players[0].deviceCurrentTime + 0.5
            for player in players { player.play(atTime: time) }
        } == [true, true])
        // Read once the device has written all it should: a read as soon as 24000 frames are there may find the file
        // still growing.
        let device = try await rig.deviceSamples(atLeast: 24000 + 1920 - 240)
        let loud = device.left.indices.filter { device.left[$0] != 0 || device.right[$0] != 0 }
        #expect(loud.isEmpty, "they cancel exactly; \(loud.count) frames do not, from \(loud.first ?? -1)")
        // Both files whole, after the silence the device held before their start: up to its buffer, four periods of
        // 480 frames (the engine waits for the start with the device idle, and wakes for it within 5 ms: 240 frames),
        // and nothing after them. A start missed would have skipped frames.
        #expect((24000 + 1920 - 240...24000 + 1920).contains(device.left.count),
                "the device ran for both files and the buffer before them: \(device.left.count)")
    }

    @Test func playbackStartsAtTheExactFrameSeekedTo() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.5, "whitenoise whitenoise")
        let (left, _) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        player.prepareToPlay()
        player.currentTime = 0.25
        #expect(player.currentTime == 0.25)
        try await rig.playToEnd([player])
        let device = try await rig.deviceSamples(atLeast: 12000)
        #expect(firstDifference(device.left, Array(left[12000...])) == nil)
    }

    @Test func pauseAndResumeLoseAndRepeatNothing() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 20, "whitenoise whitenoise")
        let (left, _) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        let events = player.events()
        // Paused from the engine's event thread a second in: the device is unclocked and plays the file in a
        // moment, faster than a test task polling it may be scheduled on a busy machine.
        let pause = player.addBoundaryTimeObserver(forTimes: [1]) { [player] _ in player.pause() }
        try #require(player.play(), "\(player.status)")
        try await until { !player.isPlaying }
        player.removeTimeObserver(pause)
        // A period already being mixed finishes; after that the position holds.
        try await Task.sleep(for: .milliseconds(30))
        let pausedAt = player.currentTime
        try #require(pausedAt >= 1 && pausedAt < 20, "paused at \(pausedAt) s")
        try await Task.sleep(for: .milliseconds(50))
        #expect(player.currentTime == pausedAt, "the position holds while paused")
        player.play()
        for await event in events { if case .finishedPlaying = event { break } }
        let device = try await rig.deviceSamples(atLeast: 960_000)
        // While paused the device gets whole periods of silence; what plays around them is the file, whole.
        #expect(firstDifference(withoutSilentPeriods(device.left), left) == nil)
        #expect(player.currentTime == 0, "back at the start after finishing")
    }

    @Test func playersFromDataPlayWhatTheFilePlays() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.caf")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.3, "whitenoise whitenoise")
        let (left, _) = try rig.expectedSamples(of: file)
        let player = try AudioPlayer(data: Data(contentsOf: file))
        player.currentDevice = rig.device
        #expect(player.url == nil && player.data != nil && abs(player.duration - 0.3) < 1e-9 && player.numberOfChannels == 2)
        try await rig.playToEnd([player])
        #expect(firstDifference(try await rig.deviceSamples(atLeast: left.count).left, left) == nil)
    }

    @Test func aFileAtAnotherRateIsResampledToTheDevice() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 44100, channels: 1, seconds: 1, "sine 1000")
        try await rig.playToEnd([rig.player(file)])
        let device = try await rig.deviceSamples(atLeast: 48000)
        let threshold = Int32(0.05 * 2_147_483_648.0)
        let first = try #require(device.left.firstIndex { abs($0) > threshold })
        let last = try #require(device.left.lastIndex { abs($0) > threshold })
        #expect(abs(last - first - 48000) < 50, "a second at 48 kHz, not 0.92 s: \(last - first) frames")
        let crossings = zip(device.left.prefix(48000), device.left.prefix(48000).dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect(abs(crossings - 2000) < 20, "still 1 kHz: \(crossings) zero crossings")
    }

    @Test func meteringMeasuresWhatIsPlayed() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.5, "sine 997 sine 997", volume: 0.5)
        let player = try AudioPlayer(contentsOf: file)
        // ALSA's null device: looping on an unclocked device must not fill a file.
        player.currentDevice = "null"
        player.isMeteringEnabled = true
        player.numberOfLoops = -1
        player.pan = 0.5
        player.play()
        for _ in 0..<200 {
            try await Task.sleep(for: .milliseconds(10))
            player.updateMeters()
            if player.peakPower(forChannel: 1) > -100 { break }
        }
        player.stop()
        #expect(abs(player.peakPower(forChannel: 1) - -6.02) < 0.1)
        #expect(abs(player.averagePower(forChannel: 1) - -9.03) < 0.1)
        #expect(abs(player.peakPower(forChannel: 0) - (-6.02 - 6.02)) < 0.1, "pan 0.5 halves the left")
        #expect(player.peakPower(forChannel: 7) == -160)
        player.updateMeters()
        #expect(player.averagePower(forChannel: 0) == -160, "nothing played since")
    }

    @Test func aSixChannelFileIsMeteredChannelByChannelAfterVolume() throws {
        let scratch = try ScratchDirectory()
        let file = scratch.file("surround.wav")
        try Tool.output("sox", ["-D", "-n", "-r", "48000", "-c", "6", "-b", "16", file.path, "synth", "0.5",
                                "sine", "300", "sine", "500", "sine", "700", "sine", "60", "sine", "1100", "sine", "1300",
                                "vol", "0.5", "remix", "1v1", "2v0.8", "3v0.6", "4v0.4", "5v0.2", "6v0.1"])
        let sox = try Sox.levels(of: file.path, channels: 6)
        let renderer = try OfflineRenderer()
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = renderer.device
        player.isMeteringEnabled = true
        player.volume = 0.5
        #expect(player.play())
        _ = renderer.render(frameCount: 30000)
        player.updateMeters()
        // Six levels, each its channel's as sox measures it, 6.02 dB down for the volume; on a stereo device.
        for channel in 0..<6 {
            #expect(abs(Double(player.peakPower(forChannel: channel)) - (sox.peak[channel] - 6.02)) < 0.1, "peak of \(channel)")
            #expect(abs(Double(player.averagePower(forChannel: channel)) - (sox.rms[channel] - 6.02)) < 0.1, "average of \(channel)")
        }
        #expect(player.peakPower(forChannel: 6) == -160)
    }

    @Test func metersReadLateLoseNothing() async throws {
        let rig = try PlaybackRig()
        // Six quiet seconds (more than the level ring holds), one loud, then digital silence, played on the
        // unclocked null device.
        let parts = [("quiet", 6.0, 0.01), ("loud", 1.0, 0.5), ("silence", 20.0, 0.0)].map { name, seconds, volume in
            let path = rig.scratch.path("\(name).wav")
            try? Sox.synth(to: path, rate: 48000, channels: 2, seconds: seconds, "sine 440", volume: volume)
            return path
        }
        let file = rig.scratch.file("all.flac")
        try Tool.output("sox", parts + [file.path])
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = "null"
        player.isMeteringEnabled = true
        // Read on the engine's event thread, which a test pool busy with other tests cannot hold back: the
        // first reading is the full ring; what did not fit follows with the next.
        let peaks = Mutex<[Float]>([])
        let observer = player.addBoundaryTimeObserver(forTimes: [7.2, 8]) { [player] _ in
            player.updateMeters()
            let peak = player.peakPower(forChannel: 0)
            peaks.withLock { $0.append(peak) }
        }
        #expect(try await rig.playToEnd([player]) == [true])
        player.removeTimeObserver(observer)
        let readings = peaks.withLock { $0 }
        #expect(readings.count == 2 && abs((readings.max() ?? -160) - -6.02) < 0.1, "the loud second is in one of the readings: \(readings)")
    }

    @Test func theDelegateAndTheEventsHearTheSameStory() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 0.2, "sine 440")
        let player = try rig.player(file)
        let delegate = RecordingDelegate()
        player.delegate = delegate
        #expect(player.status == .unknown)
        let events = player.events()
        #expect(try await rig.playToEnd([player]) == [true])
        var seen: [AudioPlayer.Event] = []
        for await event in events {
            seen.append(event)
            if case .finishedPlaying = event { break }
        }
        #expect(seen == [
            .statusChanged(.readyToPlay), .timeControlStatusChanged(.playing), .started, .timeControlStatusChanged(.paused),
            .finishedPlaying(successfully: true),
        ])
        // The delegate is told all but the status and the start, which have no delegate method (as in AVAudioPlayer): after
        // the events' subscribers, on the thread that delivers them, so the end may reach it a moment after them.
        try await until { delegate.finishes == [true] }
        #expect(delegate.told.withLock { $0 } == seen.filter { $0 != .started && $0 != .statusChanged(.readyToPlay) })
        #expect(player.status == .readyToPlay && !player.isPlaying)
    }

    @Test func startedComesOncePerPlayNotAgainAfterASeekOrAResume() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 20, "whitenoise whitenoise")
        let player = try rig.player(file)
        let events = player.events()
        // From the engine's event thread, as the unclocked device plays the file in a moment: a seek at 1 s, a pause
        // at 12 s.
        let seek = player.addBoundaryTimeObserver(forTimes: [1]) { [player] _ in player.currentTime = 10 }
        let pause = player.addBoundaryTimeObserver(forTimes: [12]) { [player] _ in player.pause() }
        try #require(player.play(), "\(player.status)")
        try await until { !player.isPlaying }
        player.removeTimeObserver(seek)
        player.removeTimeObserver(pause)
        #expect(player.play())
        var seen: [AudioPlayer.Event] = []
        for await event in events {
            seen.append(event)
            if case .finishedPlaying = event { break }
        }
        #expect(seen.filter { $0 == .started }.count == 1, "\(seen)")
        // Played again from the start: a new start.
        let again = player.events()
        #expect(try await rig.playToEnd([player]) == [true])
        var heard: [AudioPlayer.Event] = []
        for await event in again {
            heard.append(event)
            if case .finishedPlaying = event { break }
        }
        #expect(heard.filter { $0 == .started }.count == 1, "\(heard)")
    }

    @Test func aFloatFileWithNaNAndInfinityPlaysWithoutBringingTheEngineDown() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("broken.wav")
        let writer = try AudioFileWriter(url: file, settings: AudioSettings(bitDepth: .float32))
        try ([Float](repeating: .nan, count: 4800) + [Float](repeating: .infinity, count: 4800) + [Float](repeating: 0.25, count: 4800))
            .withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        let player = try rig.player(file)
        player.volume = 0
        #expect(try await rig.playToEnd([player]) == [true])
        let device = try await rig.deviceSamples(atLeast: 14400)
        #expect(device.left.prefix(14400).allSatisfy { $0 == 0 }, "NaN, and infinity at volume 0, become silence")
    }

    @Test func nonsenseStartTimesAreRefused() throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 0.1, "sine 440")
        let player = try rig.player(file)
        #expect(!player.play(atTime: .nan) && !player.play(atTime: .infinity) && !player.isPlaying)
    }

    @Test func aPlayerPausedBeforeItsScheduledStartPlaysWhenResumed() async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.3, "whitenoise whitenoise")
        let (left, _) = try rig.expectedSamples(of: file)
        let player = try rig.player(file)
        player.play(atTime: player.deviceCurrentTime + 60)
        player.pause()
        #expect(try await rig.playToEnd([player]) == [true], "play() after the pause starts it now")
        #expect(firstDifference(try await rig.deviceSamples(atLeast: left.count).left, left) == nil)
    }

    @Test func aMissingDeviceFailsWithItsName() throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: 0.1, "sine 440")
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = "hw:97"
        #expect(!player.prepareToPlay())
        #expect(!player.play())
        guard case .failed(let error) = player.status else { Issue.record("status \(player.status)"); return }
        #expect("\(error)".hasPrefix("cannot open audio device 'hw:97'"))
    }
}

/// A delegate that writes down what it is told, as the events it stands for.
final class RecordingDelegate: AudioPlayerDelegate {
    let told = Mutex<[AudioPlayer.Event]>([])
    var finishes: [Bool] {
        told.withLock { $0.compactMap { if case .finishedPlaying(let successfully) = $0 { successfully } else { nil } } }
    }
    func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully: Bool) {
        told.withLock { $0.append(.finishedPlaying(successfully: successfully)) }
    }
    func audioPlayerDecodeErrorDidOccur(_ player: AudioPlayer, error: AudioFileError) {
        told.withLock { $0.append(.decodeError(error)) }
    }
    func audioPlayerTimeControlStatusDidChange(_ player: AudioPlayer, to status: AudioPlayer.TimeControlStatus) {
        told.withLock { $0.append(.timeControlStatusChanged(status)) }
    }
    func audioPlayerRateDidChange(_ player: AudioPlayer, to rate: Float) {
        told.withLock { $0.append(.rateChanged(rate)) }
    }
    func audioPlayerTimeDidJump(_ player: AudioPlayer) {
        told.withLock { $0.append(.timeJumped) }
    }
}

/// `samples` without runs of 240 or more zeros: the silence a device gets while nothing plays.
func withoutSilentPeriods(_ samples: [Int32]) -> [Int32] {
    var kept: [Int32] = []
    var run: [Int32] = []
    for sample in samples {
        if sample == 0 {
            run.append(sample)
            continue
        }
        if run.count < 240 { kept += run }
        run.removeAll(keepingCapacity: true)
        kept.append(sample)
    }
    return kept
}
