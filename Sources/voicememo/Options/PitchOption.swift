import ArgumentParser
import AudioIO

/// `--pitch`: how `play` changes the speed (`--rate`, the `+`/`-` keys, a remote's rate), named as a user says it.
enum PitchOption: String, ExpressibleByArgument, CaseIterable {
    /// The pitch kept: SoundTouch, tuned for speech.
    case timeDomain = "time-domain"
    /// The pitch following the speed, as a tape played faster: libsoxr.
    case varispeed

    /// The player's algorithm.
    var algorithm: AudioTimePitchAlgorithm {
        switch self {
        case .timeDomain: .timeDomain
        case .varispeed: .varispeed
        }
    }
}
