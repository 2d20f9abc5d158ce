import ArgumentParser
import FoundationEssentials

/// A duration as `play --sleep` takes it: hours, minutes and seconds, each with its unit, largest first: `90s`, `20m`,
/// `1h`, `1h30m`, `1h30m15s`.
struct SleepDuration: Equatable {
    /// Seconds, more than 0.
    let seconds: TimeInterval

    /// Reads `text`.
    ///
    /// - Throws: `ValidationError` that says what is expected, for anything else (a bare number, which could be seconds
    ///   or minutes, included).
    static func parse(_ text: String) throws -> SleepDuration {
        let units: [(suffix: Character, seconds: TimeInterval)] = [("h", 3600), ("m", 60), ("s", 1)]
        var rest = Substring(text)
        var seconds: TimeInterval = 0
        var parts = 0
        for unit in units {
            guard let end = rest.firstIndex(of: unit.suffix), let count = UInt(rest[..<end]) else { continue }
            seconds += TimeInterval(count) * unit.seconds
            parts += 1
            rest = rest[rest.index(after: end)...]
        }
        guard rest.isEmpty, parts > 0, seconds > 0 else {
            throw ValidationError("--sleep takes a duration with its units, such as 90s, 20m, 1h or 1h30m, not '\(text)'.")
        }
        return SleepDuration(seconds: seconds)
    }
}
