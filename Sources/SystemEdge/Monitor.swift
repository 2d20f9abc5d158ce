import Glibc

/// A mutex with a condition to wait on: what a reader that blocks until bytes arrive needs, and `Mutex` lacks.
///
/// The corresponding C functions are `pthread_mutex_*` and `pthread_cond_*` (on the monotonic clock).
package final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Inside ``withLock(_:)``: releases the mutex until ``broadcast()`` or `seconds` pass, then holds it again.
    package func wait(seconds: Double = .infinity) {
        guard seconds.isFinite else {
            pthread_cond_wait(condition, mutex)
            return
        }
        let end = MonotonicClock.nanoseconds() + Int(max(seconds, 0) * 1e9)
        var deadline = timespec(tv_sec: end / 1_000_000_000, tv_nsec: end % 1_000_000_000)
        pthread_cond_timedwait(condition, mutex, &deadline)
    }

    /// Wakes every thread in ``wait(seconds:)``.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
