import Synchronization
import SystemEdge
import SystemPackage

/// The jack controls of the sound cards ("Headphone Jack", "Mic Jack", "Line Out Jack", …): for each card
/// it is told of, a thread waits on the card's control device and reports each jack plugged or unplugged.
///
/// A card `N` is watched through the control device alsa-lib calls `hw:N`, which on a real machine is the
/// kernel's `/dev/snd/controlCN`; alsa-lib's configuration alone decides what opening it means (the tests
/// put a control plugin of their own there). A card whose control device cannot be opened, or that has
/// no jack controls, is simply not watched.
final class JackMonitor: Sendable {
    /// A jack plugged or unplugged.
    struct Change: Equatable, Sendable {
        /// The card index `N` (of `hw:N`).
        var card: Int
        /// The card's short name, e.g. "HDA Intel PCH".
        var cardName: String
        /// The jack control's name, e.g. "Headphone Jack".
        var jack: String
        var isPlugged: Bool

        /// The jack without " Jack", e.g. "Headphone", "Front Mic", "Line Out".
        private var socket: Substring { jack.dropLast(" Jack".count) }

        /// Whether the jack is an input's. The kernel's drivers name input jacks "Mic", "Headset Mic",
        /// "Front Mic" or "Line" (line in), and output jacks "Headphone", "Line Out", "Speaker", "HDMI/DP".
        var isInput: Bool { socket.contains("Mic") || socket.hasSuffix("Line") || socket.contains("Line In") }

        /// What is plugged into the jack, as a port type.
        var portType: PortDescription.PortType {
            if socket.contains("Mic") { return .headsetMic }
            if isInput { return .lineIn }
            if socket.contains("Headphone") || socket.contains("Headset") { return .headphones }
            if socket.contains("HDMI") || socket.contains("DP") { return .hdmi }
            return .lineOut
        }
    }

    private let report: @Sendable (Change) -> Void
    private let watches = Mutex<[Int: CardWatch]>([:])

    /// `report` is called on a card's thread for each jack plugged or unplugged, in order for that card.
    init(report: @escaping @Sendable (Change) -> Void) {
        self.report = report
    }

    /// Starts watching card `index`'s jacks, unless it is watched already; on return, a jack changing is
    /// reported.
    func watch(card index: Int) {
        guard watches.withLock({ $0[index] == nil }), let watch = CardWatch(card: index, report: report) else { return }
        watches.withLock { $0[index] = watch }
    }

    /// Stops watching card `index` (it vanished).
    func forget(card index: Int) {
        _ = watches.withLock { $0.removeValue(forKey: index) }
    }
}

/// One card's jacks, watched by a thread of its own until the watch is released.
private final class CardWatch: Sendable {
    /// The write end of a pipe whose read end the thread polls: closing it (on release) ends the thread.
    private let wake: FileDescriptor

    /// Opens card `index`'s control device and starts its thread; `nil` when the device cannot be opened
    /// or has no jacks.
    init?(card index: Int, report: @escaping @Sendable (JackMonitor.Change) -> Void) {
        guard let device = try? ControlDevice(name: "hw:\(index)"),
              let jacks = try? device.jacks(), !jacks.isEmpty,
              (try? device.subscribe()) != nil,
              let descriptors = try? device.pollDescriptors(),
              let pipe = try? FileDescriptor.pipe() else { return nil }
        let cardName = (try? device.cardName()) ?? "card \(index)"
        // Read after subscribing: a change in between is an event, not lost.
        var plugged: [UInt32: Bool] = [:]
        for jack in jacks { plugged[jack.id] = try? device.isPlugged(jack) }
        wake = pipe.writeEnd
        let stop = pipe.readEnd
        SystemThread.detach(name: "audio-jacks", realtime: false) { [plugged] in
            var plugged = plugged
            var polled = descriptors.map(PollDescriptor.init(rawValue:)) + [PollDescriptor(stop, events: .readable)]
            defer { try? stop.close() }
            while true {
                // Released, or the card is gone (its descriptor hangs up or fails).
                let gone: PollEvents = [.failed, .hungUp, .invalid]
                guard (try? Poll.wait(for: &polled)) != nil, polled.last!.returnedEvents.isEmpty,
                      !polled.dropLast().contains(where: { !$0.returnedEvents.isDisjoint(with: gone) }) else { return }
                guard let changed = try? device.changedElements() else { return }
                for jack in jacks where changed.contains(jack.id) {
                    // A value event may repeat the value it had: only a change is reported.
                    guard let now = try? device.isPlugged(jack), now != plugged[jack.id] else { continue }
                    plugged[jack.id] = now
                    report(JackMonitor.Change(card: index, cardName: cardName, jack: jack.name, isPlugged: now))
                }
            }
        }
    }

    deinit { try? wake.close() }
}
