import Foundation

/// ffprobe as an independent reader of what we write: it reads RF64 (WAV past 4 GiB) at once, where sox walks the
/// whole file.
public enum FFprobe {
    /// The first audio stream of `path`: its frames (`duration_ts`, samples per channel for PCM), rate and channels.
    public static func audio(of path: String) throws -> (frames: Int, rate: Int, channels: Int) {
        let output = try Tool.output("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries",
                                                 "stream=duration_ts,sample_rate,channels", "-of", "default=nw=1", path])
        var values: [String: Int] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        return (values["duration_ts"] ?? -1, values["sample_rate"] ?? -1, values["channels"] ?? -1)
    }
}
