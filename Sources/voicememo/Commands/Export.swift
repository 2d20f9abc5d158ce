import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a memo's audio to a file.",
            discussion: """
                The format comes from --format, else OUT_PATH's extension (.wav, .caf, .opus), else the \
                memo's own. When OUT_PATH is a directory, the file is named after the memo's title. An \
                existing file at OUT_PATH is replaced in one step, never left half-written.
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

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memo = try store.memo(matching: memo)
            var destination = URL(fileURLWithPath: outPath)
            var isDirectory = false
            if FileManager.default.fileExists(atPath: outPath, isDirectory: &isDirectory), isDirectory {
                let format = format?.format ?? memo.format
                destination = destination.appendingPathComponent(Self.fileName(for: memo.title) + "." + format.rawValue)
            }
            let summary = try store.export(memo, to: destination, format: format?.format, sampleRate: sampleRate, bitRate: bitrate)
            let written = try AudioFile(forReading: destination)
            print("Exported “\(memo.title)” to \(destination.path): \(Describe.duration(summary.duration)), "
                + "\(Describe.format(written.format, sampleRate: summary.sampleRate, channels: summary.channelCount)), "
                + Describe.size(summary.byteCount))
        }

        /// A file name from a title: path separators and control characters replaced, never empty or hidden.
        static func fileName(for title: String) -> String {
            let replaced = title.map { $0 == "/" || $0.isNewline || $0.asciiValue.map { $0 < 32 } == true ? "_" : $0 }
            let cleaned = replaced.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
            let name = cleaned.drop { $0 == "." }
            return name.isEmpty ? "memo" : String(name.prefix(200))
        }
    }
}
