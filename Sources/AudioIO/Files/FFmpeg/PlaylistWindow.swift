/// The segments an HLS media playlist lists, as the demuxer read it: the first one's media sequence number and each
/// one's duration. A live playlist's window, which moves as the server rewrites it.
///
/// libavformat's HLS demuxer parses the playlist but keeps its segments to itself (`struct playlist` in `hls.c`: no
/// option, metadata or call gives them), and the packets' timestamps tell only what has been read, not what the
/// playlist lists ahead. So the same bytes the demuxer reads are read here for the minimum the window needs, three
/// tags (`#EXT-X-MEDIA-SEQUENCE`, `#EXTINF`, `#EXT-X-ENDLIST`); everything else (addresses, keys, variants, maps) stays
/// the demuxer's.
struct PlaylistWindow: Equatable {
    /// The media sequence number of the first segment listed.
    let firstSequence: Int64
    /// Each segment's duration in seconds, in order.
    let durations: [Double]
    /// Whether the playlist says it ends (`#EXT-X-ENDLIST`): it lists its last segment.
    let ends: Bool

    /// The window `text` lists; nil when it lists no segment (a multivariant playlist, whose variants list them).
    init?(playlist text: String) {
        var first: Int64 = 0
        var durations: [Double] = []
        var ends = false
        for line in text.split(whereSeparator: \.isNewline) {
            if let value = Self.value(of: "#EXT-X-MEDIA-SEQUENCE:", in: line) {
                first = Int64(value.prefix { $0.isNumber }) ?? 0
            } else if let value = Self.value(of: "#EXTINF:", in: line) {
                durations.append(Double(value.prefix { $0 != "," }) ?? 0)
            } else if line.hasPrefix("#EXT-X-ENDLIST") {
                ends = true
            }
        }
        guard !durations.isEmpty else { return nil }
        firstSequence = first
        self.durations = durations
        self.ends = ends
    }

    /// The window the playlist `bytes` list (a playlist is a few kilobytes: the first megabyte is read).
    init?(bytes: any RandomAccessBytes) {
        var data = [UInt8](repeating: 0, count: Int(min(max(bytes.byteCount, 0), 1 << 20)))
        let count = data.withUnsafeMutableBytes { BytePosition(bytes).read(into: $0) }
        self.init(playlist: String(decoding: data[..<count], as: UTF8.self))
    }

    private static func value(of tag: String, in line: Substring) -> Substring? {
        line.hasPrefix(tag) ? line.dropFirst(tag.count) : nil
    }

    /// The media sequence number after the last segment listed.
    var endSequence: Int64 { firstSequence + Int64(durations.count) }

    /// The segment where the demuxer starts playing a live playlist (its `live_start_index`, -3): three before the end.
    var liveEdgeIndex: Int { max(durations.count - 3, 0) }
}
