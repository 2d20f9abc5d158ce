@testable import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// The session's device list, category and hotplug events, with a card directory of the test's own in
/// which the tests make and remove `controlC<N>` as udev does in /dev/snd.
@Suite(.serialized, .timeLimit(.minutes(1)), .tags(.clocked)) struct AudioSessionTests {
    let scratch: ScratchDirectory
    let session: AudioSession

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
        try FileManager.default.createDirectory(at: scratch.file("snd"), withIntermediateDirectories: true)
        session = AudioSession(directory: scratch.path("snd"), handlesSignals: false)
    }

    func addCard(_ index: Int) {
        _ = FileManager.default.createFile(atPath: scratch.path("snd/controlC\(index)"), contents: nil)
    }

    func removeCard(_ index: Int) throws {
        try FileManager.default.removeItem(atPath: scratch.path("snd/controlC\(index)"))
    }

    /// Runs `change`, then waits for the next event of `events`.
    func next(_ events: inout AsyncStream<AudioSession.Event>.Iterator, after change: () -> Void) async -> AudioSession.Event? {
        change()
        return await events.next()
    }

    @Test func aCardAppearingAndVanishingIsARouteChangeWithin100Milliseconds() async throws {
        try session.setActive(true)
        // Timed where an observer is called, on the session's queue: an async test's own wake-up can wait
        // for a thread of the concurrency pool that other suites keep busy.
        let arrivals = Mutex<[(event: AudioSession.Event, at: ContinuousClock.Instant)]>([])
        let observation = session.addObserver { event in
            let now = ContinuousClock.now
            arrivals.withLock { $0.append((event, now)) }
        }
        defer { observation.cancel() }
        /// Runs `change` and returns the next route change and the seconds from the change to its arrival.
        func timed(_ change: () throws -> Void) async throws -> (AudioSession.Event?, Double) {
            let count = arrivals.withLock { $0.count }
            let start = ContinuousClock.now
            try change()
            let deadline = start + .seconds(10)
            while arrivals.withLock({ $0.count }) == count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            guard let arrival = arrivals.withLock({ $0.count > count ? $0[count] : nil }) else { return (nil, .infinity) }
            return (arrival.event, (arrival.at - start) / .seconds(1))
        }

        // A card's other device files are no card coming or going.
        _ = FileManager.default.createFile(atPath: scratch.path("snd/pcmC7D0p"), contents: nil)
        let (appeared, appearing) = try await timed { addCard(7) }
        guard case .routeChanged(.newDeviceAvailable, let port?, _) = appeared else { Issue.record("\(String(describing: appeared))"); return }
        #expect(port.name == "hw:7" && port.card == 7 && port.description == "card 7")
        #expect(appearing < 0.1, "\(appearing) s")

        let (vanished, vanishing) = try await timed { try removeCard(7) }
        guard case .routeChanged(.oldDeviceUnavailable, let port?, _) = vanished else { Issue.record("\(String(describing: vanished))"); return }
        #expect(port.name == "hw:7" && port.card == 7)
        #expect(vanishing < 0.1, "\(vanishing) s")
    }

    @Test func eventsReachEveryStreamAndEveryObserverInTheOrderTheyHappened() async throws {
        try session.setActive(true)
        let first = session.events()
        let second = session.events()
        // Two observers, each noting which of them was called: they take turns, the earlier one first.
        let notified = Mutex<[(observer: Int, event: AudioSession.Event)]>([])
        let observations = [1, 2].map { observer in
            session.addObserver { event in notified.withLock { $0.append((observer, event)) } }
        }
        defer { observations.forEach { $0.cancel() } }

        func summary(_ event: AudioSession.Event) -> String {
            guard case .routeChanged(let reason, let port, _) = event else { return event.name }
            return "\(reason.rawValue) \(port?.name ?? "-")"
        }
        // Changes from the card directory and from the program, interleaved: each step waits until the
        // first stream has the event of the one before, so that "happened" has one order.
        var firstEvents = first.makeAsyncIterator()
        var expected: [String] = []
        for (step, event) in [({ addCard(1) }, "newDeviceAvailable hw:1"), ({ addCard(2) }, "newDeviceAvailable hw:2"),
                              ({ session.setCategory(.playback) }, "categoryChange -"), ({ try? removeCard(1) }, "oldDeviceUnavailable hw:1"),
                              ({ session.setPreferredOutput("null") }, "override null"), ({ try? removeCard(2) }, "oldDeviceUnavailable hw:2")] {
            step()
            expected.append(event)
            #expect(await firstEvents.next().map(summary) == event)
        }
        for stream in [second] {
            var seen: [String] = []
            for await event in stream {
                seen.append(summary(event))
                if seen.count == expected.count { break }
            }
            #expect(seen == expected)
        }
        // Observers are called on a queue of their own, after the streams have the events.
        let deadline = ContinuousClock.now + .seconds(5)
        while notified.withLock({ $0.count }) < 2 * expected.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let calls = notified.withLock { $0.map { "\($0.observer) \(summary($0.event))" } }
        #expect(calls == expected.flatMap { ["1 \($0)", "2 \($0)"] })
    }

    @Test func anObserverIsCalledUntilItsTokenIsCancelledOrReleased() async throws {
        let calls = Mutex<[String]>([])
        /// Waits until `count` calls were made (or 5 s passed), then returns them all.
        func waitForCalls(_ count: Int) async throws -> [String] {
            let deadline = ContinuousClock.now + .seconds(5)
            while calls.withLock({ $0.count }) < count, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            return calls.withLock { $0 }
        }
        let cancelled = session.addObserver { event in calls.withLock { $0.append("cancelled: \(event.name)") } }
        var released = [session.addObserver { event in calls.withLock { $0.append("released: \(event.name)") } }]
        let kept = session.addObserver { event in calls.withLock { $0.append("kept: \(event.name)") } }
        defer { kept.cancel() }

        session.setPreferredOutput("null")
        #expect(try await waitForCalls(3) == ["cancelled: routeChange", "released: routeChange", "kept: routeChange"])
        cancelled.cancel()
        cancelled.cancel()
        released.removeAll()
        session.setPreferredOutput("pulse")
        session.setPreferredOutput("null")
        // The kept observer's calls are the last ones the three events make.
        #expect(try await waitForCalls(5) == ["cancelled: routeChange", "released: routeChange", "kept: routeChange", "kept: routeChange", "kept: routeChange"])
    }

    @Test func theRouteFollowsTheCategoryAndThePreviousRouteIsReported() async throws {
        try session.setActive(true)
        session.setCategory(.playAndRecord, options: [.followDefaultDevice])
        session.setPreferredInput("null")
        session.setPreferredOutput("pulse")
        #expect(session.currentRoute.inputs.map(\.name) == ["null"] && session.currentRoute.outputs.map(\.name) == ["pulse"])
        #expect(session.currentRoute.outputs.first?.type == .soundServer && session.currentRoute.inputs.first?.type == .virtual)
        var events = session.events().makeAsyncIterator()
        let event = await next(&events) { session.setCategory(.playback, options: [.followDefaultDevice]) }
        #expect(session.currentRoute.inputs.isEmpty && session.currentRoute.outputs.map(\.name) == ["pulse"])
        guard case .routeChanged(.categoryChange, nil, let previous) = event else { Issue.record("\(String(describing: event))"); return }
        #expect(previous.inputs.map(\.name) == ["null"] && previous.outputs.map(\.name) == ["pulse"])
        // Without the option, players and recorders given no device use ALSA's default.
        session.setCategory(.record)
        #expect(session.currentRoute.inputs.map(\.name) == ["default"] && session.currentRoute.outputs.isEmpty)
    }

    @Test func theAvailableDevicesAreAlsaLibsPCMsWithTheirDescriptions() {
        let outputs = session.availableOutputs
        let inputs = session.availableInputs
        let null = outputs.first { $0.name == "null" }
        #expect(null?.type == .virtual && null?.description.hasPrefix("Discard all samples") == true)
        #expect(outputs.contains { $0.name == "pulse" && $0.type == .soundServer })
        #expect(inputs.contains { $0.name == "null" } && inputs.contains { $0.name == "pulse" })
    }

    @Test func thePreferredIOBufferDurationIsClampedAndSetsThePeriodsOfStreamsOpenedAfter() {
        #expect(session.preferredIOBufferDuration == 0.01)
        #expect(session.playbackRequest.periodFrames == 480 && session.playbackRequest.periods == 4)
        session.setPreferredIOBufferDuration(0.125)
        #expect(session.preferredIOBufferDuration == 0.125)
        #expect(session.playbackRequest.periodFrames == 6000, "125 ms at 48 kHz")
        #expect(session.streamRequest(sampleRate: 44100, channelCount: 1, formats: [.int16]).periodFrames == 5513)
        // Capture holds half a second at least, in periods of the preferred duration: a late reader loses nothing.
        let capture = session.captureRequest(sampleRate: 48000, channelCount: 1, formats: [.int16])
        #expect(capture.periodFrames == 6000 && capture.periods == 4)
        session.setPreferredIOBufferDuration(0.01)
        let short = session.captureRequest(sampleRate: 48000, channelCount: 1, formats: [.int16])
        #expect(short.periodFrames == 480 && short.periods == 50, "24,000 frames: 0.5 s")
        #expect(session.playbackRequest.periods == 4, "playback keeps four periods: what is queued is heard late")
        for (asked, got) in [(0.0, 0.001), (-1, 0.001), (10, 0.5), (Double.nan, 0.01), (Double.infinity, 0.5)] {
            session.setPreferredIOBufferDuration(asked)
            #expect(session.preferredIOBufferDuration == got, "\(asked) s")
        }
    }

    @Test func aMachineWithoutACardDirectoryActivatesWithoutWatchingCards() throws {
        let missing = AudioSession(directory: scratch.path("nosuch"), handlesSignals: false)
        try missing.setActive(true)
        #expect(missing.isActive && !missing.isWatchingSoundCards)
        try session.setActive(true)
        #expect(session.isWatchingSoundCards)
    }
}
