import Foundation

/// ffprobe as an independent reader of what we write: it reads RF64 (WAV past 4 GiB) at once, where sox walks the
/// whole file.
public enum FFprobe {
    /// The first audio stream of `path`: its frames (`duration_ts`, samples per channel for PCM), rate and channels.
    ///
    /// - Throws: ``ToolFailure`` when ffprobe fails or does not tell all three.
    public static func audio(of path: String) throws -> (frames: Int, rate: Int, channels: Int) {
        let arguments = ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration_ts,sample_rate,channels",
                         "-of", "default=nw=1", path]
        let result = try Tool.run("ffprobe", arguments)
        var values: [String: Int] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = Int(parts[1]) }
        }
        guard result.status == 0, let frames = values["duration_ts"], let rate = values["sample_rate"], let channels = values["channels"] else {
            throw ToolFailure(command: "ffprobe \(path)", result: result)
        }
        return (frames, rate, channels)
    }

    /// The container's name (`wav`, `ogg`, `flac`, `mp3`, ...), the first audio stream's codec (`pcm_s16le`, `opus`,
    /// `vorbis`, `mp3`, ...), and the tags of the file and of that stream together, their keys in lower case.
    ///
    /// - Throws: ``ToolFailure`` when ffprobe fails.
    public static func tags(of path: String) throws -> (container: String, codec: String, tags: [String: String]) {
        let arguments = ["-v", "error", "-select_streams", "a:0", "-show_entries", "format=format_name:format_tags:stream=codec_name:stream_tags",
                         "-of", "default=nw=1", path]
        let result = try Tool.run("ffprobe", arguments)
        var values: [String: String] = [:]
        var tags: [String: String] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            if parts[0].hasPrefix("TAG:") { tags[parts[0].dropFirst(4).lowercased()] = parts[1] } else { values[parts[0]] = parts[1] }
        }
        guard result.status == 0, let container = values["format_name"], let codec = values["codec_name"] else {
            throw ToolFailure(command: "ffprobe \(path)", result: result)
        }
        return (container, codec, tags)
    }

    /// The first audio stream's codec (`aac`), profile (`LC`) and length in frames as its container states it
    /// (`duration_ts`: an MP4's edit list applied).
    ///
    /// - Throws: ``ToolFailure`` when ffprobe fails or does not tell them.
    public static func codec(of path: String) throws -> (codec: String, profile: String, frames: Int) {
        let result = try Tool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,profile,duration_ts",
                                              "-of", "default=nw=1", path])
        var values: [String: String] = [:]
        for line in result.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        guard result.status == 0, let codec = values["codec_name"], let profile = values["profile"],
              let frames = values["duration_ts"].flatMap({ Int($0) })
        else { throw ToolFailure(command: "ffprobe \(path)", result: result) }
        return (codec, profile, frames)
    }

    /// The file's chapters as ffprobe reads them (MP4 chapters, the `CHAPTERnnn` comments of Ogg and FLAC files): each
    /// one's start in seconds and its title.
    ///
    /// - Throws: ``ToolFailure`` when ffprobe fails.
    public static func chapters(of path: String) throws -> [(start: Double, title: String?)] {
        let result = try Tool.run("ffprobe", ["-v", "error", "-show_chapters", "-of", "json", path])
        guard result.status == 0,
              let object = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
              let chapters = object["chapters"] as? [[String: Any]]
        else { throw ToolFailure(command: "ffprobe -show_chapters \(path)", result: result) }
        return chapters.map { chapter in
            (Double(chapter["start_time"] as? String ?? "") ?? .nan, (chapter["tags"] as? [String: String])?["title"])
        }
    }

    /// A SHA-256 of each audio packet of the first audio stream of `path`, in order, as FFmpeg's demuxer reads them (for
    /// Ogg Opus, the audio packets without the two headers): equal hashes, equal packets, byte for byte.
    ///
    /// - Throws: ``ToolFailure`` when ffprobe fails.
    public static func packetHashes(of path: String) throws -> [String] {
        let arguments = ["-v", "error", "-select_streams", "a:0", "-show_data_hash", "SHA256", "-show_entries", "packet=data_hash",
                         "-of", "csv=p=0", path]
        let result = try Tool.run("ffprobe", arguments)
        guard result.status == 0 else { throw ToolFailure(command: "ffprobe \(path)", result: result) }
        // Side data (Opus' skip samples) may put a separator before a hash.
        return result.standardOutput.split(separator: "\n").compactMap { line in
            line.split(separator: ",").first { $0.hasPrefix("SHA256:") }.map(String.init)
        }
    }
}

#if canImport(Testing)
import Testing

/// ffprobe tells the frames, rate and channels sox wrote, and a file it cannot read is an error, not -1.
@Suite struct FFprobeTests {
    @Test func ffprobeReadsWhatSoxWrote() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 44100, channels: 2, seconds: 0.5, "sine 440")
        #expect(try FFprobe.audio(of: scratch.path("tone.wav")) == (22050, 44100, 2))
        try Data("not audio".utf8).write(to: scratch.file("text.wav"))
        #expect(throws: ToolFailure.self) { try FFprobe.audio(of: scratch.path("text.wav")) }
    }
}
#endif
