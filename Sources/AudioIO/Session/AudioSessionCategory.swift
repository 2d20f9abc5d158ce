extension AudioSession {
    /// What the process does with audio, as `AVAudioSession.Category` says it.
    public enum Category: String, Sendable, CaseIterable {
        /// Plays audio: the route has outputs only.
        case playback
        /// Records audio: the route has inputs only.
        case record
        /// Plays and records (the default): the route has both.
        case playAndRecord
        /// Plays audio that accompanies something else: outputs only, as `playback`.
        case ambient

        /// Whether the route of this category has outputs.
        var plays: Bool { self != .record }
        /// Whether the route of this category has inputs.
        var records: Bool { self == .record || self == .playAndRecord }
    }

    /// How the session applies its policy.
    public struct CategoryOptions: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// When an interruption ends, the players and recorders it paused resume by themselves (the
        /// `voicememo` CLI's choice). Without it they stay paused, and a program resumes them when it
        /// sees ``AudioSession/Event/interruptionEnded(_:shouldResume:)``.
        public static let resumeAfterInterruption = CategoryOptions(rawValue: 1 << 0)
        /// Players and recorders given no device use the session's preferred device when one is set, and
        /// otherwise ALSA's `default`, which follows the system's choice; without it, always `default`.
        public static let followDefaultDevice = CategoryOptions(rawValue: 1 << 1)
    }
}
