import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an audio file to the memos.",
            discussion: """
                Reads WAV, CAF, Opus, FLAC, Ogg Vorbis, MP3 and the other formats libsndfile knows. Without \
                --preset or --format, WAV, CAF and Opus files keep their format (16- and 24-bit PCM bit for \
                bit) and other formats become WAV. Rates Opus cannot take are resampled to 48 kHz.
                """)

        @Argument(help: ArgumentHelp("The audio file to import.", valueName: "file"))
        var file: String

        @Option(parsing: .unconditional, help: ArgumentHelp(
            "The memo's title (default: the file's own title, else its name); one that starts with '-' too, as --title=-x.",
            valueName: "title"))
        var title: String?

        @OptionGroup(title: "Encoding")
        var encoding: EncodingOptions

        @Flag(help: "Print the new memo as one JSON object.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let source = URL(fileURLWithPath: file)
            let settings = encoding.isEmpty ? nil : try encoding.settings(for: AudioFile(forReading: source))
            let memo = try store.importAudio(from: source, title: title, settings: settings)
            if json {
                print(try MemoJSON.line(MemoJSON(memo, in: store)))
            } else {
                print("Imported “\(memo.title.terminalSafe)” as \(memo.id): \(Describe.duration(memo.duration)), "
                    + "\(Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels)), "
                    + Describe.size(memo.sizeBytes))
            }
        }
    }
}
