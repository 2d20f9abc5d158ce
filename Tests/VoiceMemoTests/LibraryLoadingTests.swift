import Foundation
import TestSupport
import Testing

/// FFmpeg and libcurl, with the hundred libraries they bring, are loaded when a file or an address first needs them,
/// not by every start of the process (what start-up cost most); and a system without them still records and plays
/// WAV, and says in one line what is missing when asked for an M4A or an address.
@Suite struct LibraryLoadingTests {
    /// The libraries the dynamic loader loaded while `voicememo arguments...` ran, as `LD_DEBUG=files` lists them.
    private func loaded(by arguments: [String], in cli: CLI) throws -> String {
        let result = try cli.run(arguments, with: ["LD_DEBUG": "files"])
        #expect(result.status == 0, "\(arguments): \(result.standardError.suffix(300))")
        return result.standardError
    }

    /// A directory whose `libavformat.so.MAJOR` (the version voicememo was built with) and `libcurl.so.4` are empty
    /// files: put first in `LD_LIBRARY_PATH`, it hides the real ones as a system without them would.
    private func brokenLibraries(in cli: CLI) throws -> String {
        let directory = cli.scratch.path("lib")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let version = try Tool.output("pkg-config", ["--modversion", "libavformat"])
        let major = try #require(version.split(separator: ".").first)
        for name in ["libavformat.so.\(major)", "libcurl.so.4"] {
            #expect(FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: Data()))
        }
        return directory
    }

    @Test func aWAVMemoIsListedAndPlayedWithoutFFmpegOrLibcurl() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Tone")
        for arguments in [["list"], ["play", id, "--device", "null", "--no-meter"]] {
            let libraries = try loaded(by: arguments, in: cli)
            #expect(libraries.contains("libasound.so"), "the listing is there: \(libraries.prefix(300))")
            #expect(!libraries.contains("libavformat.so") && !libraries.contains("libcurl.so"), "\(arguments)")
        }
    }

    @Test func anM4AIsReadThroughFFmpegLoadedForIt() throws {
        let cli = try CLI()
        let m4a = cli.scratch.path("phone.m4a")
        try Tool.output("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", m4a])
        let libraries = try loaded(by: ["import", m4a, "--title", "Phone"], in: cli)
        #expect(libraries.contains("libavformat.so") && libraries.contains("libavcodec.so"))
        #expect(try cli.lines("list").dropFirst().first?.contains("Phone") == true)
    }

    @Test func withoutFFmpegAnM4AIsRefusedInOneLineAndNothingIsStored() throws {
        let cli = try CLI()
        let libraries = try brokenLibraries(in: cli)
        let m4a = cli.scratch.path("phone.m4a")
        try Tool.output("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", m4a])
        let result = try cli.run(["import", m4a], with: ["LD_LIBRARY_PATH": libraries])
        #expect(result.status == 1)
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("voicememo: cannot read '\(m4a)': FFmpeg could not be loaded ("), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("); install its libavformat and libavcodec\n"), "\(result.standardError)")
        #expect(try cli.lines("list", "--json") == ["[]"])
        // The rest works as before: WAV needs neither.
        let wav = cli.scratch.path("tone.wav")
        try Sox.synth(to: wav, rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        #expect(try cli.run(["import", wav, "--title", "Tone"], with: ["LD_LIBRARY_PATH": libraries]).status == 0)
        #expect(try cli.run(["play", "Tone", "--device", "null", "--no-meter"], with: ["LD_LIBRARY_PATH": libraries]).status == 0)
        let version = try cli.run(["--version"], with: ["LD_LIBRARY_PATH": libraries])
        #expect(version.status == 0 && version.standardOutput.contains("FFmpeg could not be loaded"), "\(version.standardOutput)")
    }

    @Test func withoutLibcurlAnAddressIsRefusedInOneLine() throws {
        let cli = try CLI()
        let result = try cli.run(["play", "http://127.0.0.1:9/memo.wav", "--no-meter"], with: ["LD_LIBRARY_PATH": try brokenLibraries(in: cli)])
        #expect(result.status == 1)
        #expect(result.standardError.split(separator: "\n").count == 1, "\(result.standardError)")
        #expect(result.standardError.hasPrefix(
            "voicememo: cannot read 'http://127.0.0.1:9/memo.wav': downloading needs libcurl, which could not be loaded ("),
            "\(result.standardError)")
    }
}
