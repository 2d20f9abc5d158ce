import AudioIO
import FoundationEssentials

/// The binary layout of memos in the index's cache and journal, in the machine's byte order: per memo its strings
/// (a 32-bit length and UTF-8), numbers, level lists and loudness (a word 0 for none, or 1 and its three numbers;
/// journals of schema 2 have memos without it: ``MemoRecordLayout``).
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

    mutating func append(_ levels: [Double]) {
        append(UInt64(levels.count))
        for level in levels { append(level) }
    }

    mutating func append(_ memo: Memo) {
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
    /// Schema 2's, in the journal of a store written before memos had a loudness.
    case withoutLoudness
    /// What ``MemoRecordWriter`` writes.
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
        case 0: return true
        case 1:
            guard bytes.count - offset >= 3 * 8 else { return false }
            offset += 3 * 8
            return true
        default: return false
        }
    }

    mutating func memo(layout: MemoRecordLayout = .current) -> Memo? {
        guard let id = text(), let title = text(), let fileName = text(),
              let format = oneOf(Self.formats), let state = oneOf(Self.states),
              let createdAt = number(), let duration = number(), let sampleRate = number(),
              let channels = word(), let sizeBytes = word(),
              let peakDBFS = levels(), let averageDBFS = levels()
        else { return nil }
        var loudness: AudioLoudness?
        if layout == .current {
            switch word() {
            case 0: break
            case 1:
                guard let integrated = number(), let range = number(), let truePeak = number() else { return nil }
                loudness = AudioLoudness(integrated: integrated, range: range, truePeak: truePeak)
            default: return nil
            }
        }
        return Memo(
            id: id, title: title, createdAt: Date(timeIntervalSince1970: createdAt), duration: duration,
            fileName: fileName, format: format, sampleRate: sampleRate, channels: Int(Int64(bitPattern: channels)),
            sizeBytes: Int64(bitPattern: sizeBytes), peakDBFS: peakDBFS, averageDBFS: averageDBFS, state: state,
            loudness: loudness)
    }
}
