import Foundation
import Testing

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

/// The reader checked on a WAV file laid out byte by byte as the RIFF format says: its cue points are found past a chunk
/// of odd size (padded to an even one), and a file without a `cue ` chunk has none.
@Suite struct WAVCuesTests {
    /// `value` as a little-endian 32-bit word.
    private func word(_ value: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt32(value).littleEndian) { Array($0) }
    }

    /// A RIFF WAVE file of `chunks` (id, body), each padded to an even size.
    private func wave(_ chunks: [(id: String, body: [UInt8])]) -> Data {
        var body = Array("WAVE".utf8)
        for chunk in chunks {
            body += Array(chunk.id.utf8)
            body += word(chunk.body.count)
            body += chunk.body
            if chunk.body.count % 2 == 1 { body.append(0) }
        }
        return Data(Array("RIFF".utf8) + word(body.count) + body)
    }

    /// A `cue ` chunk's body with a point at each of `offsets` (24 bytes a point, the sample offset last).
    private func cues(_ offsets: [Int]) -> [UInt8] {
        var body = word(offsets.count)
        for (index, offset) in offsets.enumerated() {
            body += word(index + 1)
            body += word(0)
            body += Array("data".utf8)
            body += word(0)
            body += word(0)
            body += word(offset)
        }
        return body
    }

    @Test func cuePointsPastAnOddSizedChunkAreReadInTheFilesOrder() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cues-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: file) }
        let format: [UInt8] = [1, 0, 1, 0, 0x80, 0xbb, 0, 0, 0, 0x77, 1, 0, 2, 0, 16, 0]
        try wave([("fmt ", format), ("LIST", [1, 2, 3]), ("cue ", cues([48000, 7, 123_456])), ("data", [0, 0, 0, 0])])
            .write(to: file)
        #expect(try WAVCues.frames(of: file.path) == [48000, 7, 123_456])
        try wave([("fmt ", format), ("data", [0, 0])]).write(to: file)
        #expect(try WAVCues.frames(of: file.path) == [])
    }
}
