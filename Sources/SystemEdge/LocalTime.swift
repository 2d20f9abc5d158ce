import Glibc

/// A moment in the C library's local time (`TZ`, else `/etc/localtime`). Not Foundation's: its time zones and
/// calendars need ICU, which this package does without, and a list of thousands of memos formats as many dates, which
/// Foundation's format styles made the slowest part of it.
package struct LocalTime {
    private var time: tm

    /// `secondsSince1970` (UTC, as `Date` counts) in local time; `nil` when the C library cannot say (a year out of its
    /// range).
    ///
    /// The corresponding C function is `localtime_r`.
    package init?(secondsSince1970: Double) {
        var seconds = time_t(secondsSince1970.rounded(.down))
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return nil }
        time = local
    }

    /// The second of the minute, 0 to 60 (a leap second).
    package var second: Int { Int(time.tm_sec) }

    /// How far local time is ahead of UTC, in seconds (negative west of Greenwich).
    package var secondsFromUTC: Int { time.tm_gmtoff }

    /// The time to the minute, e.g. `2026-11-22 21:59`.
    ///
    /// The corresponding C function is `strftime` with `%Y-%m-%d %H:%M`: one call for the whole date.
    package var minute: String {
        var time = time
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let count = strftime(buffer.baseAddress!, buffer.count, "%Y-%m-%d %H:%M", &time)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: count), as: UTF8.self)
        }
    }
}
