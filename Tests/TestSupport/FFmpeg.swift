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
