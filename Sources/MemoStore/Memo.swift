import AudioIO
import FoundationEssentials

/// One voice memo: an audio file in the store and what the index knows of it.
public struct Memo: Codable, Equatable, Sendable, Identifiable {
    /// Where the memo is in its life.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// The audio file is finished.
        case complete
        /// A process is recording into it now.
        case recording
        /// Its recording process died; the memo holds the audio that reached the disk.
        case recovered
        /// Its changes came from another machine ahead of its audio, which a sync tool is still bringing: its title and
        /// tags are known, its audio is not whole here yet, and it is neither played nor changed until it is.
        case syncing
    }

    /// 12 lowercase hexadecimal digits, random; also the audio file's name without extension.
    public var id: String
    /// Free text chosen by the user; never used as a path.
    public var title: String
    /// When the recording was made.
    public var createdAt: Date
    /// Length in seconds.
    public var duration: Double
    /// The audio file's name inside the store directory: `<id>.<format>`.
    public var fileName: String
    /// The audio file's format.
    public var format: AudioFileFormat
    /// Frames per second of the audio file, in hertz.
    public var sampleRate: Double
    /// Channels of the audio file.
    public var channels: Int
    /// Size of the audio file in bytes.
    public var sizeBytes: Int64
    /// Peak level of the whole recording per channel, in dBFS (−160 for silence).
    public var peakDBFS: [Double]
    /// Average (RMS) level of the whole recording per channel, in dBFS (−160 for silence).
    public var averageDBFS: [Double]
    /// Whether the audio file is finished.
    public var state: State
    /// Loudness of the whole recording (EBU R 128: integrated LUFS, range LU, true peak dBTP), once measured: at the
    /// end of a recording, at import, and for a memo of an older store when first asked for
    /// (``MemoStore/measuringLoudness(of:)``); `nil` until then, and while it is being recorded.
    public var loudness: AudioLoudness?
    /// Who is heard, or who made it (an author, a speaker); `nil` for none.
    public var artist: String?
    /// What it belongs to (a series, a course, a project); `nil` for none.
    public var album: String?
    /// Free text about it; `nil` for none.
    public var comment: String?
    /// Points marked in it, in order, in frames of ``sampleRate`` (see `AudioMarker`): what `AudioRecorder.addMarker(_:)`
    /// dropped while recording, or what the imported file held. Its audio file keeps them too where its format has a
    /// place for them (WAV cue points, Opus comments, M4A chapters); a CAF memo keeps them beside its file.
    public var markers: [AudioMarker]
    /// Samples its recording got as NaN or ±infinity from a device gone wrong (see
    /// `AudioFileSummary.nonFiniteSampleCount`): silence in its file, or kept as they came in a 32-bit float one.
    public var nonFiniteSampleCount: Int64

    /// Creates a memo record.
    public init(
        id: String, title: String, createdAt: Date, duration: Double, fileName: String, format: AudioFileFormat,
        sampleRate: Double, channels: Int, sizeBytes: Int64, peakDBFS: [Double], averageDBFS: [Double], state: State,
        loudness: AudioLoudness? = nil, artist: String? = nil, album: String? = nil, comment: String? = nil,
        markers: [AudioMarker] = [], nonFiniteSampleCount: Int64 = 0
    ) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.duration = duration
        self.fileName = fileName
        self.format = format
        self.sampleRate = sampleRate
        self.channels = channels
        self.sizeBytes = sizeBytes
        self.peakDBFS = peakDBFS
        self.averageDBFS = averageDBFS
        self.state = state
        self.loudness = loudness
        self.artist = artist
        self.album = album
        self.comment = comment
        self.markers = markers
        self.nonFiniteSampleCount = nonFiniteSampleCount
    }

    /// The tags and markers its audio file is to hold: title, date, artist, album, comment, markers.
    public var metadata: AudioMetadata {
        AudioMetadata(title: title, creationDate: createdAt, artist: artist, album: album, comment: comment, markers: markers)
    }

    /// A complete memo of a file of `format` that holds what `summary` describes, with the tags and markers of
    /// `metadata` (the markers in the file's frames).
    init(id: String, format: AudioFileFormat, metadata: AudioMetadata, summary: AudioFileSummary) {
        self.init(
            id: id, title: metadata.title ?? "", createdAt: metadata.creationDate ?? Date(), duration: summary.duration,
            fileName: Memo.fileName(id: id, format: format), format: format, sampleRate: summary.sampleRate,
            channels: summary.channelCount, sizeBytes: summary.byteCount, peakDBFS: summary.levels.peak,
            averageDBFS: summary.levels.average, state: .complete, loudness: summary.loudness, artist: metadata.artist,
            album: metadata.album, comment: metadata.comment, markers: metadata.markers,
            nonFiniteSampleCount: summary.nonFiniteSampleCount)
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, createdAt, duration, fileName = "file", format, sampleRate, channels, sizeBytes
        case peakDBFS, averageDBFS, state, loudness, artist, album, comment, markers
        case nonFiniteSampleCount = "nonFiniteSamples"
    }

    // Written by hand for the keys that came later: an index without them (schema 1 and 2) reads as memos without
    // loudness, tags and markers, and a memo without them writes none (nor a count of non-finite samples of 0).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), title: try container.decode(String.self, forKey: .title),
            createdAt: try container.decode(Date.self, forKey: .createdAt), duration: try container.decode(Double.self, forKey: .duration),
            fileName: try container.decode(String.self, forKey: .fileName), format: try container.decode(AudioFileFormat.self, forKey: .format),
            sampleRate: try container.decode(Double.self, forKey: .sampleRate), channels: try container.decode(Int.self, forKey: .channels),
            sizeBytes: try container.decode(Int64.self, forKey: .sizeBytes), peakDBFS: try container.decode([Double].self, forKey: .peakDBFS),
            averageDBFS: try container.decode([Double].self, forKey: .averageDBFS), state: try container.decode(State.self, forKey: .state),
            loudness: try container.decodeIfPresent(AudioLoudness.self, forKey: .loudness),
            artist: try container.decodeIfPresent(String.self, forKey: .artist),
            album: try container.decodeIfPresent(String.self, forKey: .album),
            comment: try container.decodeIfPresent(String.self, forKey: .comment),
            markers: try container.decodeIfPresent([AudioMarker].self, forKey: .markers) ?? [],
            nonFiniteSampleCount: try container.decodeIfPresent(Int64.self, forKey: .nonFiniteSampleCount) ?? 0)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(duration, forKey: .duration)
        try container.encode(fileName, forKey: .fileName)
        try container.encode(format, forKey: .format)
        try container.encode(sampleRate, forKey: .sampleRate)
        try container.encode(channels, forKey: .channels)
        try container.encode(sizeBytes, forKey: .sizeBytes)
        try container.encode(peakDBFS, forKey: .peakDBFS)
        try container.encode(averageDBFS, forKey: .averageDBFS)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(loudness, forKey: .loudness)
        try container.encodeIfPresent(artist, forKey: .artist)
        try container.encodeIfPresent(album, forKey: .album)
        try container.encodeIfPresent(comment, forKey: .comment)
        if !markers.isEmpty { try container.encode(markers, forKey: .markers) }
        if nonFiniteSampleCount > 0 { try container.encode(nonFiniteSampleCount, forKey: .nonFiniteSampleCount) }
    }

    /// Whether every number is one a real memo can have. The index may have been edited by hand or damaged,
    /// and its numbers go on to be formatted, converted to integers and compared.
    var isPlausible: Bool {
        // Years 1 to 9999, what ISO 8601 dates in the index can say.
        let seconds = createdAt.timeIntervalSince1970
        return (-62_135_596_800.0...253_402_300_799.0).contains(seconds)
            && (0.0...1e9).contains(duration)
            && (1.0...1e6).contains(sampleRate)
            && (1...255).contains(channels)
            && sizeBytes >= 0
            && peakDBFS.count == channels && averageDBFS.count == channels
            && peakDBFS.allSatisfy(\.isFinite) && averageDBFS.allSatisfy(\.isFinite)
            && loudness.map { [$0.integrated, $0.range, $0.truePeak].allSatisfy { (-1000.0...1000.0).contains($0) } } ?? true
            && markers.count <= AudioMarker.maximumStoredCount && markers.allSatisfy { $0.framePosition >= 0 }
            && nonFiniteSampleCount >= 0
    }

    /// Whether the entry names its file by its own id (else it is forged, and must not lead outside the store) and
    /// has only numbers a memo can have.
    var isWellFormed: Bool {
        var (fileName, id) = (fileName, id)
        let namesItsFile = fileName.withUTF8 { name in
            id.withUTF8 { id in Memo.fileKey(name) != nil && name[..<12].elementsEqual(id) }
        }
        return namesItsFile && isPlausible
    }

    /// Fails when the memo's audio is not whole: being recorded, or still arriving from another machine.
    ///
    /// - Throws: ``MemoStoreError/recordingInProgress(_:)``, ``MemoStoreError/stillSyncing(_:)``.
    func requireWhole() throws(MemoStoreError) {
        switch state {
        case .recording: throw .recordingInProgress(title)
        case .syncing: throw .stillSyncing(title)
        case .complete, .recovered: return
        }
    }

    /// A new random id that none of `memos` has.
    static func newID(unlike memos: [Memo]) -> String {
        let taken = Set(memos.map(\.id))
        while true {
            let value = UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF
            let digits = String(value, radix: 16)
            let id = String(repeating: "0", count: 12 - digits.count) + digits
            if !taken.contains(id) { return id }
        }
    }

    /// The formats the store keeps memos in: what a recording is written as (AAC as `.m4a`), and FLAC, which a FLAC or
    /// ALAC file is kept as. Export writes the others. Three bits of a file key tell them apart.
    static let storedFormats: [AudioFileFormat] = [.wav, .caf, .opus, .aac, .flac]

    /// Bits of a file key that tell the format.
    private static let formatBits = 3

    /// The formats the store keeps memos in, and their extensions in UTF-8.
    private static let storeFormats = storedFormats.map { ($0, Array($0.fileExtension.utf8)) }

    /// The name of memo `id`'s audio file in `format`: `<id>.<extension>`.
    static func fileName(id: String, format: AudioFileFormat) -> String {
        "\(id).\(format.fileExtension)"
    }

    /// Whether `name` is a file name the store gives an audio file: `<12 hex digits>.<wav|caf|opus|m4a|flac>`.
    static func id(fromFileName name: String) -> Substring? {
        guard fileKey(ofFileName: name) != nil else { return nil }
        return name[..<name.utf8.index(name.startIndex, offsetBy: 12)]
    }

    /// A store file name, `<12 hex digits>.<wav|caf|opus|m4a|flac>`, as one number: the id's 48 bits, then the format's place
    /// among the store's. A store of 50,000 memos is compared with its directory as numbers, not strings.
    static func fileKey(ofFileName name: String) -> UInt64? {
        var name = name
        return name.withUTF8(fileKey)
    }

    /// The key of `name` in UTF-8, or `nil` when it is no store file name. Bytes, not characters, and nothing copied.
    static func fileKey(_ name: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard name.count > 13, name[12] == UInt8(ascii: ".") else { return nil }
        var id: UInt64 = 0
        for index in 0..<12 {
            let byte = name[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            id = id << 4 | UInt64(digit)
        }
        let ext = UnsafeBufferPointer(rebasing: name[13...])
        for format in storeFormats.indices where storeFormats[format].1.count == ext.count
            && storeFormats[format].1.elementsEqual(ext) {
            return id << formatBits | UInt64(format)
        }
        return nil
    }

    /// The file name whose ``fileKey(_:)`` is `key`.
    static func fileName(forKey key: UInt64) -> String {
        let digits = String(key >> formatBits, radix: 16)
        let format = Int(key & (1 << formatBits - 1))
        return String(repeating: "0", count: 12 - digits.count) + digits + "." + storeFormats[format].0.fileExtension
    }

    /// The keys the audio file of memo `id` would have, one per format.
    static func fileKeys(ofID id: Substring) -> [UInt64] {
        guard let number = UInt64(id, radix: 16) else { return [] }
        return storeFormats.indices.map { number << formatBits | UInt64($0) }
    }
}
