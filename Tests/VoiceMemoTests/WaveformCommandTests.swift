import Foundation
import TestSupport
import Testing

/// `voicememo waveform`: the memo's waveform for web players, in audiowaveform's formats, and drawn.
@Suite struct WaveformCommandTests {
    /// A memo of 2 s of a tone that swells, and the file it was imported from.
    func memo(_ cli: CLI, channels: Int = 1) throws -> String {
        let source = cli.scratch.path("swell.wav")
        try Sox.synth(to: source, rate: 48000, channels: channels, seconds: 2, Array(repeating: "sine 300", count: channels).joined(separator: " ") + " fade 2 0 0")
        #expect(try cli.run("import", source, "--title", "Swell").status == 0)
        return source
    }

    /// The little-endian 32-bit field at `offset` of `bytes`.
    func field(_ bytes: Data, _ offset: Int) -> Int32 {
        bytes.subdata(in: offset..<(offset + 4)).withUnsafeBytes { Int32(littleEndian: $0.loadUnaligned(as: Int32.self)) }
    }

    @Test func datIsAudiowaveformsFormatWithTheSamplesOfTheMemo() throws {
        let cli = try CLI()
        let source = try memo(cli)
        let target = cli.scratch.path("swell.dat")
        let result = try cli.run("waveform", "Swell", "--dat", target)
        #expect(result.status == 0 && result.standardOutput.contains("375 points of 256 frames"), "\(result)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: target))
        // doc/DataFormat.md: version, flags, sample rate, samples per pixel, length; data from byte 20.
        #expect(field(bytes, 0) == 1 && field(bytes, 4) == 0 && field(bytes, 8) == 48000 && field(bytes, 12) == 256 && field(bytes, 16) == 375)
        #expect(bytes.count == 20 + 375 * 4)
        let samples = try Sox.samples(of: source).map { Int16($0 >> 16) }
        let points = bytes.dropFirst(20).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        for pixel in [0, 100, 374] {
            let stretch = samples[(pixel * 256)..<min(pixel * 256 + 256, samples.count)]
            #expect(points[2 * pixel] == stretch.min() && points[2 * pixel + 1] == stretch.max(), "point \(pixel)")
        }
        // Never over a file without --force; standard output only when it is not a terminal.
        let again = try cli.run("waveform", "Swell", "--dat", target, "--bits", "8")
        #expect(again.status == 1 && again.standardError.contains("exists already"))
        #expect(try cli.run("waveform", "Swell", "--dat", target, "--bits", "8", "--force").status == 0)
        #expect(field(try Data(contentsOf: URL(fileURLWithPath: target)), 4) == 1, "8-bit now")
        let piped = try Tool.run("sh", ["-c", "\"$0\" waveform Swell --dat - --bits 8 | cmp - \"$1\"", CLI.binary, target], environment: cli.environment)
        #expect(piped.status == 0, "standard output holds the same bytes: \(piped)")
    }

    @Test func jsonIsAudiowaveformsJSONWithOneOutlinePerChannel() throws {
        let cli = try CLI()
        _ = try memo(cli, channels: 2)
        let json = try cli.json(cli.run("waveform", "Swell", "--json", "--samples-per-pixel", "512"))
        #expect(json["version"] as? Int == 2 && json["channels"] as? Int == 2 && json["sample_rate"] as? Int == 48000)
        #expect(json["samples_per_pixel"] as? Int == 512 && json["bits"] as? Int == 16 && json["length"] as? Int == 188)
        let data = try #require(json["data"] as? [Int])
        #expect(data.count == 188 * 4)
        // The swell: the last points are louder than the first.
        #expect(data[1] < data[data.count - 3] && data[3] < data[data.count - 1])
    }

    @Test func wrongOptionsAreUsageErrors() throws {
        let cli = try CLI()
        _ = try memo(cli)
        for arguments in [["--bits", "12"], ["--samples-per-pixel", "300"], ["--json", "--dat", "x.dat"]] {
            let result = try cli.run(["waveform", "Swell"] + arguments, with: [:])
            #expect(result.status == 2 && result.standardError.hasPrefix("Error: --"), "\(arguments): \(result.standardError)")
        }
        let recorded = try cli.run("waveform", "nothing-here")
        #expect(recorded.status == 1 && recorded.standardError.hasPrefix("voicememo: no memo matches"))
    }
}
