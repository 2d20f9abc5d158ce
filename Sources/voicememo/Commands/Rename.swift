import ArgumentParser
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Give a memo a new title.",
            discussion: """
                The title is written into the memo's file too, without touching its sound: WAV and CAF keep every \
                sample, Opus every audio packet (only its comment header is new). A title longer than a file holds \
                (1 KB) is kept whole in the memo index and in a small file beside the memo. A title that starts with \
                '-' goes after '--': voicememo rename ID -- -draft.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Argument(help: ArgumentHelp("The new title: any text; one that starts with '-' goes after '--' (rename ID -- -x).", valueName: "new-title"))
        var newTitle: String

        func validate() throws {
            if newTitle.allSatisfy(\.isWhitespace) {
                throw ValidationError("The new title must not be empty.")
            }
        }

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let (before, after) = try store.rename(matching: memo, to: newTitle)
            print("Renamed \(before.id) from “\(before.title.terminalSafe)” to “\(after.title.terminalSafe)”")
        }
    }
}
