import ArgumentParser
import MemoStore
import SystemEdge

extension VoiceMemo {
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Move memos to the trash, where they stay 30 days.",
            discussion: """
                Every memo named is found before anything is deleted: if one cannot be found, or is being \
                recorded, nothing is deleted. A deleted memo leaves the list and stays in the trash, whole, for 30 \
                days: 'voicememo restore MEMO' or 'voicememo undo' brings it back, 'voicememo trash' lists it, \
                'voicememo trash --empty' removes it for good. On a full disk the trash still takes it (the memo's \
                waveform, drawn again when asked for, makes room for its record); where even that is too little, \
                --now removes it for good, and frees its space at once.
                """)

        @Argument(help: MemoArgument.helpForSeveral, completion: MemoArgument.completion)
        var memos: [String]

        @Flag(help: "Remove the memos for good, without the trash (and their earlier versions in it): frees their space at once.")
        var now = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memos = try store.memos(matching: memos)
            if now {
                let freed = try store.deleteForGood(memos)
                for memo in memos { print("Deleted \(memo.id) “\(memo.title.terminalSafe)” for good") }
                print("\(Describe.size(freed)) freed")
                return
            }
            do {
                try store.delete(memos)
            } catch MemoStoreError.noSpace {
                throw Self.noRoomInTrash(for: memos, in: store)
            }
            for memo in memos {
                print("Deleted \(memo.id) “\(memo.title.terminalSafe)”: in the trash for \(MemoStore.trashDays) days")
            }
        }

        /// What to say when the trash had no room for `memos`, or for those of them still in `store`.
        private static func noRoomInTrash(for memos: [Memo], in store: MemoStore) -> SpaceFailure {
            let listed = Set(((try? store.memos()) ?? memos).map(\.id))
            let left = memos.filter { listed.contains($0.id) }
            let blocks = (try? FileSystemSpace(of: store.directory.path))?.blockSize ?? 4096
            return SpaceFailure(
                directory: store.directory.path,
                purpose: "the trash to keep " + left.map { "“\($0.title)”" }.joined(separator: ", "),
                need: "a memo deleted takes \(Describe.size(2 * blocks)) there",
                advice: "'voicememo delete --now \(left.map(\.id).joined(separator: " "))' removes "
                    + (left.count == 1 ? "it" : "them") + " for good and frees "
                    + Describe.size(left.reduce(0) { $0 + $1.sizeBytes }))
        }
    }
}
