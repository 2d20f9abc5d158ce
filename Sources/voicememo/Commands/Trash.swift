import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Trash: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "trash",
            abstract: "List the earlier versions of memos the trash keeps, or empty it.",
            discussion: """
                An edit (a trim) keeps the memo as it was in the trash, in the memo store's .trash directory, until \
                the trash is emptied or the memo deleted; 'voicememo restore MEMO' and 'voicememo undo' bring a \
                version back. --empty removes every version for good.
                """)

        @Flag(help: "Remove every version in the trash, for good.")
        var empty = false

        @Flag(help: "Print the versions as one JSON array.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            if empty {
                let count = store.trashedVersions().count
                let freed = try store.emptyTrash()
                print("Emptied the trash: \(count) \(count == 1 ? "version" : "versions"), \(Describe.size(freed)) freed")
                return
            }
            let versions = store.trashedVersions()
            if json {
                print(try MemoJSON.line(versions.map(VersionJSON.init)))
                return
            }
            guard !versions.isEmpty else {
                print("The trash is empty.")
                return
            }
            var table = Table(columns: [
                Table.Column(heading: "ID"), Table.Column(heading: "TITLE", maximumWidth: List.titleColumns),
                Table.Column(heading: "EDIT"), Table.Column(heading: "EDITED"),
                Table.Column(heading: "DURATION", alignsRight: true), Table.Column(heading: "SIZE", alignsRight: true),
            ])
            for version in versions.reversed() {
                table.append([
                    version.memo.id, version.memo.title, Describe.edit(version.edit), Describe.date(version.trashedAt),
                    Describe.duration(version.memo.duration), Describe.size(version.memo.sizeBytes),
                ])
            }
            print(String(decoding: table.lines(widths: table.widths, withHeadings: true), as: UTF8.self), terminator: "")
            let bytes = versions.reduce(Int64(0)) { $0 + $1.memo.sizeBytes }
            print("\(versions.count) \(versions.count == 1 ? "version" : "versions"), \(Describe.size(bytes)); "
                + "'voicememo trash --empty' removes them for good")
        }
    }
}

/// A version in the trash as `trash --json` prints it.
private struct VersionJSON: Encodable {
    /// The memo's id.
    let id: String
    /// Its title then.
    let title: String
    let edit: MemoEdit
    let trashedAt: Date
    /// Its length then, in seconds.
    let duration: Double
    let sizeBytes: Int64
    /// The absolute path of its audio file, in the trash.
    let file: String

    init(_ version: TrashedVersion) {
        id = version.memo.id
        title = version.memo.title
        edit = version.edit
        trashedAt = version.trashedAt
        duration = version.memo.duration
        sizeBytes = version.memo.sizeBytes
        file = version.path
    }
}
