import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Enhance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enhance",
            abstract: "Make a new memo of a memo with its speech cleaned up; the original stays.",
            discussion: """
                Noise is suppressed and the level of speech brought to about -19 dBFS, as 'record --enhance' does \
                live, by webrtc-audio-processing: steady noise (a fan, traffic, hiss) goes down most, other voices \
                hardly. The new memo has the same format, rate and channels (mono or stereo) and the original's date \
                (so that it is listed beside it), artist, album, comment and markers.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Option(parsing: .unconditional, help: ArgumentHelp(
            "The new memo's title (default: the original's and ' (enhanced)').", valueName: "title"))
        var title: String?

        @Flag(help: "Print the new memo as one JSON object.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let original = try store.memo(matching: memo)
            let enhanced = try store.enhance(original, title: title)
            if json {
                print(try MemoJSON.line(MemoJSON(enhanced, in: store)))
            } else {
                let summary = SummaryLine(
                    head: "Enhanced “\(original.title.terminalSafe)” as \(enhanced.id) “", title: enhanced.title.terminalSafe,
                    middle: "”: ",
                    fields: [
                        Describe.duration(enhanced.duration),
                        "average \(Describe.levels(enhanced.averageDBFS)) (was \(Describe.levels(original.averageDBFS)))",
                    ])
                for line in summary.lines(fittingColumns: TerminalDisplay.outputColumns) { print(line) }
            }
        }
    }
}
