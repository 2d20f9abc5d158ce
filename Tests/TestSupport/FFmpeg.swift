import Foundation

/// ffmpeg as an independent decoder of what we write.
public enum FFmpeg {
    /// What ffmpeg decodes the first audio stream of `path` to: interleaved 32-bit floats (through a file in `scratch`).
    ///
    /// - Throws: ``ToolFailure`` when ffmpeg fails.
    public static func samples(of path: String, in scratch: ScratchDirectory) throws -> [Float] {
        let raw = scratch.path(UUID().uuidString + ".f32")
        try Tool.output("ffmpeg", ["-v", "error", "-i", path, "-f", "f32le", raw])
        return try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

#if canImport(Testing)
import Testing

/// ffmpeg decodes what sox wrote to sox's own samples, and a file it cannot read is an error.
@Suite struct FFmpegTests {
    @Test func ffmpegDecodesWhatSoxWroteToSoxsOwnSamples() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 2, seconds: 0.25, "sine 440 sine 550")
        try Tool.output("sox", [scratch.path("tone.wav"), "-t", "f32", scratch.path("sox.f32")])
        let soxs = try Data(contentsOf: scratch.file("sox.f32")).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let decoded = try FFmpeg.samples(of: scratch.path("tone.wav"), in: scratch)
        #expect(decoded.count == 24000)
        #expect(decoded == soxs)
        try Data("not audio".utf8).write(to: scratch.file("text.wav"))
        #expect(throws: ToolFailure.self) { try FFmpeg.samples(of: scratch.path("text.wav"), in: scratch) }
    }
}
#endif
