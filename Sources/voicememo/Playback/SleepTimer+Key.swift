import AudioIO
import FoundationEssentials

/// The `s` key's sleep timer.
extension SleepTimer {
    /// What the `s` key goes through from off: 15, 30 and 60 minutes, then off again.
    static let choices: [TimeInterval] = [15 * 60, 30 * 60, 60 * 60]

    /// The `s` key: off → 15 min → 30 → 60 → off. A timer set otherwise (`--sleep 20m`) goes to the next choice above
    /// what is left, or off.
    func cycle() {
        set(remaining.map { left in Self.choices.first { $0 > left + 1 } } ?? Self.choices.first)
    }
}
