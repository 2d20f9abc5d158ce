import AudioIO
import FoundationEssentials
import MemoStore

/// A memo as `--json` prints it: the fields of the CLI contract, with `file` as an absolute path, `loudness`
/// (`integrated` LUFS, `range` LU, `truePeak` dBTP) once measured, the tags it has (`artist`, `album`, `comment`) and its
/// markers (`frame` at `sampleRate`, `time` in seconds, `name` if it has one).
struct MemoJSON: Encodable {
    let id: String
    let title: String
    let createdAt: Date
    let duration: Double
    let file: String
    let format: AudioFileFormat
    let sampleRate: Double
    let channels: Int
    let sizeBytes: Int64
    let peakDBFS: [Double]
    let averageDBFS: [Double]
    let state: Memo.State
    /// Omitted until measured.
    let loudness: AudioLoudness?
    let artist: String?
    let album: String?
    let comment: String?
    let markers: [MarkerJSON]
    /// Samples the device delivered as NaN or ±infinity while it was recorded; omitted when there were none.
    let nonFiniteSamples: Int64?
    /// Every title the memo was given on any machine, the last its title (`info --json` only, when it had others; see
    /// `MemoStore.titleHistory(of:)`).
    var titleHistory: [TitleChange]?

    /// A marker: where it is, in frames and seconds, and its name.
    struct MarkerJSON: Encodable {
        let frame: Int64
        let time: Double
        let name: String?
    }

    init(_ memo: Memo, in store: MemoStore) {
        id = memo.id
        title = memo.title
        createdAt = memo.createdAt
        duration = memo.duration
        file = store.filePath(of: memo)
        format = memo.format
        sampleRate = memo.sampleRate
        channels = memo.channels
        sizeBytes = memo.sizeBytes
        peakDBFS = memo.peakDBFS.map(Self.rounded)
        averageDBFS = memo.averageDBFS.map(Self.rounded)
        state = memo.state
        loudness = memo.loudness.map {
            AudioLoudness(integrated: Self.rounded($0.integrated), range: Self.rounded($0.range), truePeak: Self.rounded($0.truePeak))
        }
        artist = memo.artist
        album = memo.album
        comment = memo.comment
        markers = memo.markers.map { MarkerJSON(frame: $0.framePosition, time: $0.time(atSampleRate: memo.sampleRate), name: $0.name) }
        nonFiniteSamples = memo.nonFiniteSampleCount > 0 ? memo.nonFiniteSampleCount : nil
    }

    /// Levels (and loudness) to 0.01 dB: finer than any meter shows, and free of float noise in the output.
    static func rounded(_ level: Double) -> Double { (level * 100).rounded() / 100 }

    /// One line of JSON with sorted keys.
    static func line(_ value: some Encodable) throws -> String {
        String(decoding: try encoded(value), as: UTF8.self)
    }

    /// `value` as one line of JSON with sorted keys, in UTF-8.
    static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }
}
