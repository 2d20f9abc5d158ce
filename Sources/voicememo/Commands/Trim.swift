import ArgumentParser
import AudioIO
import MemoStore

extension VoiceMemo {
    struct Trim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "trim",
            abstract: "Cut a memo to the part between two times, without encoding it again.",
            discussion: """
                Keeps the part from --start to --end (seconds, or m:ss, or h:mm:ss; the start and the end of the memo \
                when left out), to the sample: WAV and CAF samples, Opus packets and M4A's AAC packets stay as they \
                are, so nothing is lost to a second encoding. Markers move with what they mark; those before --start \
                or after --end are dropped. The memo as it was goes to the trash: 'voicememo restore MEMO' or \
                'voicememo undo' brings it back, 'voicememo trash' lists what the trash keeps. A memo still being \
                recorded is not trimmed.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Where the part kept starts: seconds, m:ss or h:mm:ss (default: the memo's start).", valueName: "time"))
        var start: TimeArgument?

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Where the part kept ends: seconds, m:ss or h:mm:ss (default: the memo's end).", valueName: "time"))
        var end: TimeArgument?

        @Flag(help: "Print the trimmed memo as one JSON object.")
        var json = false

        func validate() throws {
            guard start != nil || end != nil else { throw ValidationError("Give --start, --end or both: where the part to keep starts and ends.") }
            for (name, time) in [("--start", start), ("--end", end)] {
                if let time, time.seconds < 0 { throw TimeArgument.beforeTheStart(name, time) }
            }
            if let start, let end, start.seconds >= end.seconds {
                throw ValidationError("--start must come before --end.")
            }
        }

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let before = try store.memo(matching: memo)
            let after = try store.trim(before, start: start?.seconds, end: end?.seconds)
            if json {
                print(try MemoJSON.line(MemoJSON(after, in: store)))
                return
            }
            var part = ""
            if case .trim(let start, let end)? = store.trashedVersions().last(where: { $0.memo.id == after.id })?.edit {
                part = " to \(Describe.duration(start))–\(Describe.duration(end))"
            }
            let summary = SummaryLine(
                head: "Trimmed \(after.id) “", title: after.title.terminalSafe, middle: "”\(part): ",
                fields: [
                    "\(Describe.duration(after.duration)) (was \(Describe.duration(before.duration)))",
                    "'voicememo undo' brings the memo as it was back",
                ],
                separator: "; ")
            for line in summary.lines(fittingColumns: TerminalDisplay.outputColumns) { print(line) }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Bring back a memo deleted, or a memo's version before its last edit, from the trash.",
            discussion: """
                A memo deleted (in 'voicememo trash', named by its id or title) comes back to the store as it was. \
                For a memo in the store, the version its last edit (a trim, a rename) replaced comes back in place of \
                its audio, with its length, levels, loudness and markers; it keeps its title, but for a rename, which \
                gets the old title back. The version it replaces is dropped (make the edit again to have it back). \
                Run it again to go back another edit.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Flag(help: "Print the restored memo as one JSON object.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            try Self.report(store.restore(matching: memo), of: store, json: json)
        }

        /// Prints what a restore did.
        static func report(_ restored: (memo: Memo, version: TrashedVersion), of store: MemoStore, json: Bool) throws {
            if json {
                print(try MemoJSON.line(MemoJSON(restored.memo, in: store)))
                return
            }
            let when = Describe.date(restored.version.trashedAt)
            if restored.version.edit == .delete {
                print("Restored \(restored.memo.id) “\(restored.memo.title.terminalSafe)”, deleted \(when), from the trash: "
                    + Describe.duration(restored.memo.duration))
                return
            }
            print("Restored \(restored.memo.id) “\(restored.memo.title.terminalSafe)” as it was before the "
                + "\(Describe.edit(restored.version.edit)) of \(when): " + Describe.duration(restored.memo.duration))
        }
    }

    struct Undo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "undo",
            abstract: "Undo the last edit or delete made to any memo, from the trash.",
            discussion: "What 'voicememo restore' does for the memo the last trim, rename or delete changed.")

        @Flag(help: "Print the restored memo as one JSON object.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            try Restore.report(store.undo(), of: store, json: json)
        }
    }
}
