import SystemPackage

/// Markers appended to a finished WAV file as cue points with labels: a `cue ` chunk (a point per marker, at its frame
/// in the `data` chunk) and a `LIST` chunk of type `adtl` holding a `labl` for each named one, after every chunk
/// libsndfile wrote; the RIFF size (or, in an RF64 file, the one of its `ds64` chunk) then counts them.
///
/// libsndfile reads both back (`SFC_GET_CUE`, the names from the labels), but writes cue points only before the first
/// sample and no labels at all: a recording's markers come while it is written, and are put in when it is finished.
enum WAVCueChunks {
    /// Appends `markers` (at most ``AudioMarker/maximumStoredCount``, frames below 2³²) to the WAV file on `descriptor`,
    /// which libsndfile has finished; does nothing for a file that is not RIFF or RF64 WAVE.
    ///
    /// - Throws: `Errno` when the file cannot be read or written.
    static func append(_ markers: [AudioMarker], to descriptor: FileDescriptor) throws {
        let markers = AudioMarker.stored(markers).filter { $0.framePosition <= Int64(UInt32.max) }
        guard !markers.isEmpty else { return }
        var header = [UInt8](repeating: 0, count: 12)
        guard try read(&header, at: 0, from: descriptor) == 12, String(decoding: header[8..<12], as: UTF8.self) == "WAVE" else { return }
        let magic = String(decoding: header[0..<4], as: UTF8.self)
        guard magic == "RIFF" || magic == "RF64" else { return }
        var end = try descriptor.seek(offset: 0, from: .end)
        // Chunks start on even offsets.
        var chunks: [UInt8] = end % 2 == 1 ? [0] : []
        var points = number(markers.count, 4)
        var labels = Array("adtl".utf8)
        for (index, marker) in markers.enumerated() {
            let frame = number(Int(marker.framePosition), 4)
            // Its identifier, its position, the chunk it is in, that chunk's and its block's start, its frame there.
            points += number(index + 1, 4) + frame + Array("data".utf8) + number(0, 8) + frame
            if let name = marker.name { labels += chunk("labl", number(index + 1, 4) + Array(name.utf8) + [0]) }
        }
        chunks += chunk("cue ", points)
        if labels.count > 4 { chunks += chunk("LIST", labels) }
        end += Int64(try descriptor.writeAll(toAbsoluteOffset: end, chunks))
        if magic == "RIFF" {
            _ = try descriptor.writeAll(toAbsoluteOffset: 4, number(Int(end - 8), 4))
        } else {
            // RF64 keeps the RIFF size in its `ds64` chunk, the first after the header: 8 bytes after its own header.
            var ds64 = [UInt8](repeating: 0, count: 4)
            guard try read(&ds64, at: 12, from: descriptor) == 4, String(decoding: ds64, as: UTF8.self) == "ds64" else { return }
            _ = try descriptor.writeAll(toAbsoluteOffset: 20, number(Int(end - 8), 8))
        }
    }

    /// A chunk: its four-letter name, its size, `payload` and a pad byte after an odd size.
    private static func chunk(_ name: String, _ payload: [UInt8]) -> [UInt8] {
        Array(name.utf8) + number(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    /// `value` in `size` little-endian bytes.
    private static func number(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func read(_ bytes: inout [UInt8], at offset: Int64, from descriptor: FileDescriptor) throws -> Int {
        try bytes.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: offset, into: $0) }
    }
}
