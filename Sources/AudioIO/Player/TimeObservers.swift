import Dispatch
import FoundationEssentials

/// A handle for removing a time observer with ``BasePlayer/removeTimeObserver(_:)`` or
/// ``BasePlayer/removeTimeObserver(_:)``.
public struct TimeObserver: Hashable, Sendable {
    let id: Int
}

/// A player's time observers and where its voice stood at the last tick, held in its state (``AudioPlayer`` and
/// ``QueuePlayer`` alike). Times are seconds into what the voice plays: the file, or a queue's current item.
///
/// **Threads**: a value under its player's lock; ``tick(_:current:isPlaying:from:)`` on the engine's event thread.
struct TimeObservers {
    /// A callback due: the block, the time to call it with, and the queue to call it on (nil: the thread at hand).
    typealias Call = (block: @Sendable (TimeInterval) -> Void, time: TimeInterval, queue: DispatchQueue?)

    private enum Kind {
        case periodic(interval: TimeInterval, lastIndex: Int?)
        case boundary(times: [TimeInterval])
    }

    private var entries: [Int: (kind: Kind, block: @Sendable (TimeInterval) -> Void, queue: DispatchQueue?)] = [:]
    private var nextID = 0
    /// Where the voice stood at its last tick; nil until its first.
    private var lastTickPosition: TimeInterval?

    /// Adds an observer called each time playback crosses a multiple of `interval` seconds (5 ms at least), and
    /// when it starts; `voice` ticks for it from now on.
    mutating func addPeriodic(
        interval: TimeInterval, queue: DispatchQueue?, voice: Voice?, block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        add(.periodic(interval: max(interval, 0.005), lastIndex: nil), queue: queue, voice: voice, block: block)
    }

    /// Adds an observer called each time playback passes one of `times`; `voice` ticks for it from now on.
    mutating func addBoundary(
        times: [TimeInterval], queue: DispatchQueue?, voice: Voice?, block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        add(.boundary(times: times.sorted()), queue: queue, voice: voice, block: block)
    }

    private mutating func add(
        _ kind: Kind, queue: DispatchQueue?, voice: Voice?, block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        nextID += 1
        entries[nextID] = (kind, block, queue)
        voice?.wantsTicks.store(true, ordering: .relaxed)
        return TimeObserver(id: nextID)
    }

    /// Removes `observer`; `voice` stops ticking when none is left.
    mutating func remove(_ observer: TimeObserver, voice: Voice?) {
        entries.removeValue(forKey: observer.id)
        prepare(voice)
    }

    /// Has `voice` tick while there are observers.
    func prepare(_ voice: Voice?) {
        voice?.wantsTicks.store(!entries.isEmpty, ordering: .relaxed)
    }

    /// The voice was let go: its successor's first tick looks back to where it starts.
    mutating func voiceReleased() {
        lastTickPosition = nil
    }

    /// The calls due at a tick of `voice`: none unless it is the player's `current` voice, playing and started.
    /// `start` is where it started, read at its first tick only, so that a time crossed before that counts. A
    /// position behind the last one is a new pass or item: boundaries after the last position and up to the
    /// voice's are crossed.
    mutating func tick(_ voice: Voice, current: Voice?, isPlaying: Bool, from start: TimeInterval) -> [Call] {
        guard current === voice, isPlaying, voice.hasStarted.load(ordering: .acquiring) else { return [] }
        let now = voice.position
        let last = lastTickPosition ?? start
        lastTickPosition = now
        var due: [Call] = []
        for (id, entry) in entries {
            switch entry.kind {
            case .periodic(let interval, let lastIndex):
                let index = Int(now / interval)
                if index != lastIndex {
                    entries[id]?.kind = .periodic(interval: interval, lastIndex: index)
                    due.append((entry.block, now, entry.queue))
                }
            case .boundary(let times):
                let crossed = now >= last
                    ? times.filter { last < $0 && $0 <= now }
                    : times.filter { $0 > last || $0 <= now }
                due += crossed.map { _ in (entry.block, now, entry.queue) }
            }
        }
        return due
    }

    /// The periodic observers' calls when the time jumps (a seek, a loop starting over) or playback starts or stops, as
    /// `AVPlayer` calls them "whenever time jumps and whenever playback starts or stops": each with `time`, the position
    /// now, counting from there.
    mutating func jumped(to time: TimeInterval) -> [Call] {
        var due: [Call] = []
        for (id, entry) in entries {
            guard case .periodic(let interval, _) = entry.kind else { continue }
            entries[id]?.kind = .periodic(interval: interval, lastIndex: Int(time / interval))
            due.append((entry.block, time, entry.queue))
        }
        return due
    }

    /// Calls `due`'s blocks, outside the player's lock (a block may call back into the player): on its queue, or here.
    static func run(_ due: [Call]) {
        for call in due {
            if let queue = call.queue {
                queue.async { call.block(call.time) }
            } else {
                call.block(call.time)
            }
        }
    }
}
