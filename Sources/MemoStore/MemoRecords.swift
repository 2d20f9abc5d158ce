import AudioIO
import FoundationEssentials

/// The binary layout of memos in the index's cache and journal, in the machine's byte order: per memo its strings
/// (a 32-bit length and UTF-8), numbers and level lists, then the fields of schema 3: its loudness (a word 0 for none,
/// or 1 and its three numbers), its tags, texts that may be absent (a length of 2³² − 1), and its markers (a count,
/// then each one's frame and name), then its count of non-finite samples. Journals of schema 2 have memos without the
/// fields of schema 3, and records of kind 3 memos without the count (``MemoRecordLayout``).
struct MemoRecordWriter {
    var bytes: [UInt8] = []

    mutating func append(_ word: UInt64) {
        withUnsafeBytes(of: word) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ number: Double) { append(number.bitPattern) }

    mutating func append(_ text: String) {
        withUnsafeBytes(of: UInt32(text.utf8.count)) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: text.utf8)
    }

    /// A text that may be absent: ``absent`` for none.
    mutating func append(optional text: String?) {
        guard let text else { return withUnsafeBytes(of: Self.absent) { bytes.append(contentsOf: $0) } }
        append(text)
    }

    /// The length that says a text is absent.
    static let absent = UInt32.max

    mutating func append(_ levels: [Double]) {
        append(UInt64(levels.count))
        for level in levels { append(level) }
    }

    mutating func append(_ memo: Memo, layout: MemoRecordLayout = .current) {
        precondition(layout != .schema2, "schema 2's records are read, never written")
        for text in [memo.id, memo.title, memo.fileName, memo.format.rawValue, memo.state.rawValue] {
            append(text)
        }
        // To the second, as memos.json holds it, so that the copy and the JSON read the same.
        append(memo.createdAt.timeIntervalSince1970.rounded(.down))
        append(memo.duration)
        append(memo.sampleRate)
        append(UInt64(bitPattern: Int64(memo.channels)))
        append(UInt64(bitPattern: memo.sizeBytes))
        append(memo.peakDBFS)
        append(memo.averageDBFS)
        if let loudness = memo.loudness {
            append(UInt64(1))
            for number in [loudness.integrated, loudness.range, loudness.truePeak] { append(number) }
        } else {
            append(UInt64(0))
        }
        for text in [memo.artist, memo.album, memo.comment] { append(optional: text) }
        append(UInt64(memo.markers.count))
        for marker in memo.markers {
            append(UInt64(bitPattern: marker.framePosition))
            append(optional: marker.name)
        }
        if layout == .current { append(UInt64(bitPattern: memo.nonFiniteSampleCount)) }
    }

    /// 64-bit FNV-1a over 64-bit words (and the last bytes one by one): a byte at a time, 1.5 MB took milliseconds.
    static func checksum(of bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        let words = bytes.count / 8
        for offset in stride(from: 0, to: words * 8, by: 8) {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01B3
        }
        for byte in bytes[(words * 8)...] {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}

/// Which fields a memo record has.
enum MemoRecordLayout {
    /// Schema 2's, in the journal of a store written before memos had a loudness, tags and markers.
    case schema2
    /// Schema 3's first records, without the count of non-finite samples: a journal's records of kind 3.
    case schema3
    /// What ``MemoRecordWriter`` writes by default.
    case current
}

/// Reads what ``MemoRecordWriter`` wrote, checking every length against what is left.
struct MemoRecordReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func word() -> UInt64? {
        guard bytes.count - offset >= 8 else { return nil }
        defer { offset += 8 }
        return bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
    }

    mutating func words(_ count: Int) -> [UInt64]? {
        guard (bytes.count - offset) / 8 >= count else { return nil }
        return (0..<count).map { _ in word()! }
    }

    mutating func number() -> Double? { word().map(Double.init(bitPattern:)) }

    mutating func text() -> String? {
        // Decoding, which mends what is not UTF-8, rather than validating: cheaper, and the checksum has
        // already shown these bytes are what was written, the bytes of a String.
        textBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    mutating func textBytes() -> UnsafeBufferPointer<UInt8>? {
        guard bytes.count - offset >= 4 else { return nil }
        let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        guard bytes.count - offset - 4 >= length else { return nil }
        defer { offset += 4 + length }
        return UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 4 + length)]).assumingMemoryBound(to: UInt8.self)
    }

    /// A text that may be absent (see ``MemoRecordWriter/append(optional:)``): `.some(nil)` when it is, `nil` when
    /// what is left is no such text.
    mutating func optionalText() -> String?? {
        guard bytes.count - offset >= 4 else { return nil }
        if bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self) == MemoRecordWriter.absent {
            offset += 4
            return .some(nil)
        }
        return text().map { .some($0) }
    }

    private static let formats = AudioFileFormat.allCases.map { ($0, Array($0.rawValue.utf8)) }
    private static let states = Memo.State.allCases.map { ($0, Array($0.rawValue.utf8)) }

    mutating func levels() -> [Double]? {
        guard let count = word().flatMap({ Int(exactly: $0) }), count <= (bytes.count - offset) / 8 else { return nil }
        defer { offset += 8 * count }
        return (0..<count).map { bytes.loadUnaligned(fromByteOffset: offset + 8 * $0, as: Double.self) }
    }

    /// The case of `Value` whose raw value is the next text, without making a string of it.
    mutating func oneOf<Value>(_ values: [(Value, [UInt8])]) -> Value? {
        guard let text = textBytes() else { return nil }
        return values.first { $0.1.elementsEqual(text) }?.0
    }

    /// Moves past the next memo (of the current layout) without reading it; false when what is left is no whole memo.
    mutating func skipMemo() -> Bool {
        for _ in 0..<5 { guard textBytes() != nil else { return false } }
        guard bytes.count - offset >= 5 * 8 else { return false }
        offset += 5 * 8
        for _ in 0..<2 {
            guard let count = word().flatMap({ Int(exactly: $0) }), count <= (bytes.count - offset) / 8 else { return false }
            offset += 8 * count
        }
        switch word() {
        case 0: break
        case 1:
            guard bytes.count - offset >= 3 * 8 else { return false }
            offset += 3 * 8
        default: return false
        }
        guard tagsAndMarkers() != nil, bytes.count - offset >= 8 else { return false }
        offset += 8
        return true
    }

    mutating func memo(layout: MemoRecordLayout = .current) -> Memo? {
        guard let id = text(), let title = text(), let fileName = text(),
              let format = oneOf(Self.formats), let state = oneOf(Self.states),
              let createdAt = number(), let duration = number(), let sampleRate = number(),
              let channels = word(), let sizeBytes = word(),
              let peakDBFS = levels(), let averageDBFS = levels()
        else { return nil }
        var memo = Memo(
            id: id, title: title, createdAt: Date(timeIntervalSince1970: createdAt), duration: duration,
            fileName: fileName, format: format, sampleRate: sampleRate, channels: Int(Int64(bitPattern: channels)),
            sizeBytes: Int64(bitPattern: sizeBytes), peakDBFS: peakDBFS, averageDBFS: averageDBFS, state: state)
        guard layout != .schema2 else { return memo }
        switch word() {
        case 0: break
        case 1:
            guard let integrated = number(), let range = number(), let truePeak = number() else { return nil }
            memo.loudness = AudioLoudness(integrated: integrated, range: range, truePeak: truePeak)
        default: return nil
        }
        guard let (tags, markers) = tagsAndMarkers() else { return nil }
        (memo.artist, memo.album, memo.comment) = (tags[0], tags[1], tags[2])
        memo.markers = markers
        guard layout == .current else { return memo }
        guard let nonFinite = word() else { return nil }
        memo.nonFiniteSampleCount = Int64(bitPattern: nonFinite)
        return memo
    }

    /// The tags (artist, album, comment) and markers after a memo's loudness.
    private mutating func tagsAndMarkers() -> (tags: [String?], markers: [AudioMarker])? {
        var tags: [String?] = []
        for _ in 0..<3 {
            guard let tag = optionalText() else { return nil }
            tags.append(tag)
        }
        // A marker takes 12 bytes at least.
        guard let count = word().flatMap({ Int(exactly: $0) }), count <= (bytes.count - offset) / 12 else { return nil }
        var markers: [AudioMarker] = []
        markers.reserveCapacity(count)
        for _ in 0..<count {
            guard let frame = word(), let name = optionalText() else { return nil }
            markers.append(AudioMarker(framePosition: Int64(bitPattern: frame), name: name))
        }
        return (tags, markers)
    }
}
