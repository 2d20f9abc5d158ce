import ArgumentParser
import MemoStore

extension VoiceMemo {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete memos: their audio files and their entries.",
            discussion: """
                Every memo named is found before anything is deleted: if one cannot be found, or is being \
                recorded, nothing is deleted. There is no undo.
                """)

        @Argument(help: MemoArgument.helpForSeveral, completion: MemoArgument.completion)
        var memos: [String]

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memos = try store.memos(matching: memos)
            try store.delete(memos)
            for memo in memos {
                print("Deleted \(memo.id) “\(memo.title.terminalSafe)”")
            }
        }
    }
}
