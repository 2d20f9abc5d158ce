import FoundationEssentials

/// Descriptive facts stored inside an audio file, in the container's own fields
/// (WAV `LIST/INFO`, CAF `info`, Opus comment header).
public struct AudioMetadata: Equatable, Sendable {
    /// The recording's title (`INAM` in WAV, `title` in CAF, `TITLE` in Opus). A file keeps at most
    /// ``maximumStoredTitleBytes`` of it: see there.
    public var title: String?

    /// The most bytes of a title (in UTF-8) that ``AudioFileWriter`` stores in a file; a longer title is cut, between
    /// two characters. libsndfile reads no WAV title of 2 KB or more back, nor a CAF one of 32 KB, and fails to open
    /// an Opus file whose title fills 64 KB; what it writes, it must read.
    public static let maximumStoredTitleBytes = 1024
    /// When the recording was made, stored as ISO 8601 with seconds (`ICRD`, `recorded date`, `DATE`).
    public var creationDate: Date?

    /// Creates metadata; every field defaults to absent.
    public init(title: String? = nil, creationDate: Date? = nil) {
        self.title = title
        self.creationDate = creationDate
    }

    /// The text written for `creationDate`: ISO 8601 in UTC, e.g. `2026-11-22T21:59:22Z`.
    static func dateText(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// Reads a date written by `dateText`, one with fractional seconds as FFmpeg gives an MP4's creation time
    /// (`2024-03-05T10:11:12.000000Z`), or a plain `YYYY-MM-DD` as other tools write.
    static func date(fromText text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day())
    }
}
