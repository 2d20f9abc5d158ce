import AudioIO
import FoundationEssentials
import SystemEdge

/// What `import` says of an address while it downloads. On a terminal, a line redrawn in place through
/// ``WorkProgress``, fitted to the terminal's width at each redraw:
/// `Downloading “talk.opus”  ███████·········  1.2 MB / 4.5 MB  350 KB/s  0:09 left` (the time left, then the rate go
/// first, then the name shortens; without a length, no bar). Elsewhere (a pipe, a log), a plain line at each tenth of
/// the file, at most one a second (or every 5 s while the length is unknown, at least every 30 s), and one when it is
/// whole, as curl and wget keep a log short; a download done within a second prints nothing. With `--json`, nothing.
///
/// **Thread safety**: one thread, the download's caller, uses it.
final class DownloadReport {
    private let name: String
    private let progress: WorkProgress
    private let printsLines: Bool
    private let started = ContinuousClock.now
    /// The reports of the last 3 s (and one before them), whose bytes over their time are the rate.
    private var samples: [(time: ContinuousClock.Instant, bytes: Int64)] = []
    /// The last plain line: when, and the tenth of the file it told.
    private var lastLine: (time: ContinuousClock.Instant, tenth: Int)?
    private var latest: DownloadProgress?

    /// The report of the download of `name` (what messages call the address), drawn by `progress` when it draws,
    /// else in plain lines if `printsLines`.
    init(name: String, progress: WorkProgress, printsLines: Bool) {
        self.name = name.terminalSafe
        self.progress = progress
        self.printsLines = printsLines && !progress.isDrawing
    }

    /// Takes in how far the download has come.
    func update(_ report: DownloadProgress) {
        let now = ContinuousClock.now
        samples.append((now, report.loadedBytes))
        while samples.count > 2, now - samples[1].time >= .seconds(3) { samples.removeFirst() }
        latest = report
        if progress.isDrawing {
            progress.show { line(report, columns: $0) }
        } else if printsLines {
            printLine(report, at: now)
        }
    }

    /// The last line, off a terminal, once the file is whole (when a line was printed before it).
    func finish() {
        guard printsLines, lastLine != nil, let latest else { return }
        print("Downloaded “\(name)” (\(Describe.size(latest.loadedBytes))) in \(Describe.duration((ContinuousClock.now - started) / .seconds(1)))")
        CurrentProcess.flushOutput()
    }

    /// Bytes a second over the recent reports, once they span half a second.
    private var rate: Double? {
        guard let first = samples.first, let last = samples.last, case let span = (last.time - first.time) / .seconds(1), span >= 0.5
        else { return nil }
        return Double(last.bytes - first.bytes) / span
    }

    /// The rate and the time left, as far as they are known.
    private func pace(_ report: DownloadProgress) -> [String] {
        guard let rate else { return [] }
        var pace = [Describe.size(Int64(rate)) + "/s"]
        if let total = report.totalBytes, rate > 0 {
            pace.append(Describe.countdown(Double(total - report.loadedBytes) / rate) + " left")
        }
        return pace
    }

    /// The terminal's line in `columns`.
    private func line(_ report: DownloadProgress, columns: Int) -> String {
        let bytes = Describe.size(report.loadedBytes) + (report.totalBytes.map { " / " + Describe.size($0) } ?? "")
        let full = "Downloading “\(name)”"
        let minimumBar = report.totalBytes == nil ? 0 : 12
        // What fits beside the name and the bar: the time left goes first, then the rate.
        var stats = [bytes] + pace(report)
        while stats.count > 1, columns - stats.joined(separator: "  ").terminalColumns - 2 - minimumBar < 16 { stats.removeLast() }
        let statsText = stats.joined(separator: "  ")
        let room = columns - statsText.terminalColumns - 2
        var head = full
        if full.terminalColumns > room - minimumBar {
            head = room - minimumBar >= 5 ? "“" + name.truncated(toColumns: room - minimumBar - 2) + "”" : ""
        }
        var line = head
        if let total = report.totalBytes, total > 0, case let cells = min(40, room - head.terminalColumns - (head.isEmpty ? 0 : 2)), cells >= 10 {
            line += (head.isEmpty ? "" : "  ") + ProgressBar.line(position: Double(report.loadedBytes), duration: Double(total), loaded: [], columns: cells)
        }
        line += (line.isEmpty ? "" : "  ") + statsText
        return line.truncated(toColumns: columns)
    }

    /// A plain line, when the download has come a tenth further, or taken long enough since the last one.
    private func printLine(_ report: DownloadProgress, at now: ContinuousClock.Instant) {
        guard now - started >= .seconds(1) else { return }
        let since = lastLine.map { now - $0.time } ?? .seconds(30)
        var tenth = 0
        var text = "Downloading “\(name)”: "
        if let total = report.totalBytes, total > 0 {
            guard report.loadedBytes < total else { return }
            tenth = Int(report.loadedBytes * 10 / total)
            guard tenth > (lastLine?.tenth ?? 0) && since >= .seconds(1) || since >= .seconds(30) else { return }
            text += "\(report.loadedBytes * 100 / total) % (\(Describe.size(report.loadedBytes)) of \(Describe.size(total)))"
        } else {
            guard since >= .seconds(5) else { return }
            text += Describe.size(report.loadedBytes)
        }
        print(([text] + pace(report)).joined(separator: ", "))
        CurrentProcess.flushOutput()
        lastLine = (now, tenth)
    }
}
