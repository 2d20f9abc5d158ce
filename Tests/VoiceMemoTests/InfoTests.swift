import Foundation
import TestSupport
import Testing

@Suite struct InfoTests {
    @Test func infoShowsEveryFieldReadably() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("lecture.wav"), rate: 44100, channels: 2, bits: 24, seconds: 1.5, "sine 440 sine 660", volume: 0.25)
        let memo = try cli.json(cli.run("import", cli.scratch.path("lecture.wav"), "--title", "Lecture", "--json"))
        let id = try #require(memo["id"] as? String)
        let created = try #require(ISO8601DateFormatter().date(from: memo["createdAt"] as? String ?? ""))
        let local = DateFormatter()
        local.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let file = try #require(memo["file"] as? String)
        let sox = try Sox.levels(of: file, channels: 2)
        func levels(_ values: [Double]) -> String { values.map { String(format: "%.1f", $0) }.joined(separator: ", ") + " dBFS" }
        // Checked against ffmpeg's meter in LoudnessCommandTests; here, how info shows it.
        let loudness = try #require(memo["loudness"] as? [String: Double])
        let measures = try ["integrated", "range", "truePeak"].map { String(format: "%.1f", try #require(loudness[$0])) }
        let fields = [
            ("Title", "Lecture"), ("ID", id), ("Created", local.string(from: created)), ("Duration", "0:01.5 (1.500 s)"),
            ("State", "complete"), ("Format", "wav"), ("Sample rate", "44100 Hz"), ("Channels", "2"),
            ("Size", "397 KB (\(try #require(memo["sizeBytes"] as? Int)) bytes)"), ("Peak level", levels(sox.peak)),
            ("Average level", levels(sox.rms)),
            ("Loudness", "\(measures[0]) LUFS, range \(measures[1]) LU, true peak \(measures[2]) dBTP"), ("File", file),
        ]
        // One field a line, every value starting in the same column.
        let expected = fields.map { label, value in (label + ":").padding(toLength: 16, withPad: " ", startingAt: 0) + value }
        #expect(try cli.lines("info", String(id.prefix(6))) == expected)
    }

    @Test func infoJSONIsTheMemoAsImportPrintedIt() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("a.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let imported = try cli.json(cli.run("import", cli.scratch.path("a.wav"), "--json"))
        let info = try cli.json(cli.run("info", "a", "--json"))
        #expect(NSDictionary(dictionary: info).isEqual(to: imported))
    }
}
