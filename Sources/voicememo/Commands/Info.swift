import ArgumentParser
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show everything known about a memo.",
            discussion: """
                Levels are per channel, channel 1 first, over the whole recording, in dBFS (0 is full scale, -inf \
                silence, -160 in --json). Loudness is EBU R 128's (ITU-R BS.1770-4): integrated loudness in LUFS (-70 for silence), \
                loudness range in LU and true peak in dBTP, over all channels. It is measured at the end of a \
                recording and at import; a memo from an older voicememo has it measured now, once, and kept. The \
                artist, album and comment show when the memo has them, and its markers (dropped with m while \
                recording, or the imported file's) one a line: number, time, name. With --json, markers is a list of \
                {frame, time, name}: frame at the memo's sample rate, time in seconds. Samples a device gone \
                wrong delivered as NaN or infinity while recording are counted (nonFiniteSamples in --json, when \
                any): silence in the file, and in its levels, loudness and waveform; a 32-bit float file keeps \
                them as they came. \
                The waveform spans the terminal's width (80 columns off a terminal) in two rows: each column \
                as tall as the loudest sample of its stretch of the memo, on a scale of 30 dB below the loudest. \
                Titles it had before, on this machine or another sharing the store, show as Earlier titles \
                (titleHistory in --json, when it had others: every title, the last the memo's, each with the clock \
                and machine of its change).
                """)

        @Argument(help: MemoArgument.help, completion: MemoArgument.completion)
        var memo: String

        @Flag(help: "Print the memo as one JSON object.")
        var json = false

        @Flag(help: "Draw the waveform with ASCII characters (.:|) instead of Unicode blocks.")
        var ascii = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memo = store.measuringLoudness(of: [try store.memo(matching: memo)])[0]
            let history = try store.titleHistory(of: memo)
            if json {
                var output = MemoJSON(memo, in: store)
                if history.count > 1 { output.titleHistory = history }
                print(try MemoJSON.line(output))
                return
            }
            var fields = [
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
            let tags = [("Artist", memo.artist), ("Album", memo.album), ("Comment", memo.comment)]
            fields.insert(contentsOf: tags.compactMap { label, value in value.map { (label, $0.terminalSafe) } }, at: 2)
            let earlier = history.dropLast().map(\.title).filter { $0 != memo.title }
            if !earlier.isEmpty { fields.insert(("Earlier titles", earlier.reversed().map(\.terminalSafe).joined(separator: "; ")), at: 1) }
            if !memo.markers.isEmpty { fields.append(("Markers", "\(memo.markers.count)")) }
            if memo.nonFiniteSampleCount > 0 {
                fields.append(("Non-finite samples", "\(memo.nonFiniteSampleCount) (NaN or infinity, taken as silence)"))
            }
            let width = fields.map(\.0.count).max() ?? 0
            for (label, value) in fields {
                print(label + ":" + String(repeating: " ", count: width + 2 - label.count) + value)
            }
            // e.g. "  2  0:12.4  Questions"
            let numberWidth = String(memo.markers.count).count
            for (number, marker) in memo.markers.enumerated() {
                let label = String(number + 1)
                print("  " + String(repeating: " ", count: numberWidth - label.count) + label + "  "
                    + Describe.duration(marker.time(atSampleRate: memo.sampleRate)) + (marker.name.map { "  " + $0.terminalSafe } ?? ""))
            }
            guard memo.state != .recording, memo.state != .syncing else { return }
            do {
                let waveform = try store.waveform(of: memo)
                // Two spaces in, and the last column free, as the live display leaves it.
                let columns = max((TerminalDisplay.outputColumns ?? 80) - 3, 1)
                print("Waveform:")
                for row in WaveformText(waveform, columns: columns).rows(2, ascii: ascii) { print("  " + row) }
            } catch {
                print("Waveform:" + String(repeating: " ", count: width - 6) + "unavailable (\(String(describing: error).terminalSafe))")
            }
        }
    }
}
