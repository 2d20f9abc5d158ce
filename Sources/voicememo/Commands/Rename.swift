import ArgumentParser
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a memo a new title.",
            discussion: """
                The title is written into WAV and CAF files too, without touching their sound. Opus files \
                are left as they are (changing their title would mean encoding them again), so for them the \
                new title lives in the memo index only.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Argument(help: ArgumentHelp("The new title: any text.", valueName: "new-title"))
        var newTitle: String

        func validate() throws {
            if newTitle.allSatisfy(\.isWhitespace) {
                throw ValidationError("The new title must not be empty.")
            }
        }

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memo = try store.memo(matching: memo)
            let renamed = try store.rename(memo, to: newTitle)
            print("Renamed \(memo.id) from “\(memo.title.singleLine)” to “\(renamed.title.singleLine)”")
        }
    }
}
