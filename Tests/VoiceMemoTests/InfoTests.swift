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
        // Then the waveform, over 80 columns off a terminal: a steady tone is full height all along.
        let waveform = ["Waveform:", "  " + String(repeating: "█", count: 77), "  " + String(repeating: "█", count: 77)]
        #expect(try cli.lines("info", String(id.prefix(6))) == expected + waveform)
    }

    @Test func theWaveformShowsWhereTheMemoIsLoudAndWhereItIsSilent() throws {
        let cli = try CLI()
        // A second of tone, a second of silence, a second 20 dB quieter (a third of the height: the drawing spans 30 dB).
        let loud = cli.scratch.path("loud.wav"), quiet = cli.scratch.path("quiet.wav"), silence = cli.scratch.path("silence.wav")
        try Sox.synth(to: loud, rate: 48000, channels: 1, seconds: 1, "sine 440", volume: 0.5)
        try Sox.synth(to: quiet, rate: 48000, channels: 1, seconds: 1, "sine 440", volume: 0.05)
        try Tool.output("sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", silence, "trim", "0", "1"])
        let source = cli.scratch.path("shape.wav")
        try Tool.output("sox", [loud, silence, quiet, source])
        #expect(try cli.run("import", source, "--title", "Shape").status == 0)

        /// The two rows under "Waveform:", without their indent, as columns of characters.
        func rows(_ arguments: String...) throws -> [[Character]] {
            try cli.run(["info", "Shape"] + arguments, with: [:]).standardOutput.split(separator: "\n")
                .drop { $0 != "Waveform:" }.dropFirst().map { Array($0.dropFirst(2)) }
        }
        // 77 columns over 3 s: the first third full, the middle blank, the last third a third of the height; the
        // columns where one part meets the next (25, 51) are left out.
        let thirds = [0..<25, 26..<51, 52..<77]
        let unicode = try rows()
        #expect(unicode.count == 2 && unicode.allSatisfy { $0.count == 77 }, "\(unicode)")
        let expected: [[Character]] = [["█", " ", " "], ["█", " ", "▅"]]
        for (row, characters) in expected.enumerated() {
            for (third, character) in zip(thirds, characters) {
                #expect(unicode[row][third].allSatisfy { $0 == character }, "row \(row), columns \(third): \(String(unicode[row]))")
            }
        }
        let ascii = try rows("--ascii")
        let expectedASCII: [[Character]] = [["|", " ", " "], ["|", " ", ":"]]
        for (row, characters) in expectedASCII.enumerated() {
            for (third, character) in zip(thirds, characters) {
                #expect(ascii[row][third].allSatisfy { $0 == character }, "row \(row), columns \(third): \(String(ascii[row]))")
            }
        }
    }

    @Test func infoJSONIsTheMemoAsImportPrintedIt() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("a.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let imported = try cli.json(cli.run("import", cli.scratch.path("a.wav"), "--json"))
        let info = try cli.json(cli.run("info", "a", "--json"))
        #expect(NSDictionary(dictionary: info).isEqual(to: imported))
    }
}
