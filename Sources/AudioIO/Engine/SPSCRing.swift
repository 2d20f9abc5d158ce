import Atomics

/// A lock-free ring buffer for one producer thread and one consumer thread.
///
/// Storage is allocated once, in `init`; no method allocates, locks or makes a system call, so either end
/// may be a real-time thread. Indices only grow; their difference is the fill level.
///
/// **Thread safety**: exactly one thread calls the producer methods (``write(_:)``, ``push(_:)``,
/// ``availableToWrite``) and exactly one the consumer methods (``read(into:)``, ``pop()``,
/// ``discard(_:)``, ``availableToRead``).
package final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    /// How many elements it holds at most (a power of two).
    let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Element>
    private let written = ManagedAtomic<Int>(0)
    private let consumed = ManagedAtomic<Int>(0)

    /// Creates a ring for at least `minimumCapacity` elements.
    init(minimumCapacity: Int) {
        var capacity = 1
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        mask = capacity - 1
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// Producer: free room, in elements.
    package var availableToWrite: Int { capacity - (written.load(ordering: .relaxed) - consumed.load(ordering: .acquiring)) }

    /// Consumer: elements ready to read.
    package var availableToRead: Int { written.load(ordering: .acquiring) - consumed.load(ordering: .relaxed) }

    /// Producer: elements written since the ring was made: a change tells that something was written.
    var writeCount: Int { written.load(ordering: .relaxed) }

    /// Producer: appends as much of `elements` as fits; returns how many.
    @discardableResult
    package func write(_ elements: UnsafeBufferPointer<Element>) -> Int {
        let start = written.load(ordering: .relaxed)
        let count = min(elements.count, capacity - (start - consumed.load(ordering: .acquiring)))
        guard count > 0, let source = elements.baseAddress else { return 0 }
        let offset = start & mask
        let first = min(count, capacity - offset)
        (storage + offset).update(from: source, count: first)
        if first < count { storage.update(from: source + first, count: count - first) }
        written.store(start + count, ordering: .releasing)
        return count
    }

    /// Producer: appends one element if there is room.
    @discardableResult
    package func push(_ element: Element) -> Bool {
        let start = written.load(ordering: .relaxed)
        guard start - consumed.load(ordering: .acquiring) < capacity else { return false }
        storage[start & mask] = element
        written.store(start + 1, ordering: .releasing)
        return true
    }

    /// Consumer: moves up to `buffer.count` elements into `buffer`; returns how many.
    @discardableResult
    func read(into buffer: UnsafeMutableBufferPointer<Element>) -> Int {
        let start = consumed.load(ordering: .relaxed)
        let count = min(buffer.count, written.load(ordering: .acquiring) - start)
        guard count > 0, let destination = buffer.baseAddress else { return 0 }
        let offset = start & mask
        let first = min(count, capacity - offset)
        destination.update(from: storage + offset, count: first)
        if first < count { (destination + first).update(from: storage, count: count - first) }
        consumed.store(start + count, ordering: .releasing)
        return count
    }

    /// Consumer: the next element, if any, without removing it.
    func peek() -> Element? {
        let start = consumed.load(ordering: .relaxed)
        guard written.load(ordering: .acquiring) > start else { return nil }
        return storage[start & mask]
    }

    /// Consumer: removes and returns the next element, if any.
    func pop() -> Element? {
        let start = consumed.load(ordering: .relaxed)
        guard written.load(ordering: .acquiring) > start else { return nil }
        let element = storage[start & mask]
        consumed.store(start + 1, ordering: .releasing)
        return element
    }

    /// Consumer: drops up to `count` elements unread; returns how many.
    @discardableResult
    package func discard(_ count: Int) -> Int {
        let start = consumed.load(ordering: .relaxed)
        let dropped = min(count, written.load(ordering: .acquiring) - start)
        consumed.store(start + dropped, ordering: .releasing)
        return dropped
    }
}
