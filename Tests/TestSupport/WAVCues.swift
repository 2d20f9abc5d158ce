import Foundation

/// A WAV file's cue points read from its chunks as the RIFF format lays them out, by no audio library: the `cue `
/// chunk's points, each a sample offset (`dwSampleOffset`).
public enum WAVCues {
    /// The sample offset of each cue point of the WAV file at `path` (RIFF: under 4 GiB), in the file's order; empty
    /// without a `cue ` chunk.
    public static func frames(of path: String) throws -> [Int] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        func word(_ offset: Int) -> Int {
            data.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self))) }
        }
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<(offset + 4)], as: UTF8.self)
            let size = word(offset + 4)
            if id == "cue " {
                return (0..<word(offset + 8)).map { word(offset + 12 + $0 * 24 + 20) }
            }
            offset += 8 + size + size % 2
        }
        return []
    }
}
