@testable import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// The session's device list, category and hotplug events, with a card directory of the test's own in
/// which the tests make and remove `controlC<N>` as udev does in /dev/snd.
@Suite(.serialized, .timeLimit(.minutes(1))) struct AudioSessionTests {
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

    /// Runs `change`, then waits for the next event of `events`; returns it and the seconds it took.
    func next(_ events: inout AsyncStream<AudioSession.Event>.Iterator, after change: () throws -> Void = {}) async rethrows -> (AudioSession.Event?, Double) {
        let start = ContinuousClock.now
        try change()
        let event = await events.next()
        return (event, (ContinuousClock.now - start) / .seconds(1))
    }

    @Test func aCardAppearingAndVanishingIsARouteChangeWithin100Milliseconds() async throws {
        try session.setActive(true)
        var events = session.events().makeAsyncIterator()
        // A card's other device files are no card coming or going.
        _ = FileManager.default.createFile(atPath: scratch.path("snd/pcmC7D0p"), contents: nil)
        let (appeared, appearing) = await next(&events) { addCard(7) }
        guard case .routeChanged(.newDeviceAvailable, let port?, _) = appeared else { Issue.record("\(String(describing: appeared))"); return }
        #expect(port.name == "hw:7" && port.card == 7 && port.description == "card 7")
        #expect(appearing < 0.1, "\(appearing) s")

        let (vanished, vanishing) = try await next(&events) { try removeCard(7) }
        guard case .routeChanged(.oldDeviceUnavailable, let port?, _) = vanished else { Issue.record("\(String(describing: vanished))"); return }
        #expect(port.name == "hw:7" && port.card == 7)
        #expect(vanishing < 0.1, "\(vanishing) s")
    }

    @Test func eventsReachEveryStreamAndTheNotificationCenterInTheOrderTheyHappened() async throws {
        try session.setActive(true)
        let first = session.events()
        let second = session.events()
        let notified = Mutex<[AudioSession.Event]>([])
        let observer = NotificationCenter.default.addObserver(forName: nil, object: session, queue: nil) { note in
            if let event = note.userInfo?[AudioSession.eventUserInfoKey] as? AudioSession.Event { notified.withLock { $0.append(event) } }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

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
        // Notifications go out on a queue of their own, after the streams have them.
        let deadline = ContinuousClock.now + .seconds(5)
        while notified.withLock({ $0.count }) < expected.count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(notified.withLock { $0.map(summary) } == expected)
    }

    @Test func theRouteFollowsTheCategoryAndThePreviousRouteIsReported() async throws {
        try session.setActive(true)
        session.setCategory(.playAndRecord, options: [.followDefaultDevice])
        session.setPreferredInput("null")
        session.setPreferredOutput("pulse")
        #expect(session.currentRoute.inputs.map(\.name) == ["null"] && session.currentRoute.outputs.map(\.name) == ["pulse"])
        #expect(session.currentRoute.outputs.first?.type == .soundServer && session.currentRoute.inputs.first?.type == .virtual)
        var events = session.events().makeAsyncIterator()
        session.setCategory(.playback, options: [.followDefaultDevice])
        #expect(session.currentRoute.inputs.isEmpty && session.currentRoute.outputs.map(\.name) == ["pulse"])
        let (event, _) = await next(&events, after: {})
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

    @Test func aMissingCardDirectoryIsAClearFailureAndTheSessionStaysActive() {
        let missing = AudioSession(directory: scratch.path("nosuch"), handlesSignals: false)
        #expect {
            try missing.setActive(true)
        } throws: { error in
            (error as? AudioSessionError)?.description == "cannot watch '\(scratch.path("nosuch"))' for sound cards: No such file or directory"
        }
        #expect(missing.isActive)
    }
}
