import AudioIO
import Foundation
import TestSupport
import Testing

/// Nothing from a file's bytes reaches the terminal raw: titles, tags, paths and messages are shown with their
/// control characters, escape sequences and bidirectional overrides escaped, and JSON keeps them exactly.
@Suite struct TerminalSafetyTests {
    /// A title a hostile file could carry: a color, a cursor move, a screen clear, a bell, a newline, a C1 control,
    /// a right-to-left override and an isolate.
    static let hostileTitle = "Red \u{1B}[31mtext\u{1B}[0m \u{1B}[2J\u{07} line\nbreak \u{9B}31m \u{202E}reversed\u{2066} end"
    static let escapedTitle = #"Red \e[31mtext\e[0m \e[2J\x07 line\nbreak \u{9B}31m \u{202E}reversed\u{2066} end"#

    /// What must never be in human output: controls other than the line ends, C1 controls, bidirectional controls.
    static func unsafeCharacters(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            scalar != "\n" && ((0...0x1F).contains(scalar.value) || (0x7F...0x9F).contains(scalar.value)
                || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value))
        }
    }

    @Test func aHostileTitleTagIsShownEscapedEverywhereAndKeptExactInJSON() throws {
        let cli = try CLI()
        let source = cli.scratch.file("tagged.wav")
        let writer = try AudioFileWriter(url: source, settings: AudioSettings(), metadata: AudioMetadata(title: Self.hostileTitle))
        try [Float](repeating: 0.25, count: 4800).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()

        let imported = try cli.run("import", source.path)
        #expect(imported.status == 0)
        #expect(Self.unsafeCharacters(in: imported.standardOutput).isEmpty && imported.standardOutput.contains(Self.escapedTitle),
                "\(imported.standardOutput)")
        let listed = try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
        let id = try #require(listed?.first?["id"] as? String)
        // JSON is exact: the title as the file holds it.
        let memo = try cli.json(cli.run("info", id, "--json"))
        #expect(memo["title"] as? String == Self.hostileTitle)
        let outputs = [
            try cli.run("list"), try cli.run("info", id), try cli.run("export", id, cli.scratch.path("out.wav")),
            try cli.run("play", id, "--device", "null"), try cli.run("rename", id, Self.hostileTitle + " again"),
            try cli.run("delete", id),
        ]
        for output in outputs {
            #expect(output.status == 0, "\(output.standardError)")
            #expect(Self.unsafeCharacters(in: output.standardOutput + output.standardError).isEmpty, "\(output.standardOutput)")
            // The list cuts the title to its column.
            #expect(output.standardOutput.contains(Self.escapedTitle.prefix(output.standardOutput.hasPrefix("ID ") ? 30 : 100)), "\(output.standardOutput)")
        }
    }

    @Test func aHostilePathInAnErrorIsShownEscaped() throws {
        let cli = try CLI()
        let path = cli.scratch.path("missing \u{1B}]0;title\u{07}\u{202E}.wav")
        let result = try cli.run("import", path)
        #expect(result.status == 1)
        #expect(Self.unsafeCharacters(in: result.standardError).isEmpty && result.standardError.contains(#"missing \e]0;title\x07\u{202E}.wav"#),
                "\(result.standardError)")
    }
}
