import FoundationEssentials

/// A point in a recording that someone marked — a recorder's "track mark" — at an exact frame, with an optional name,
/// as Core Audio's `AudioFileMarker` is.
///
/// ``AudioRecorder/addMarker(_:)`` drops one at the current recording time; ``AudioMetadata/markers`` holds a file's.
/// Files keep them where their format has a place: WAV cue points with `adtl` labels, MP4 and ID3 chapters (to the
/// frame), and the `CHAPTERnnn`/`CHAPTERnnnNAME` comments of Opus, FLAC and Vorbis (to the millisecond).
public struct AudioMarker: Equatable, Hashable, Sendable, Codable {
    /// Frames from the start of the file, at its sample rate; 0 or more.
    public var framePosition: Int64

    /// How the name of the marker a recorder drops where another program held its device begins: "interrupted 3.2 s"
    /// marks a gap of 3.2 s there (see ``AudioSession/InterruptionReason/deviceInUse``).
    public static let interruptionPrefix = "interrupted "
    /// What the marker is called, if anything.
    public var name: String?

    /// Creates a marker at `framePosition` (frames from the start), named `name`.
    public init(framePosition: Int64, name: String? = nil) {
        self.framePosition = framePosition
        self.name = name
    }

    /// The most markers a file keeps (the first ones, by position): Vorbis comments number them with three digits.
    public static let maximumStoredCount = 999

    /// Seconds from the start of a file of `sampleRate` frames per second.
    public func time(atSampleRate sampleRate: Double) -> TimeInterval {
        Double(framePosition) / sampleRate
    }

    /// The marker at the frame nearest `time` seconds into a file of `sampleRate` frames per second.
    init(time: TimeInterval, sampleRate: Double, name: String?) {
        self.init(framePosition: max(0, Int64((time * sampleRate).rounded())), name: name)
    }

    /// The same marker in a file of `newRate` frames per second made from one of `rate`: at the same time, to the
    /// nearest frame.
    public func resampled(from rate: Double, to newRate: Double) -> AudioMarker {
        rate == newRate ? self : AudioMarker(framePosition: Int64((Double(framePosition) * newRate / rate).rounded()), name: name)
    }

    /// The same marker in an excerpt of its file, the frames `frames` of it: moved back by the excerpt's start, or `nil`
    /// when the excerpt leaves it out (a marker at the excerpt's very end stays, at its end).
    package func inExcerpt(_ frames: Range<Int64>) -> AudioMarker? {
        (frames.lowerBound...frames.upperBound).contains(framePosition)
            ? AudioMarker(framePosition: framePosition - frames.lowerBound, name: name) : nil
    }

    private enum CodingKeys: String, CodingKey {
        case framePosition = "frame", name
    }

    /// `markers` as a file keeps them: in order, at most ``maximumStoredCount``, each name cut to
    /// ``AudioMetadata/maximumStoredTitleBytes``.
    static func stored(_ markers: [AudioMarker]) -> [AudioMarker] {
        markers.sorted { $0.framePosition < $1.framePosition }.prefix(maximumStoredCount).map { marker in
            AudioMarker(
                framePosition: marker.framePosition,
                name: marker.name.map { String($0.prefix(utf8Bytes: AudioMetadata.maximumStoredTitleBytes)) })
        }
    }
}
