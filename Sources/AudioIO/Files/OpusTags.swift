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

    /// Puts `metadata`'s title and date in place of the ones there (`TITLE`, `DATE`, any case), as
    /// ``AudioFileWriter`` writes them: the title cut to ``AudioMetadata/maximumStoredTitleBytes``, the date in ISO 8601.
    mutating func replace(with metadata: AudioMetadata) {
        comments.removeAll { comment in
            let key = comment.prefix { $0 != UInt8(ascii: "=") }
            return ["TITLE", "DATE"].contains(String(decoding: key, as: UTF8.self).uppercased())
        }
        if let title = metadata.title {
            comments.append(Array("TITLE=\(title.prefix(utf8Bytes: AudioMetadata.maximumStoredTitleBytes))".utf8))
        }
        if let date = metadata.creationDate {
            comments.append(Array("DATE=\(AudioMetadata.dateText(date))".utf8))
        }
    }
}
