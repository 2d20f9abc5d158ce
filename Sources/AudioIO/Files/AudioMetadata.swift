import FoundationEssentials

/// Descriptive facts stored inside an audio file, in the container's own fields: WAV `LIST/INFO` and cue points, CAF
/// `info`, Vorbis comments (Opus, FLAC, Ogg Vorbis), MP4 atoms and chapters, MP3's ID3 tags.
///
/// | field | WAV | CAF | Opus, FLAC, Vorbis | M4A | MP3 |
/// |---|---|---|---|---|---|
/// | ``title`` | `INAM` | `title` | `TITLE` | `©nam` | `TIT2` |
/// | ``creationDate`` | `ICRD` | `recorded date` | `DATE` | `©day`, creation time | `TYER` (the year) |
/// | ``artist`` | `IART` | `artist` | `ARTIST` | `©ART` | `TPE1` |
/// | ``album`` | `IPRD` | `album` | `ALBUM` | `©alb` | `TALB` |
/// | ``comment`` | `ICMT` | `comments` | `COMMENT` | `©cmt` | `COMM` |
/// | ``markers`` | `cue ` + `adtl` labels | — | `CHAPTERnnn` | chapters | `CHAP` |
///
/// AIFF keeps the title (`NAME`), the artist (`AUTH`) and, as its one free text (`ANNO`), the comment or else the date.
/// Markers are kept to the frame in WAV, M4A and MP3, to the millisecond in Vorbis comments; CAF and AIFF files keep
/// none (libsndfile writes no CAF markers, and AIFF's only with loops).
public struct AudioMetadata: Equatable, Sendable {
    /// The recording's title. A file keeps at most ``maximumStoredTitleBytes`` of it: see there.
    public var title: String?

    /// The most bytes (in UTF-8) of a title, and of each other text, that ``AudioFileWriter`` stores in a file; a longer
    /// one is cut, between two characters. libsndfile reads no WAV title of 2 KB or more back, nor a CAF one of 32 KB,
    /// and fails to open an Opus file whose title fills 64 KB; what it writes, it must read.
    public static let maximumStoredTitleBytes = 1024
    /// When the recording was made, stored as ISO 8601 with seconds.
    public var creationDate: Date?
    /// Who is heard, or who made the recording (an author, a speaker, a band).
    public var artist: String?
    /// What the recording belongs to: a series, a course, a project.
    public var album: String?
    /// Free text about the recording.
    public var comment: String?
    /// Marked points of the recording, in frames of the file's rate, in order (see ``AudioMarker``). A file keeps at
    /// most ``AudioMarker/maximumStoredCount``.
    public var markers: [AudioMarker]

    /// Creates metadata; every field defaults to absent.
    public init(
        title: String? = nil, creationDate: Date? = nil, artist: String? = nil, album: String? = nil, comment: String? = nil,
        markers: [AudioMarker] = []
    ) {
        self.title = title
        self.creationDate = creationDate
        self.artist = artist
        self.album = album
        self.comment = comment
        self.markers = markers
    }

    /// The text fields and what holds them in the tags of the formats that name them by word (Vorbis comments, and
    /// FFmpeg's names of MP4 atoms): written once, for writing and for reading.
    static var textFields: [(field: WritableKeyPath<AudioMetadata, String?>, word: String)] {
        [(\.title, "title"), (\.artist, "artist"), (\.album, "album"), (\.comment, "comment")]
    }

    /// This metadata as a file stores it: every text cut to ``maximumStoredTitleBytes``, the markers as
    /// ``AudioMarker/stored(_:)`` keeps them.
    var stored: AudioMetadata {
        var stored = self
        for (field, _) in Self.textFields {
            stored[keyPath: field] = self[keyPath: field].map { String($0.prefix(utf8Bytes: Self.maximumStoredTitleBytes)) }
        }
        stored.markers = AudioMarker.stored(markers)
        return stored
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

    /// A text tag as read from a file: an empty one is none.
    static func text(_ value: String?) -> String? {
        value.flatMap { $0.isEmpty ? nil : $0 }
    }
}
