@testable import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// Another program taking the device: a ``NullDevice`` taken away mid-stream, as alsa-lib's `-EBUSY` does, then freed.
/// Players and recorders on it are paused by their session (one of the test's own, hearing the engines), which says
/// `interruptionBegan(.deviceInUse)`, and resumed when it is free; an `ambient` session's players play on; a `playback`
/// session records nothing.
@Suite(.timeLimit(.minutes(1))) struct DeviceInterruptionTests {
    let scratch: ScratchDirectory
    let session: AudioSession

    init() throws {
        scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(at: scratch.file("snd"), withIntermediateDirectories: true)
        session = AudioSession(directory: scratch.path("snd"), handlesSignals: false)
        EngineObservers.add(session)
    }

    /// A device of this test's own: engines of other tests never share it.
    func device() -> NullDevice {
        NullDevice.install(named: "null-\(UUID().uuidString)")
    }

    /// A player of `seconds` of a stereo tone on `device`, in this test's session.
    func player(ofSeconds seconds: Double, on device: NullDevice) throws -> AudioPlayer {
        let file = scratch.path("tone.wav")
        try Sox.synth(to: file, rate: 48000, channels: 2, seconds: seconds, "sine 440")
        let player = try AudioPlayer(contentsOf: URL(fileURLWithPath: file))
        player.currentDevice = device.name
        player.session = session
        return player
    }

    /// Whether the player of `events` finishes playing successfully.
    func finishesSuccessfully(_ events: AsyncStream<AudioPlayer.Event>) async -> Bool {
        for await event in events {
            if case .finishedPlaying(let successfully) = event { return successfully }
        }
        return false
    }

    /// The session's next interruption event.
    func nextInterruption(_ events: inout AsyncStream<AudioSession.Event>.Iterator) async -> AudioSession.Event? {
        while let event = await events.next() {
            if case .interruptionBegan = event { return event }
            if case .interruptionEnded = event { return event }
        }
        return nil
    }

    @Test func aPlayerPausesWhileAnotherProgramHoldsItsDeviceAndResumesWhenItIsFree() async throws {
        session.setCategory(.playback, options: [.resumeAfterInterruption])
        let device = device()
        let player = try player(ofSeconds: 2, on: device)
        var interruptions = session.events().makeAsyncIterator()
        let playerEvents = player.events()
        device.takeAway(afterFrames: 24000)
        #expect(player.play())

        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        #expect(!player.isPlaying, "paused while the device is held")
        #expect(device.framesTransferred == 24000)
        try await Task.sleep(for: .milliseconds(400))
        #expect(device.framesTransferred == 24000, "nothing moves while it is held")
        device.isHeld = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        #expect(await finishesSuccessfully(playerEvents))
        #expect(device.framesTransferred >= 96000, "the whole file was played: \(device.framesTransferred) frames")
    }

    /// A ``Player`` of a 1 s stereo tone on `device`, its item loaded, in this test's session.
    func queuedPlayer(on device: NullDevice) async throws -> Player {
        let file = scratch.file("tone.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 1, "sine 440")
        let player = Player(playerItem: try await readyItems([file])[0])
        player.currentDevice = device.name
        player.session = session
        return player
    }

    @Test func aPlayerWhoseDeviceIsHeldWaitsSayingSoAndPlaysByItselfOnceItIsFree() async throws {
        // Without resumeAfterInterruption: a Player asked to play plays once it can, as it does after a download.
        session.setCategory(.playback)
        let device = device()
        device.isHeld = true
        let player = try await queuedPlayer(on: device)
        var interruptions = session.events().makeAsyncIterator()
        let events = player.events()
        #expect(player.play(), "asked to play, it waits")
        #expect(player.isPlaying && player.timeControlStatus == .waitingToPlayAtSpecifiedRate(.deviceInUse))
        #expect(player.reasonForWaitingToPlay == .deviceInUse && player.status == .unknown, "\(player.status)")
        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        try await Task.sleep(for: .milliseconds(400))
        #expect(device.framesTransferred == 0 && player.reasonForWaitingToPlay == .deviceInUse)

        device.isHeld = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        var statuses: [BasePlayer.TimeControlStatus] = []
        for await event in events {
            if case .timeControlStatusChanged(let status) = event { statuses.append(status) }
            if case .finishedPlaying(let successfully) = event {
                #expect(successfully)
                break
            }
        }
        #expect(statuses.prefix(2) == [.waitingToPlayAtSpecifiedRate(.deviceInUse), .playing], "\(statuses)")
        #expect(device.framesTransferred >= 48000, "the whole item was played: \(device.framesTransferred) frames")
    }

    @Test func aPlayerWaitingForItsDeviceWhileAnotherIsInterruptedPlaysOnceItsOwnIsFree() async throws {
        session.setCategory(.playback)
        let other = device(), own = device()
        other.isHeld = true
        own.isHeld = true
        var interruptions = session.events().makeAsyncIterator()
        let refused = try player(ofSeconds: 1, on: other)
        #expect(!refused.play())
        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        let player = try await queuedPlayer(on: own)
        let events = player.events()
        #expect(player.play() && player.reasonForWaitingToPlay == .deviceInUse)
        own.isHeld = false
        for await event in events {
            if case .finishedPlaying(let successfully) = event {
                #expect(successfully)
                break
            }
        }
        #expect(own.framesTransferred >= 48000 && other.framesTransferred == 0, "\(own.framesTransferred) frames")
    }

    @Test func aPlayerPausedWhileItWaitsForAHeldDeviceStaysPausedWhenItIsFree() async throws {
        session.setCategory(.playback)
        let device = device()
        device.isHeld = true
        let player = try await queuedPlayer(on: device)
        var interruptions = session.events().makeAsyncIterator()
        #expect(player.play())
        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        player.pause()
        #expect(!player.isPlaying && player.timeControlStatus == .paused && player.reasonForWaitingToPlay == nil)
        device.isHeld = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        try await Task.sleep(for: .milliseconds(300))
        #expect(!player.isPlaying && device.framesTransferred == 0, "\(device.framesTransferred) frames")
    }

    @Test func aRecordingKeepsEveryFrameBeforeAndAfterTheDeviceWasTakenWithTheGapMarkedWhereItIs() async throws {
        session.setCategory(.record, options: [.resumeAfterInterruption])
        let device = device()
        let recorder = try AudioRecorder(url: scratch.file("taken.wav"), settings: AudioSettings(format: .wav, sampleRate: 48000, channelCount: 1))
        recorder.currentDevice = device.name
        recorder.session = session
        var interruptions = session.events().makeAsyncIterator()
        let recorderEvents = recorder.events()
        device.takeAway(afterFrames: 12345)
        #expect(recorder.record(forDuration: 1))

        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        #expect(!recorder.isRecording)
        try await Task.sleep(for: .milliseconds(500))
        device.isHeld = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        for await event in recorderEvents {
            if case .finishedRecording(let successfully) = event {
                #expect(successfully)
                break
            }
        }

        // Every frame the device gave, in order: the ramp runs on across the gap, with nothing lost or doubled.
        let marker = try #require(recorder.markers.first)
        #expect(recorder.markers.count == 1 && marker.framePosition == 12345)
        let name = try #require(marker.name)
        let seconds = try #require(Double(name.dropFirst("interrupted ".count).dropLast(" s".count)))
        // At least the time the device was held (more on a busy machine, where this test resumes late).
        #expect(name.hasPrefix("interrupted ") && name.hasSuffix(" s") && seconds >= 0.5, "\(name)")
        let samples = try Sox.samples(of: recorder.url.path)
        #expect(samples.count == 48000)
        let expected = (0..<48000).map { Int32(NullDevice.sample(at: $0) * 32768) << 16 }
        #expect(samples == expected)
        let kept = try AudioFile(forReading: recorder.url).metadata.markers
        #expect(kept == [marker])
    }

    @Test func aRecorderWhoseDeviceIsHeldWaitsAndRecordsOnceItIsFree() async throws {
        session.setCategory(.playAndRecord, options: [.resumeAfterInterruption])
        let device = device()
        device.isHeld = true
        let recorder = try AudioRecorder(url: scratch.file("waited.wav"), settings: AudioSettings(format: .wav))
        recorder.currentDevice = device.name
        recorder.session = session
        var interruptions = session.events().makeAsyncIterator()
        let recorderEvents = recorder.events()
        #expect(!recorder.record(forDuration: 0.5))
        #expect(recorder.status == .failed(.device(AudioDeviceError(device: device.name, operation: .open, reason: .busy))))
        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        try await Task.sleep(for: .milliseconds(400))
        #expect(!recorder.isRecording)
        device.isHeld = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        // Started by the session, right after it says so.
        var events = recorderEvents.makeAsyncIterator()
        while let event = await events.next(), event != .started {}
        recorder.stop()
        while let event = await events.next() {
            if case .finishedRecording(let successfully) = event {
                #expect(successfully)
                break
            }
        }
        #expect(try AudioFile(forReading: recorder.url).frameCount > 0)
        #expect(recorder.markers.isEmpty, "nothing was recorded before: no gap")
    }

    @Test(.tags(.clocked)) func aRecorderWaitsForAnALSADeviceAnotherOpenerHoldsAndRecordsOnceItIsFree() async throws {
        session.setCategory(.record, options: [.resumeAfterInterruption])
        let held = try HeldDevice(in: scratch)
        let recorder = try AudioRecorder(url: scratch.file("alsa.wav"), settings: AudioSettings(format: .wav))
        recorder.currentDevice = held.name
        recorder.session = session
        var interruptions = session.events().makeAsyncIterator()
        var events = recorder.events().makeAsyncIterator()
        #expect(!recorder.record())
        #expect(recorder.status == .failed(.device(AudioDeviceError(device: held.name, operation: .open, reason: .busy))))
        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        held.isHeld = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        while let event = await events.next(), event != .started {}
        try await Task.sleep(for: .milliseconds(200))
        recorder.stop()
        let frames = try AudioFile(forReading: recorder.url).frameCount
        #expect(frames > 4800, "\(frames) frames")
    }

    @Test(.tags(.clocked)) func anALSARecordingTakenAwayMidwayResumesWithTheGapMarked() async throws {
        session.setCategory(.record, options: [.resumeAfterInterruption])
        let held = try HeldDevice(in: scratch, held: false)
        let recorder = try AudioRecorder(url: scratch.file("taken-alsa.wav"), settings: AudioSettings(format: .wav))
        recorder.currentDevice = held.name
        recorder.session = session
        var interruptions = session.events().makeAsyncIterator()
        var events = recorder.events().makeAsyncIterator()
        #expect(recorder.record())
        while let event = await events.next(), event != .started {}
        try await Task.sleep(for: .milliseconds(300))
        held.isTakenAway = true
        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        let gapAt = Int64((recorder.currentTime * 48000).rounded())
        try await Task.sleep(for: .milliseconds(400))
        held.isTakenAway = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        try await Task.sleep(for: .milliseconds(300))
        recorder.stop()
        let marker = try #require(recorder.markers.first)
        #expect(recorder.markers.count == 1 && marker.framePosition == gapAt && marker.name?.hasPrefix("interrupted ") == true)
        let file = try AudioFile(forReading: recorder.url)
        #expect(file.metadata.markers == [marker] && file.frameCount > marker.framePosition + 4800)
    }

    @Test func anAmbientSessionsPlayerPlaysOnThroughAnInterruption() async throws {
        session.setCategory(.ambient)
        let device = device()
        let player = try player(ofSeconds: 1, on: device)
        var interruptions = session.events().makeAsyncIterator()
        let playerEvents = player.events()
        device.takeAway(afterFrames: 4800)
        #expect(player.play())

        #expect(await nextInterruption(&interruptions) == .interruptionBegan(.deviceInUse))
        try await Task.sleep(for: .milliseconds(300))
        #expect(player.isPlaying, "an ambient player is not paused")
        device.isHeld = false
        #expect(await nextInterruption(&interruptions) == .interruptionEnded(.deviceInUse, shouldResume: true))
        #expect(await finishesSuccessfully(playerEvents))
        #expect(device.framesTransferred >= 48000)
    }

    @Test func aPlaybackSessionRecordsNothingAndSaysWhy() throws {
        session.setCategory(.playback)
        let recorder = try AudioRecorder(url: scratch.file("refused.wav"), settings: AudioSettings(format: .wav))
        recorder.currentDevice = device().name
        recorder.session = session
        #expect(!recorder.prepareToRecord())
        #expect(!recorder.record())
        #expect(recorder.status == .failed(.categoryDoesNotRecord(.playback)))
        #expect("\(AudioRecorderError.categoryDoesNotRecord(.playback))"
            == "cannot record: the audio session's category is 'playback', which does not allow recording; set 'record' or 'playAndRecord'")
        #expect(!FileManager.default.fileExists(atPath: recorder.url.path), "no file is made")

        session.setCategory(.playAndRecord)
        #expect(recorder.record(forDuration: 0.1))
    }
}
