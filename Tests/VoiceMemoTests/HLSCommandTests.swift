import Foundation
import TestSupport
import Testing

/// `voicememo play` of an HLS playlist plays its segments as one; `import` of one says to play it.
@Suite(.timeLimit(.minutes(1))) struct HLSCommandTests {
    @Test func playJoinsAPlaylistsSegmentsAndImportSaysToPlayIt() throws {
        let cli = try CLI()
        let server = try HTTPServer()
        let segments = cli.scratch.file("hls")
        try FileManager.default.createDirectory(at: segments, withIntermediateDirectories: true)
        try Sox.synth(to: cli.scratch.path("talk.wav"), rate: 48000, channels: 2, seconds: 6, "sine 440")
        try Tool.output("ffmpeg", [
            "-v", "error", "-i", cli.scratch.path("talk.wav"), "-c:a", "aac", "-f", "hls", "-hls_time", "2",
            "-hls_playlist_type", "vod", "-hls_segment_filename", segments.path + "/talk%03d.ts", segments.path + "/talk.m3u8",
        ])
        for name in try FileManager.default.contentsOfDirectory(atPath: segments.path) {
            try server.put(segments.appendingPathComponent(name), as: name)
        }
        let output = cli.scratch.path("out.raw")
        let played = try cli.run("play", server.url("talk.m3u8").absoluteString, "--device", "file:'\(output)',raw")
        #expect(played.status == 0, "\(played.standardError)")
        #expect(played.standardOutput.hasPrefix("Playing “talk.m3u8” (0:06.0) on "), "\(played.standardOutput)")
        let frames = try Data(contentsOf: URL(fileURLWithPath: output)).count / 8
        let expected = try FFmpeg.samples(of: segments.path + "/talk.m3u8", in: cli.scratch).count / 2
        #expect(frames >= expected && frames < expected + 48000, "\(frames) frames played of \(expected)")

        let imported = try cli.run("import", server.url("talk.m3u8").absoluteString)
        #expect(imported.status == 1)
        #expect(imported.standardError == "voicememo: cannot import '\(server.url("talk.m3u8").absoluteString)': it is an HLS playlist of segments, not one file; play it instead\n")
        let listed = try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [Any]
        #expect(listed?.isEmpty == true, "nothing imported")

        // The cache lists what was played: the playlist in one row, its segments in it, and not the address that failed.
        #expect(try cli.run("play", server.url("missing.wav").absoluteString, "--device", "null").status == 1)
        let files = try FileManager.default.contentsOfDirectory(atPath: segments.path)
        let bytes = try files.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: segments.appendingPathComponent($1).path)[.size] as? Int ?? 0) }
        let cache = try cli.json(try cli.run("cache", "--json"))
        let addresses = try #require(cache["addresses"] as? [[String: Any]])
        #expect(addresses.count == 1, "\(addresses)")
        #expect(addresses.first?["url"] as? String == server.url("talk.m3u8").absoluteString)
        // Every segment that played (the last, of 21 ms, may not be asked for) and the playlist, as the server has them.
        let parts = try #require(addresses.first?["parts"] as? Int), downloaded = try #require(addresses.first?["downloaded"] as? Int)
        #expect((files.count - 2...files.count - 1).contains(parts) && downloaded <= bytes && downloaded >= bytes - 752, "\(addresses)")
        let table = try cli.lines("cache")
        #expect(table.count == 3 && table[1].contains("talk.m3u8") && table[1].contains(" in \(parts + 1) files"), "\(table)")
        #expect(table.last?.hasPrefix("1 address, ") == true, "\(table)")
    }
}
