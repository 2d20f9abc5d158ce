import AudioIO
import Foundation
import TestSupport
import Testing

/// Files damaged in every way `Mutation` knows, opened and read to the end by the library and imported by
/// the CLI: each gives its audio or one clear error, never a crash, a hang or a runaway read, and what
/// the store keeps is whole.
@Suite(.timeLimit(.minutes(10)), .tags(.torture)) struct DamagedFileTorture {
    /// Our own formats, and what phones make (read through FFmpeg): AAC in M4A and ADTS, WMA.
    static let formats = ["wav", "caf", "opus", "m4a", "aac", "wma"]

    /// Two seconds of speech-like noise in `format`, as written by our own writer, or by ffmpeg for a phone's format.
    func healthyFile(_ format: String, in scratch: ScratchDirectory) throws -> [UInt8] {
        let source = scratch.path("healthy-source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 2, "pinknoise")
        let converted = scratch.path("healthy.\(format)")
        if AudioFileFormat(rawValue: format)?.isWritable != true {
            try Tool.output("ffmpeg", ["-v", "error", "-i", source, converted])
            return Array(try Data(contentsOf: URL(fileURLWithPath: converted)))
        }
        _ = try AudioFileConverter.convert(
            contentsOf: URL(fileURLWithPath: source), to: URL(fileURLWithPath: converted),
            settings: AudioSettings(format: AudioFileFormat(rawValue: format)!))
        return Array(try Data(contentsOf: URL(fileURLWithPath: converted)))
    }

    /// Opens and reads the whole file; returns the frames read, or the error's text.
    func readToTheEnd(_ url: URL) -> Result<Int, AudioFileError> {
        do throws(AudioFileError) {
            let file = try AudioFile(forReading: url)
            var frames = 0
            while true {
                let chunk = try file.read(frameCount: 65536)
                if chunk.isEmpty { return .success(frames) }
                frames += chunk.count / file.channelCount
                // A damaged header may claim anything; what is read must stay near what two seconds hold.
                if frames > 48000 * 60 { return .success(frames) }
            }
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: formats)
    func theLibraryReadsOrRefusesEveryDamagedFile(format: String) throws {
        let scratch = try ScratchDirectory()
        let healthy = try healthyFile(format, in: scratch)
        var random = SeededGenerator(seed: 0x5EED_0000 + UInt64(format.utf8.reduce(0) { $0 &* 31 &+ Int($1) }))
        let cases = Torture.scale(quick: 150, long: 4000)
        var (read, refused) = (0, 0)
        for number in 0..<cases {
            let mutation = Mutation.allCases.randomElement(using: &random)!
            var bytes = mutation.apply(to: healthy, using: &random)
            if Bool.random(using: &random) { bytes = Mutation.allCases.randomElement(using: &random)!.apply(to: bytes, using: &random) }
            let url = scratch.file("case-\(number).\(format)")
            try Data(bytes).write(to: url)
            switch readToTheEnd(url) {
            case .success(let frames):
                #expect(frames <= 48000 * 60, "case \(number) (\(mutation)) read \(frames) frames from \(bytes.count) bytes")
                read += 1
            case .failure(let error):
                let text = "\(error)"
                #expect(!text.isEmpty && !text.contains("\n"), "case \(number): \(text)")
                refused += 1
            }
            try FileManager.default.removeItem(at: url)
        }
        // Damage of every kind was tried: some of it leaves a readable file, some makes one that is refused.
        #expect(read > 0 && refused > 0, "\(read) read, \(refused) refused of \(cases)")
    }

    @Test(arguments: formats)
    func importingDamagedFilesKeepsTheStoreWhole(format: String) throws {
        let cli = try CLI()
        let healthy = try healthyFile(format, in: cli.scratch)
        var random = SeededGenerator(seed: 0xC11_0000 + UInt64(format.count))
        var imported: [String] = []
        for number in 0..<Torture.scale(quick: 8, long: 150) {
            let bytes = Mutation.allCases.randomElement(using: &random)!.apply(to: healthy, using: &random)
            let path = cli.scratch.path("damaged-\(number).\(format)")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let result = try cli.run("import", path, "--title", "Damaged \(number)", "--json")
            switch result.status {
            case 0:
                imported.append(try #require(try cli.json(result)["id"] as? String))
            case 1:
                let lines = result.standardError.split(separator: "\n")
                #expect(lines.count == 1 && lines[0].hasPrefix("voicememo: "), "case \(number): \(result.standardError)")
            default:
                Issue.record("case \(number): import ended with status \(result.status): \(result.standardError)")
            }
        }
        let listed = try JSONSerialization.jsonObject(with: Data(try cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
        #expect(Set(listed?.compactMap { $0["id"] as? String } ?? []) == Set(imported))
        // What was accepted plays to the end.
        for id in imported.prefix(3) {
            let played = try cli.run(["play", id, "--device", "null", "--no-meter"], with: [:])
            #expect(played.status == 0, "\(played.standardError)")
        }
    }
}
