import ArgumentParser
import FoundationEssentials
import MemoStore

/// How commands take memos on the command line: references as the CLI contract defines them, which the
/// shell completes with the ids in the store.
enum MemoArgument {
    /// Help for an argument that names one memo.
    static let help = ArgumentHelp("The memo: its id, an id prefix (4+ characters) or its exact title.", valueName: "memo")

    /// Help for an argument that names one memo or more.
    static let helpForSeveral = ArgumentHelp(
        "The memos: ids, id prefixes (4+ characters) or exact titles.", valueName: "memo")

    /// The ids of the memos in the store, for the shell to offer. Completing never creates a store: with
    /// none, it offers nothing.
    static let completion = CompletionKind.custom { _, _, _ in
        let directory = MemoStore.defaultDirectory()
        guard FileManager.default.fileExists(atPath: directory.path),
              let memos = try? MemoStore(directory: directory).memos()
        else { return [] }
        return memos.map(\.id)
    }
}
