import ArgumentParser
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show everything known about a memo.",
            discussion: """
                Levels are per channel, channel 1 first, over the whole recording, in dBFS (0 is full scale, -160 \
                silence). Loudness is EBU R 128's (ITU-R BS.1770-4): integrated loudness in LUFS (-70 for silence), \
                loudness range in LU and true peak in dBTP, over all channels. It is measured at the end of a \
                recording and at import; a memo from an older voicememo has it measured now, once, and kept.
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Flag(help: "Print the memo as one JSON object.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memo = store.measuringLoudness(of: [try store.memo(matching: memo)])[0]
            if json {
                print(try MemoJSON.line(MemoJSON(memo, in: store)))
                return
            }
            let fields = [
                ("Title", memo.title.terminalSafe),
                ("ID", memo.id),
                ("Created", Describe.dateTime(memo.createdAt)),
                ("Duration", "\(Describe.duration(memo.duration)) (\(Describe.number(memo.duration, "%.3f")) s)"),
                ("State", memo.state.rawValue),
                ("Format", memo.format.rawValue),
                ("Sample rate", "\(Int(memo.sampleRate)) Hz"),
                ("Channels", "\(memo.channels)"),
                ("Size", "\(Describe.size(memo.sizeBytes)) (\(memo.sizeBytes) bytes)"),
                ("Peak level", Describe.levels(memo.peakDBFS)),
                ("Average level", Describe.levels(memo.averageDBFS)),
                ("Loudness", Describe.loudness(of: memo)),
                ("File", store.filePath(of: memo).terminalSafe),
            ]
            let width = fields.map(\.0.count).max() ?? 0
            for (label, value) in fields {
                print(label + ":" + String(repeating: " ", count: width + 2 - label.count) + value)
            }
        }
    }
}
