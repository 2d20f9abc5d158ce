import ArgumentParser
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Show how the memo store stands when a sync tool shares it between machines.",
            subcommands: [Status.self])

        struct Status: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "status",
                abstract: "Show this machine's id, the memos by state, and the last change seen from each machine.",
                discussion: """
                    Each change to a memo (recording, import, rename, trim, delete, restore) is a small .change file \
                    beside its audio, written once by the machine that made it; a sync tool (Syncthing, Nextcloud, \
                    rsync, cp -r) only ever adds them, and every machine settles the same way: the change with the \
                    higher clock wins, then the higher machine id. The machine's id is kept in \
                    $XDG_STATE_HOME/voicememo (default ~/.local/state/voicememo). Deleted counts the memos whose last \
                    change is a delete ('voicememo trash' shows them, 'voicememo restore' brings one back on any \
                    machine); conflicts merged counts the sync tools' conflict copies of change files merged and \
                    removed here.
                    """)

            @Flag(help: "Print the status as one JSON object.")
            var json = false

            func run() async throws {
                let store = try MemoStore(directory: MemoStore.defaultDirectory())
                let status = try store.syncStatus()
                if json {
                    print(try MemoJSON.line(StatusJSON(status)))
                    return
                }
                print("Machine: \(status.machine)")
                let states = Memo.State.allCases.map { "\(status.memos[$0] ?? 0) \($0.rawValue)" }
                print("Memos: " + states.joined(separator: ", "))
                print("Deleted: \(status.tombstones)")
                print("Conflicts merged: \(status.conflictsMerged)")
                for machine in status.machines {
                    let this = machine.id == status.machine ? " (this machine)" : ""
                    print("Last change from \(machine.id)\(this): \(Describe.dateTime(machine.lastChangeAt)) (clock \(machine.lastClock))")
                }
            }
        }
    }
}

/// `sync status --json`.
private struct StatusJSON: Encodable {
    struct Machine: Encodable {
        let id: String
        let lastClock: Int
        let lastChangeAt: Date
    }

    let machine: String
    /// Memos by state, every state named.
    let memos: [String: Int]
    let tombstones: Int
    let conflictsMerged: Int
    let machines: [Machine]

    init(_ status: SyncStatus) {
        machine = status.machine
        memos = Dictionary(uniqueKeysWithValues: Memo.State.allCases.map { ($0.rawValue, status.memos[$0] ?? 0) })
        tombstones = status.tombstones
        conflictsMerged = status.conflictsMerged
        machines = status.machines.map { Machine(id: $0.id, lastClock: $0.lastClock, lastChangeAt: $0.lastChangeAt) }
    }
}
