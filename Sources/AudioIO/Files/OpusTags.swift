import FoundationEssentials
import SystemPackage

/// The comment header of an Opus stream (RFC 7845 §5.2): the magic `OpusTags`, a vendor string, and comments
/// `KEY=value` in UTF-8, every length a 32-bit little-endian count. Read and written as a whole packet, so that a
/// copied stream can take a new title and date without its audio being touched.
struct OpusTags: Equatable {
    /// The encoder's name, as the stream's writer put it.
    var vendor: [UInt8]
    /// The comments, each `KEY=value`, in their order.
    var comments: [[UInt8]]

    private static let magic = Array("OpusTags".utf8)

    /// The header in `packet`, or nil when it is not a whole, well-formed one. Bytes after the last comment (RFC 7845
    /// allows binary data there) are dropped.
    init?(packet: [UInt8]) {
        guard packet.starts(with: Self.magic) else { return nil }
        var offset = Self.magic.count
        func field() -> [UInt8]? {
            guard let length = number(), packet.count - offset >= length else { return nil }
            defer { offset += length }
            return Array(packet[offset..<(offset + length)])
        }
        func number() -> Int? {
            guard packet.count - offset >= 4 else { return nil }
            defer { offset += 4 }
            return (0..<4).reduce(0) { $0 | Int(packet[offset + $1]) << (8 * $1) }
        }
        guard let vendor = field(), let count = number(), count <= (packet.count - offset) / 4 else { return nil }
        var comments: [[UInt8]] = []
        for _ in 0..<count {
            guard let comment = field() else { return nil }
            comments.append(comment)
        }
        self.vendor = vendor
        self.comments = comments
    }

    /// The header as a packet.
    var packet: [UInt8] {
        var bytes = Self.magic
        func append(_ number: Int) { bytes += (0..<4).map { UInt8(truncatingIfNeeded: number >> (8 * $0)) } }
        append(vendor.count)
        bytes += vendor
        append(comments.count)
        for comment in comments {
            append(comment.count)
            bytes += comment
        }
        return bytes
    }

    /// Puts `metadata`'s tags and markers in place of the ones there, as ``AudioFileWriter`` writes them: `TITLE`,
    /// `ARTIST`, `ALBUM` and `COMMENT` (each cut to ``AudioMetadata/maximumStoredTitleBytes``), `DATE` in ISO 8601, and
    /// a marker as `CHAPTERnnn=HH:MM:SS.mmm` with `CHAPTERnnnNAME` (the chapter convention of Vorbis comments, which
    /// FFmpeg reads as chapters), times at `sampleRate`. Keys are matched in any case; other comments stay.
    mutating func replace(with metadata: AudioMetadata, sampleRate: Double) {
        let replaced = Set(AudioMetadata.textFields.map { $0.word.uppercased() } + ["DATE"])
        comments.removeAll { comment in
            let key = String(decoding: comment.prefix { $0 != UInt8(ascii: "=") }, as: UTF8.self).uppercased()
            return replaced.contains(key) || Self.chapter(key) != nil
        }
        let stored = metadata.stored
        for (field, word) in AudioMetadata.textFields {
            if let text = stored[keyPath: field] { comments.append(Array("\(word.uppercased())=\(text)".utf8)) }
        }
        if let date = stored.creationDate {
            comments.append(Array("DATE=\(AudioMetadata.dateText(date))".utf8))
        }
        comments += Self.chapterComments(stored.markers, sampleRate: sampleRate).map { Array("\($0.key)=\($0.value)".utf8) }
    }

    /// The `CHAPTERnnn=HH:MM:SS.mmm` and `CHAPTERnnnNAME` comments that stand for `markers`, times at `sampleRate`.
    static func chapterComments(_ markers: [AudioMarker], sampleRate: Double) -> [(key: String, value: String)] {
        markers.enumerated().flatMap { index, marker in
            let number = String(index + 1)
            let key = "CHAPTER" + String(repeating: "0", count: max(0, 3 - number.count)) + number
            return [(key, chapterTime(marker.time(atSampleRate: sampleRate)))] + (marker.name.map { [(key + "NAME", $0)] } ?? [])
        }
    }

