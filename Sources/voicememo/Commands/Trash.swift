import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Trash: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "trash",
            abstract: "List the memos deleted and the earlier versions of memos the trash keeps, or empty it.",
            discussion: """
                A delete, and an edit (a trim, a rename), keep the memo as it was in the trash, in the memo store's \
                .trash directory, for 30 days, or until the trash is emptied; 'voicememo restore MEMO' and \
                'voicememo undo' bring one back. Older ones go the next time the store is used. --empty removes \
                every one for good.
                """)

        @Flag(help: "Remove everything in the trash, for good.")
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
                Table.Column(heading: "EDIT"), Table.Column(heading: "WHEN"), Table.Column(heading: "LEFT", alignsRight: true),
                Table.Column(heading: "DURATION", alignsRight: true), Table.Column(heading: "SIZE", alignsRight: true),
            ])
            let now = Date()
            for version in versions.reversed() {
                table.append([
                    version.memo.id, version.memo.title, Describe.edit(version.edit), Describe.date(version.trashedAt),
                    Self.daysLeft(until: version.expiresAt, now: now),
                    Describe.duration(version.memo.duration), Describe.size(version.memo.sizeBytes),
                ])
            }
            print(String(decoding: table.lines(widths: table.widths, withHeadings: true), as: UTF8.self), terminator: "")
            let bytes = versions.reduce(Int64(0)) { $0 + $1.memo.sizeBytes }
            print("\(versions.count) \(versions.count == 1 ? "version" : "versions"), \(Describe.size(bytes)); "
                + "'voicememo restore MEMO' brings one back, 'voicememo trash --empty' removes them for good")
        }

        /// The whole days until `expiry`, counted up, as Voice Memos shows them: `30 days`, `1 day`.
        static func daysLeft(until expiry: Date, now: Date) -> String {
            let days = max(1, Int((expiry.timeIntervalSince(now) / 86400).rounded(.up)))
            return days == 1 ? "1 day" : "\(days) days"
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
    /// When it leaves the trash for good.
    let expiresAt: Date
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
        expiresAt = version.expiresAt
        duration = version.memo.duration
        sizeBytes = version.memo.sizeBytes
        file = version.path
    }
}
