import ArgumentParser
import MemoStore

extension VoiceMemo {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Move memos to the trash, where they stay 30 days.",
            discussion: """
                Every memo named is found before anything is deleted: if one cannot be found, or is being \
                recorded, nothing is deleted. A deleted memo leaves the list and stays in the trash, whole, for 30 \
                days: 'voicememo restore MEMO' or 'voicememo undo' brings it back, 'voicememo trash' lists it, \
                'voicememo trash --empty' removes it for good.
                """)

        @Argument(help: MemoArgument.helpForSeveral, completion: MemoArgument.completion)
        var memos: [String]

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memos = try store.memos(matching: memos)
            try store.delete(memos)
            for memo in memos {
                print("Deleted \(memo.id) “\(memo.title.terminalSafe)”: in the trash for \(MemoStore.trashDays) days")
            }
        }
    }
}
