import ArgumentParser

/// A time as the command line gives it, in every command that takes one: seconds (`90`, `12.5`), or minutes and
/// seconds (`1:30`, `1:02.5`), or hours, minutes and seconds (`1:02:03`), as `list` and `info` show durations.
///
/// A negative time is read as one (`--start -1` is not a missing value) and refused by the command in its own words.
struct TimeArgument: ExpressibleByArgument, Equatable, CustomStringConvertible {
    /// Seconds; negative when written with a minus sign.
    let seconds: Double
    /// As it was written, for messages.
    let description: String

    init?(argument: String) {
        let sign: Double = argument.hasPrefix("-") ? -1 : 1
        let fields = argument.dropFirst(sign < 0 ? 1 : 0).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count), let last = Double(fields.last!), last.isFinite, last >= 0 else { return nil }
        var seconds = last
        for (place, field) in fields.dropLast().reversed().enumerated() {
            // Minutes and hours are whole, and a field after one is under 60, as a clock reads.
            guard let whole = Int(field), whole >= 0, last < 60 else { return nil }
            seconds += Double(whole) * (place == 0 ? 60 : 3600)
        }
        self.seconds = sign * seconds
        description = argument
    }

    init(seconds: Double) {
        self.seconds = seconds
        description = "\(seconds)"
    }

    static var defaultValueDescription: String { "time" }

    /// The refusal of a negative time given for `option`.
    static func beforeTheStart(_ option: String, _ time: TimeArgument) -> ValidationError {
        ValidationError("\(option) \(time) is before the memo's start: a time counts from it, in seconds, m:ss or h:mm:ss.")
    }
}
