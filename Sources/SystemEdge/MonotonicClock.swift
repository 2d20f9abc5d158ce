import Glibc

/// The clock that only goes forward, at the rate of real time, from a moment at boot: for durations, deadlines and
/// sleeps, never for the date.
///
/// **Real-time safety**: reading it allocates nothing and makes no system call (the vDSO answers); a sleep allocates
/// nothing.
package enum MonotonicClock {
    /// Now, in nanoseconds.
    ///
    /// The corresponding C function is `clock_gettime` with `CLOCK_MONOTONIC`.
    package static func nanoseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    /// Now, in seconds.
    package static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }

    /// Sleeps the calling thread for `nanoseconds` (nothing for 0 or less), the whole time: a signal handled meanwhile
    /// does not end it early.
    ///
    /// The corresponding C function is `nanosleep`, called again for what remains when a signal interrupts it.
    package static func sleep(nanoseconds: Int) {
        guard nanoseconds > 0 else { return }
        var request = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        var remaining = timespec()
        // Fails only when interrupted (then on with what remains), or for a time out of range, which this cannot be.
        _ = Syscall.nothing {
            defer { request = remaining }
            return nanosleep(&request, &remaining)
        }
    }

    /// Sleeps the calling thread for `seconds`, as ``sleep(nanoseconds:)``.
    package static func sleep(seconds: Double) {
        sleep(nanoseconds: Int(seconds * 1e9))
    }
}
