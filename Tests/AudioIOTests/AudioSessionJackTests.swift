import AudioIO
import Foundation
import Glibc
import TestSupport
import Testing

/// Jack controls as route changes: sound cards of the test's own (``TestSoundCard``) whose jacks alsa-lib
/// reports through snd_ctl as a kernel card's, and players and recorders on the cards' PCMs (`null`
/// devices, named as a card's). The cards are in the directory the shared session, which players and
/// recorders report to, watches in tests.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct AudioSessionJackTests {
    let scratch: ScratchDirectory
    let cards = ALSATestDevices.cardDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    /// The shared session's events from now on, once it is active and watching the test cards (it watches
    /// the directory ``ALSATestDevices/install()`` names; activating retries watching, had it failed).
    func activeSessionEvents() throws -> AsyncStream<AudioSession.Event>.Iterator {
        try AudioSession.shared.setActive(true)
        return AudioSession.shared.events().makeAsyncIterator()
    }

    /// Adds card `index` with `jacks` and waits until the session reports it: its jacks are watched from
    /// then on.
    func addCard(
        _ index: Int, jacks: KeyValuePairs<String, Bool>, _ events: inout AsyncStream<AudioSession.Event>.Iterator
    ) async throws -> TestSoundCard {
        let card = try TestSoundCard(index: index, in: cards, jacks: jacks)
        let added = await nextRouteChange(of: &events, card: index)
        #expect(added?.0 == .newDeviceAvailable && added?.1.name == "hw:\(index)")
        return card
    }

    /// A player looping a short tone on `device` until stopped (its ``AudioPlayer/currentTime`` goes round
    /// the file, so the tests watch ``AudioPlayer/isPlaying``).
    func loopingPlayer(on device: String) throws -> AudioPlayer {
        let tone = scratch.file("tone-\(device).wav")
        try Sox.synth(to: tone.path, rate: 48000, channels: 2, seconds: 0.5, "sine 440")
        let player = try AudioPlayer(contentsOf: tone)
        player.currentDevice = device
        player.numberOfLoops = -1
        return player
    }

    /// Starts `player` and waits until its audio reaches the device.
    func start(_ player: AudioPlayer) async {
        let events = player.events()
        #expect(player.play())
        for await event in events where event == .started { break }
    }

    /// Runs `change`, then returns the seconds from its end until `condition` holds (infinity after 10 s).
    /// Measured on the test's thread, polling every millisecond: an async wait could be held back by a
    /// busy pool.
    func seconds(until condition: () -> Bool, after change: () throws -> Void) rethrows -> Double {
        try change()
        let start = ContinuousClock.now
        while !condition() {
            guard ContinuousClock.now - start < .seconds(10) else { return .infinity }
            usleep(1000)
        }
        return (ContinuousClock.now - start) / .seconds(1)
    }

    /// The next route change of `events` whose port is on card `card`.
    func nextRouteChange(
        of events: inout AsyncStream<AudioSession.Event>.Iterator, card: Int
    ) async -> (AudioSession.RouteChangeReason, PortDescription, RouteDescription)? {
        while let event = await events.next() {
            if case .routeChanged(let reason, let port?, let previous) = event, port.card == card { return (reason, port, previous) }
        }
        return nil
    }

    @Test func unpluggingTheHeadphonesPausesThePlayerAndPluggingThemBackResumesNothing() async throws {
        var events = try activeSessionEvents()
        var card = try await addCard(21, jacks: ["Mic Jack": true, "Headphone Jack": true], &events)
        defer { try? card.remove() }
        let player = try loopingPlayer(on: card.device)
        defer { player.stop() }
        await start(player)

        let pausing = try seconds(until: { !player.isPlaying }) { try card.set("Headphone Jack", plugged: false) }
        #expect(pausing < 0.1, "\(pausing) s")
        let unplugged = await nextRouteChange(of: &events, card: 21)
        #expect(unplugged?.0 == .oldDeviceUnavailable)
        #expect(unplugged?.1 == PortDescription(name: card.device, description: "Test Jacks 21: Headphone Jack", card: 21, type: .headphones))
        #expect(unplugged?.2.outputs.contains { $0.name == card.device } == true, "the previous route had the card's output")
        #expect(player.status == .readyToPlay)

        try card.set("Headphone Jack", plugged: true)
        let plugged = await nextRouteChange(of: &events, card: 21)
        #expect(plugged?.0 == .newDeviceAvailable && plugged?.1.type == .headphones)
        // Nothing starts by itself: still paused, and staying where it is (read once a period the render
        // thread was mixing when the pause came has surely been counted).
        try await Task.sleep(for: .milliseconds(100))
        let pausedAt = player.currentTime
        try await Task.sleep(for: .milliseconds(200))
        #expect(!player.isPlaying && player.currentTime == pausedAt)
        // The user resumes, on the same device.
        #expect(player.play())
        #expect(player.isPlaying && player.currentDevice == card.device)
    }

    @Test func unpluggingTheHeadphonesPausesAQueueToo() async throws {
        var events = try activeSessionEvents()
        var card = try await addCard(25, jacks: ["Headphone Jack": true], &events)
        defer { try? card.remove() }
        // The card's PCM is unclocked: enough items to be still playing whatever the machine's load.
        let queue = try await toneQueue(400, seconds: 5, in: scratch, on: card.device)
        defer { queue.removeAllItems() }
        #expect(queue.play())
        try await until { queue.currentTime > 0 }

        let pausing = try seconds(until: { !queue.isPlaying }) { try card.set("Headphone Jack", plugged: false) }
        #expect(pausing < 0.1, "\(pausing) s")
        #expect(await nextRouteChange(of: &events, card: 25)?.0 == .oldDeviceUnavailable)
        try await Task.sleep(for: .milliseconds(100))
        let paused = (time: queue.currentTime, items: queue.items().count)
        try await Task.sleep(for: .milliseconds(200))
        #expect(!queue.isPlaying && queue.currentTime == paused.time && queue.items().count == paused.items)
        // The user resumes.
        #expect(queue.play() && queue.isPlaying)
    }

    @Test func aJackOfAnotherCardPausesNothing() async throws {
        var events = try activeSessionEvents()
        let played = try await addCard(22, jacks: ["Headphone Jack": true], &events)
        defer { try? played.remove() }
        var other = try await addCard(23, jacks: ["Headphone Jack": true, "Line Out Jack": true], &events)
        defer { try? other.remove() }
        let player = try loopingPlayer(on: played.device)
        defer { player.stop() }
        await start(player)

        try other.set("Headphone Jack", plugged: false)
        let unplugged = await nextRouteChange(of: &events, card: 23)
        #expect(unplugged?.0 == .oldDeviceUnavailable)
        #expect(unplugged?.1 == PortDescription(name: "hw:23", description: "Test Jacks 23: Headphone Jack", card: 23, type: .headphones))
        // The session applied its policy before it posted the event.
        #expect(player.isPlaying)
    }

    @Test func unpluggingTheMicrophoneStopsTheRecordingAndKeepsWhatWasCaptured() async throws {
        var sessionEvents = try activeSessionEvents()
        var card = try await addCard(24, jacks: ["Headphone Jack": true, "Mic Jack": true], &sessionEvents)
        defer { try? card.remove() }
        let recorder = try AudioRecorder(url: scratch.file("memo.wav"), settings: AudioSettings(format: .wav))
        recorder.currentDevice = card.device
        let recorderEvents = recorder.events()
        // A cap, should the recording not stop: the card's capture is a null device, as fast as it is read.
        #expect(recorder.record(forDuration: 60))
        try await until { recorder.currentTime > 0.2 }

        // The headphones are an output's: the recording goes on.
        try card.set("Headphone Jack", plugged: false)
        #expect(await nextRouteChange(of: &sessionEvents, card: 24)?.1.type == .headphones)
        #expect(recorder.isRecording)

        let stopping = try seconds(until: { !recorder.isRecording }) { try card.set("Mic Jack", plugged: false) }
        #expect(stopping < 0.1, "\(stopping) s")
        let unplugged = await nextRouteChange(of: &sessionEvents, card: 24)
        #expect(unplugged?.0 == .oldDeviceUnavailable)
        #expect(unplugged?.1 == PortDescription(name: card.device, description: "Test Jacks 24: Mic Jack", card: 24, type: .headsetMic))
        var recorded: [AudioRecorder.Event] = []
        for await event in recorderEvents {
            recorded.append(event)
            if case .finishedRecording = event { break }
        }
        #expect(recorded.last == .finishedRecording(successfully: true))
        let summary = try #require(recorder.summary)
        let frames = try Sox.info(recorder.url.path).frames
        #expect(summary.frameCount >= 9600 && Int(summary.frameCount) == frames)
    }
}
