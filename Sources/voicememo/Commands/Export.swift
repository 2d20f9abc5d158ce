import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a memo's audio to a file.",
            discussion: """
                The format comes from --format, else OUT_PATH's extension (.wav, .caf, .opus). When OUT_PATH \
                is a directory, the file is named after the memo's title, in the memo's own format unless \
                --format says otherwise. The file appears whole or not at all; an existing one is kept unless \
                --force, and nothing is written inside the memo store. --volume, --pan and --rate write the memo as \
                'play' would sound it: e.g. --rate 1.5 for a lecture sped up with its pitch kept.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Argument(help: ArgumentHelp("Where to write the audio file, or a directory to write it into.", valueName: "out-path"))
        var outPath: String

        @Option(help: "The file format.")
        var format: FileFormatArgument?

        @Option(help: ArgumentHelp("Frames per second (Opus: 8000, 12000, 16000, 24000 or 48000).", valueName: "hz"))
        var sampleRate: Double?

        @Option(help: ArgumentHelp("Opus bit rate in bits per second, e.g. 64000.", valueName: "bps"))
        var bitrate: Int?

        @OptionGroup var sound: SoundOptions

        @Flag(help: "Replace a file that exists at OUT_PATH.")
        var force = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memo = try store.memo(matching: memo)
            var destination = URL(fileURLWithPath: outPath)
            var isDirectory = false
            var chosenFormat = format?.format
            if FileManager.default.fileExists(atPath: outPath, isDirectory: &isDirectory), isDirectory {
                let format = chosenFormat ?? memo.format
                chosenFormat = format
                destination = destination.appendingPathComponent(Self.fileName(for: memo.title, extension: format.fileExtension))
            }
            let summary: AudioFileSummary
            do {
                summary = try store.export(
                    memo, to: destination, format: chosenFormat, sampleRate: sampleRate, bitRate: bitrate,
                    volume: sound.volume, pan: sound.pan, rate: sound.rate, replacingExisting: force)
            } catch let error as AudioFileError where error.reason == .exists {
                throw ExportTargetExists(path: error.path)
            }
            let written = try AudioFile(forReading: destination)
            print("Exported “\(memo.title.terminalSafe)” to \(destination.path.terminalSafe): \(Describe.duration(summary.duration)), "
                + "\(Describe.format(written.format, sampleRate: summary.sampleRate, channels: summary.channelCount)), "
                + Describe.size(summary.byteCount))
        }

        /// A file name from a title and an extension: path separators and control characters replaced, never empty
        /// or hidden, and within the 255 bytes a name may have, cut on a character boundary.
        static func fileName(for title: String, extension: String) -> String {
            let replaced = title.map { $0 == "/" || $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? "_" : $0 }
            let cleaned = replaced.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
            let name = String(cleaned.drop { $0 == "." })
            return (name.isEmpty ? "memo" : String(name.prefix(utf8Bytes: 255 - 1 - `extension`.utf8.count))) + "." + `extension`
        }
    }

    /// An export target that exists, and no --force.
    struct ExportTargetExists: Error, CustomStringConvertible {
        let path: String
        var description: String { "'\(path)' exists already; pass --force to replace it, or pick another name" }
    }
}
