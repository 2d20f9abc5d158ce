import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge
import SystemPackage

extension VoiceMemo {
    struct WaveformCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "waveform",
            abstract: "Show a memo's waveform, or write it for web players (audiowaveform's .dat and JSON).",
            discussion: """
                A memo's waveform is measured once, when its recording ends or it is imported, and kept beside it \
                (measured again from its audio when missing). Each point is the lowest and highest sample of 256 \
                frames per channel (of 512, 1024… in a memo longer than about 6 minutes at 48 kHz, so that it keeps \
                within 65536 points), on a 16-bit scale, as audiowaveform computes them; --samples-per-pixel asks \
                for another width, measured from the audio when it is finer than the kept one. --dat writes audiowaveform's \
                binary format (version 1 for a mono memo, 2 with one outline per channel for more, as \
                'audiowaveform --split-channels'), which peaks.js draws; --json prints its JSON format (version 2). \
                Without either, the waveform is drawn over the terminal's width.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Flag(help: "Print the waveform as audiowaveform's JSON.")
        var json = false

        @Option(help: ArgumentHelp(
            "Write the waveform in audiowaveform's binary .dat format to this file ('-' for standard output).", valueName: "file"))
        var dat: String?

        @Option(help: ArgumentHelp("Resolution of the values: 8 or 16 bits.", valueName: "bits"))
        var bits = 16

        @Option(help: ArgumentHelp(
            "Frames per point: 256 or a multiple of it, e.g. 512 for peaks.js's first zoom level (default: the kept waveform's).",
            valueName: "n"))
        var samplesPerPixel: Int?

        @Flag(help: "Replace a file that exists at the --dat path.")
        var force = false

        @Flag(help: "Draw with ASCII characters (.:|) instead of Unicode blocks.")
        var ascii = false

        func validate() throws {
            guard !(json && dat != nil) else { throw ValidationError("--json and --dat write different things; give one of them.") }
            guard Waveform.Resolution(rawValue: bits) != nil else { throw ValidationError("--bits must be 8 or 16, not \(bits).") }
            let standard = Waveform.standardSamplesPerPixel
            if let samplesPerPixel, !(samplesPerPixel >= standard && samplesPerPixel % standard == 0 && samplesPerPixel <= Int(Int32.max)) {
                throw ValidationError("--samples-per-pixel must be \(standard) or a multiple of it (up to \(Int32.max)), not \(samplesPerPixel).")
            }
        }

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memo = try store.memo(matching: memo)
            let resolution = Waveform.Resolution(rawValue: bits) ?? .sixteen
            if dat == "-" {
                if Terminal(.standardOutput) != nil {
                    throw WaveformOutputFailure(reason: "standard output is a terminal; redirect it to a file or a pipe ('> memo.dat')")
                }
                let bytes = try store.waveform(of: memo, samplesPerPixel: samplesPerPixel).datRepresentation(bits: resolution)
                do {
                    _ = try FileDescriptor.standardOutput.writeAll(bytes)
                } catch Errno.brokenPipe {
                    // The reader has gone: it has what it wanted.
                }
            } else if let dat {
                do {
                    let written = try store.exportWaveform(
                        memo, to: URL(fileURLWithPath: dat), bits: resolution, samplesPerPixel: samplesPerPixel, replacingExisting: force)
                    print("Wrote the waveform of “\(memo.title.terminalSafe)” to \(dat.terminalSafe): \(written.length) points "
                        + "of \(written.samplesPerPixel) frames, \(written.channelCount == 1 ? "mono" : "\(written.channelCount) channels"), "
                        + "\(bits)-bit")
                } catch let error as AudioFileError where error.reason == .exists {
                    throw ExportTargetExists(path: error.path)
                }
            } else if json {
                print(try MemoJSON.line(WaveformJSON(store.waveform(of: memo, samplesPerPixel: samplesPerPixel), bits: resolution)))
            } else {
                // The last column free, as the live display leaves it.
                let columns = max((TerminalDisplay.outputColumns ?? 80) - 1, 1)
                for row in WaveformText(try store.waveform(of: memo), columns: columns).rows(2, ascii: ascii) { print(row) }
                print(WaveformText.timeScale(duration: memo.duration, columns: columns))
            }
        }
    }

    /// Standard output could not take the waveform.
    struct WaveformOutputFailure: Error, CustomStringConvertible {
        let reason: String
        var description: String { "cannot write the waveform to standard output: \(reason)" }
    }
}

/// A waveform as audiowaveform's JSON format has it (version 2): `{"version": 2, "channels": …, "sample_rate": …,
/// "samples_per_pixel": …, "bits": …, "length": …, "data": [min, max, …]}`, 8-bit values divided by 256 as
/// audiowaveform divides them.
struct WaveformJSON: Encodable {
    let version = 2
    let channels: Int
    let sampleRate: Int
    let samplesPerPixel: Int
    let bits: Int
    let length: Int
    let data: [Int]

    init(_ waveform: Waveform, bits: Waveform.Resolution) {
        channels = waveform.channelCount
        sampleRate = waveform.sampleRate
        samplesPerPixel = waveform.samplesPerPixel
        self.bits = bits.rawValue
        length = waveform.length
        data = waveform.data.map { bits == .eight ? Int($0) / 256 : Int($0) }
    }

    private enum CodingKeys: String, CodingKey {
        case version, channels, sampleRate = "sample_rate", samplesPerPixel = "samples_per_pixel", bits, length, data
    }
}
