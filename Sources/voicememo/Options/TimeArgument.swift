import ArgumentParser

/// A time in a memo as the command line gives it: seconds (`90`, `12.5`), or minutes and seconds (`1:30`, `1:02.5`),
/// or hours, minutes and seconds (`1:02:03`), as `list` and `info` show durations.
struct TimeArgument: ExpressibleByArgument, Equatable {
    /// Seconds from the memo's start.
    let seconds: Double

    init?(argument: String) {
        let fields = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), let last = Double(fields.last!), last.isFinite, last >= 0 else { return nil }
        var seconds = last
        for (place, field) in fields.dropLast().reversed().enumerated() {
            // Minutes and hours are whole, and a field after one is under 60, as a clock reads.
            guard let whole = Int(field), whole >= 0, last < 60 else { return nil }
            seconds += Double(whole) * (place == 0 ? 60 : 3600)
        }
        self.seconds = seconds
    }

    static var defaultValueDescription: String { "seconds" }
}