    /// The values of the comments named `key` (in any case), in order.
    func values(_ key: String) -> [String] {
        let wanted = key.uppercased()
        return comments.compactMap { comment in
            guard let equals = comment.firstIndex(of: UInt8(ascii: "=")),
                  String(decoding: comment[..<equals], as: UTF8.self).uppercased() == wanted
            else { return nil }
            return String(decoding: comment[(equals + 1)...], as: UTF8.self)
        }
    }

    /// The markers that the `CHAPTERnnn` comments stand for, at `sampleRate`, in order.
    func markers(sampleRate: Double) -> [AudioMarker] {
        var times: [Int: TimeInterval] = [:]
        var names: [Int: String] = [:]
        for comment in comments {
            guard let equals = comment.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: comment[..<equals], as: UTF8.self).uppercased()
            let value = String(decoding: comment[(equals + 1)...], as: UTF8.self)
            switch Self.chapter(key) {
            case (let number, false)?: times[number] = Self.seconds(fromChapterTime: value)
            case (let number, true)?: names[number] = value
            case nil: break
            }
        }
        return times.sorted { $0.key < $1.key }.map { number, time in
            AudioMarker(time: time, sampleRate: sampleRate, name: AudioMetadata.text(names[number]))
        }.sorted { $0.framePosition < $1.framePosition }
    }

    /// The number of a `CHAPTERnnn` or `CHAPTERnnnNAME` key (upper case), and whether it is the name.
    private static func chapter(_ key: String) -> (number: Int, isName: Bool)? {
        guard key.hasPrefix("CHAPTER") else { return nil }
        var rest = key.dropFirst("CHAPTER".count)
        let isName = rest.hasSuffix("NAME")
        if isName { rest = rest.dropLast("NAME".count) }
        guard !rest.isEmpty, rest.allSatisfy(\.isASCII), let number = Int(rest) else { return nil }
        return (number, isName)
    }

    /// `HH:MM:SS.mmm`.
    static func chapterTime(_ seconds: TimeInterval) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        func digits(_ value: Int, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        return "\(digits(milliseconds / 3_600_000, 2)):\(digits(milliseconds / 60000 % 60, 2)):"
            + "\(digits(milliseconds / 1000 % 60, 2)).\(digits(milliseconds % 1000, 3))"
    }

    /// The seconds of a `HH:MM:SS.mmm` (or `HH:MM:SS`) time, `nil` for anything else.
    static func seconds(fromChapterTime text: String) -> TimeInterval? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let hours = Int(parts[0]), let minutes = Int(parts[1]), let seconds = Double(parts[2]),
              hours >= 0, minutes >= 0, seconds >= 0, seconds.isFinite
        else { return nil }
        return Double(hours * 3600 + minutes * 60) + seconds
    }
}

extension OpusTags {
    /// The comment header of the Ogg Opus file at `origin`: its first stream's second packet, read through libogg;
    /// `nil` when the file has none that reads. Of an address, only the first pages are downloaded for it.
    init?(_ origin: FFmpegInput.Origin) {
        switch origin {
        case .file(let path):
            guard let descriptor = try? FileDescriptor.open(path, .readOnly, options: [.closeOnExec, .nonBlocking]) else { return nil }
            defer { try? descriptor.close() }
            self.init(pages: OggPageReader(descriptor: descriptor))
        case .bytes(let bytes, _):
            self.init(pages: OggPageReader(bytes: bytes))
        case .stream:
            // Read once, by the decoder: its tags are what FFmpeg gives.
            return nil
        }
    }

    private init?(pages reader: OggPageReader) {
        var stream: OggLogicalStream?
        var packets = 0
        // The headers come first: a few pages at most, unless the file is not what it says.
        for _ in 0..<64 {
            guard case .page(let page) = try? reader.next() else { return nil }
            if stream == nil { stream = try? OggLogicalStream(serialNumber: page.serialNumber) }
            guard let stream, page.serialNumber == stream.serialNumber, (try? stream.add(page)) != nil else { continue }
            while let packet = try? stream.nextPacket() {
                packets += 1
                if packets == 2 {
                    self.init(packet: packet.data)
                    return
                }
            }
        }
        return nil
    }
}
