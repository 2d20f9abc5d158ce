import Atomics
import FoundationEssentials
import Synchronization

/// Input captured before the recorder that keeps it can be made: the device opened and capturing from the moment this
/// is made, what it delivers held in a ring of eight seconds (longer and the rest
/// is lost, and stands as silence of its length in the file) until ``AudioRecorder/record(from:)`` takes it over and
/// writes it from its first frame.
///
/// For a program that has slow work to do before it knows where the file goes (a memo store that loads its index,
/// recovers a recording a killed process left): what is said while it works is not lost.
///
/// ```swift
/// let early = try EarlyCapture(settings: settings, device: "pulse")   // capturing from here on
/// let url = try placeForTheFile()                                    // slow: a store's lock, its index
/// let recorder = try AudioRecorder(url: url, settings: settings)
/// recorder.record(from: early)                                       // the file starts at the first frame
/// ```
///
/// Dropped without being taken over, it stops capturing and what it held is gone.
///
/// **Thread safety**: may be made, handed over and dropped on any thread.
public final class EarlyCapture: Sendable {
    /// The settings of the recording it is for: the recorder that takes it over has the same.
    public let settings: AudioSettings
    let engine: StreamEngine
    let tap: CaptureTap
    /// Seconds its ring holds, for the recording's whole length: enough for a program that takes seconds before it
    /// knows where the file goes (a memo store busy with another process's change), at 1.5 MB for 48 kHz mono, and
    /// for a disk that stalls for seconds (a USB stick, a network mount).
    static let ringSeconds = 8.0
    /// The tap's owner until a recorder takes it over, holding what the tap reported meanwhile.
    private let relay = EventRelay()
    private let isTakenOver = ManagedAtomic<Bool>(false)

    /// Opens `device` (`nil`: the session's input for new recorders) as a recording with `settings` would, and starts
    /// capturing with the next device period; with a `duration`, `duration` seconds of audio from the start are all it
    /// captures, as ``AudioRecorder/record(forDuration:)`` would.
    ///
    /// - Throws: ``AudioDeviceError`` when the device cannot be opened (another program holds it: `.busy`) or cannot
    ///   give what the settings ask.
    public init(settings: AudioSettings, device: String? = nil, duration: TimeInterval? = nil) throws(AudioDeviceError) {
        let (engine, tap) = try settings.openCapture(device: device, ringSeconds: Self.ringSeconds)
        tap.owner = relay
        if let duration { tap.frameLimit.store(Int64(frames: duration, rate: engine.sampleRate), ordering: .releasing) }
        tap.startFrame.store(CaptureTap.immediately, ordering: .releasing)
        try engine.add(tap)
        self.settings = settings
        self.engine = engine
        self.tap = tap
    }

    deinit {
        guard !isTakenOver.load(ordering: .acquiring) else { return }
        tap.removalRequested.store(true, ordering: .releasing)
        engine.wake()
    }

    /// Marks it taken over; false when a recorder took it over already.
    func takeOver() -> Bool {
        !isTakenOver.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// Tells `owner` what the tap reported so far, in order, and from then on what it reports.
    func handOver(to owner: any CaptureTapOwner) {
        relay.handOver(to: owner)
    }
}

/// The owner of an early capture's tap for as long as it lasts: holds what the tap reports until the recorder that
/// takes it over is known, then tells it that, in order, and from then on passes each report on.
private final class EventRelay: CaptureTapOwner {
    private let state = Mutex<(owner: WeakTapOwner, held: [@Sendable (any CaptureTapOwner) -> Void])>((WeakTapOwner(), []))

    func handOver(to owner: any CaptureTapOwner) {
        // Under the lock, so that a report that comes meanwhile follows those held.
        state.withLock { state in
            for report in state.held { report(owner) }
            state = (WeakTapOwner(value: owner), [])
        }
    }

    private func relay(_ report: @escaping @Sendable (any CaptureTapOwner) -> Void) {
        state.withLock { state in
            if let owner = state.owner.value { report(owner) } else if state.owner.isUnset { state.held.append(report) }
        }
    }

    func tapDidStart(_ tap: CaptureTap) { relay { $0.tapDidStart(tap) } }
    func tapDidFinish(_ tap: CaptureTap) { relay { $0.tapDidFinish(tap) } }
    func tapDidOverrun(_ tap: CaptureTap, frames: Int) { relay { $0.tapDidOverrun(tap, frames: frames) } }
    func tapDidLoseDevice(_ tap: CaptureTap, error: AudioDeviceError) { relay { $0.tapDidLoseDevice(tap, error: error) } }
}

/// The recorder that took an early capture over, weakly held; unset before.
private struct WeakTapOwner {
    weak var value: (any CaptureTapOwner)?
    var isUnset = true

    init() {}

    init(value: any CaptureTapOwner) {
        self.value = value
        isUnset = false
    }
}
