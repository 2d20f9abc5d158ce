import Foundation
import Glibc
import TestSupport
import Testing

/// The live display on a narrow terminal, and one resized while it draws: every line it draws fits the width, in
/// display columns, so that none wraps and pushes the display down.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct NarrowTerminalTests {
    typealias Display = TerminalDisplayTests

    /// The columns `line` takes on a terminal, by glibc's `wcwidth` in a UTF-8 locale, escape sequences (colors)
    /// taking none.
    static func columns(_ line: String) -> Int {
        _ = utf8Locale
        let visible = line.replacing(#/\x1B\[[0-9;?]*[A-Za-z]/#, with: "")
        return visible.unicodeScalars.reduce(0) { $0 + max(0, Int(wcwidth(wchar_t($1.value)))) }
    }

    private static let utf8Locale: Void = { setlocale(LC_CTYPE, "C.UTF-8") }()

    /// glibc's `wcwidth`, which the Glibc module does not export.
    private static let wcwidth = unsafeBitCast(dlsym(nil, "wcwidth"), to: (@convention(c) (wchar_t) -> Int32).self)

    /// The widest line of the complete frames of `height` lines in `screen`, and how many frames there are.
    static func widest(_ screen: String, height: Int) -> (columns: Int, frames: Int) {
        let frames = Display.frames(screen, height: height)
        return (frames.flatMap { $0 }.map(columns).max() ?? 0, frames.count)
    }

    @Test func theMeterFitsFortyColumnsThenTwentyWhenTheWindowShrinks() async throws {
        try await PulseAudioServer.exclusive { server in
            let sine = try server.playSine(frequency: 1000)
            defer { sine.stop() }
            let meter = try PseudoTerminal(CLI.binary, ["meter", "--device", "pulse"], environment: try server.environment, columns: 40)
            // Two channels and the status line, e.g. "L ████…|··  -6.0 pk  -9.0 av".
            #expect(meter.read(until: { Display.frames($0, height: 3).filter { $0[0].hasSuffix("  -6.0 pk   -9.0 av") }.count > 3 }, timeout: 10),
                    "\(meter.screen.suffix(600))")
            let wide = Self.widest(meter.screen, height: 3)
            #expect(wide.columns <= 40 && wide.columns > 30, "\(wide)")

            meter.resize(columns: 20)
            let resized = meter.screen.count
            // After the resize, the old lines are cleared (ESC [ J) and the new ones drawn: the bar and the peak in
            // whole dB, e.g. "L █████████▒|   -6".
            func afterResize() -> String {
                let text = String(meter.screen.dropFirst(resized))
                return text.range(of: "\u{1B}[J").map { String(text[$0.upperBound...]) } ?? ""
            }
            #expect(meter.read(until: { _ in Display.frames(afterResize(), height: 3).filter { $0[0].hasSuffix("  -6") }.count > 3 }, timeout: 10),
                    "\(meter.screen.suffix(600))")
            let narrow = Self.widest(afterResize(), height: 3)
            #expect(narrow.columns <= 20 && narrow.columns > 15, "\(narrow)")
            #expect(Display.frames(afterResize(), height: 3).last?[2].hasPrefix("METER  pulse  0:") == true)
            meter.type("\u{03}")
            #expect(meter.waitForExit(timeout: 10) == 0)
        }
    }

    @Test func aRecordingWithALongTitleFitsTwentyColumnsKeepingItsTime() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--title", "Notes from the long Thursday meeting"],
                environment: cli.environment.merging(try server.environment) { $1 }, columns: 20)
            // The title shortened, the size dropped, the time kept: "● REC  Note…  0:01.0".
            #expect(record.read(until: { (Display.frames($0, height: 2).last?.last?.wholeMatch(of: #/● REC  Note…  0:01\.\d/#)) != nil }, timeout: 10),
                    "\(record.screen.suffix(600))")
            let widest = Self.widest(record.screen, height: 2)
            #expect(widest.columns <= 20 && widest.frames > 5, "\(widest)")
            record.type("q")
            #expect(record.waitForExit(timeout: 10) == 0)
        }
    }

    @Test func recordsClosingLineFitsEightyColumnsWithALongTitle() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let title = "Notes from the long Thursday planning meeting about the garden"
            let record = try PseudoTerminal(
                CLI.binary, ["record", "--device", "pulse", "--duration", "0.5", "--channels", "2", "--title", title],
                environment: cli.environment.merging(try server.environment) { $1 }, columns: 80)
            #expect(record.waitForExit(timeout: 15) == 0, "\(record.screen.suffix(600))")
            // Whole, the summary would take 130 columns: "Recorded “Notes from…” as ID: 0:00.5, wav 48 kHz stereo, …".
            let screen = record.screen.replacing(#/\x1B\[[0-9;?]*[A-Za-z]/#, with: "")
            let lines = screen.components(separatedBy: "\r\n")
            #expect(lines.allSatisfy { Self.columns($0) <= 80 }, "\(lines.map { Self.columns($0) })")
            let summary = try #require(lines.firstIndex { $0.hasPrefix("Recorded “") })
            let text = lines[summary...].joined(separator: " ")
            #expect(text.contains(#/Recorded “Notes from[^”]*” as [0-9a-f]{12}: 0:00\.5/#), "\(text)")
            #expect(text.contains("wav 48 kHz stereo") && text.contains("dBFS"), "\(text)")
        }
    }

    /// `import`'s and `trim`'s closing lines, which a long title took past 80 columns as `record`'s did.
    @Test func importsAndTrimsClosingLinesFitEightyColumnsWithALongTitle() throws {
        let cli = try CLI()
        let source = cli.scratch.path("garden.wav")
        try Sox.synth(to: source, rate: 48000, channels: 2, seconds: 2, "sine 440")
        let title = "Notes from the long Thursday planning meeting about the garden"
        func screenLines(_ arguments: [String]) throws -> [String] {
            let command = try PseudoTerminal(CLI.binary, arguments, environment: cli.environment, columns: 80)
            #expect(command.waitForExit(timeout: 15) == 0, "\(command.screen.suffix(600))")
            return command.screen.replacing(#/\x1B\[[0-9;?]*[A-Za-z]/#, with: "").components(separatedBy: "\r\n")
        }
        let imported = try screenLines(["import", source, "--title", title])
        #expect(imported.allSatisfy { Self.columns($0) <= 80 }, "\(imported.map { Self.columns($0) })")
        let summary = try #require(imported.firstIndex { $0.hasPrefix("Imported “") })
        let importLine = imported[summary...].joined(separator: " ")
        let id = try #require(importLine.firstMatch(of: #/ as ([0-9a-f]{12}): /#)?.1)
        #expect(importLine.contains(#/Imported “Notes from[^”]*” as [0-9a-f]{12}: 0:02\.0, wav 48 kHz stereo, /#), "\(importLine)")

        let trimmed = try screenLines(["trim", String(id), "--start", "0.5", "--end", "1.5"])
        #expect(trimmed.allSatisfy { Self.columns($0) <= 80 }, "\(trimmed.map { Self.columns($0) })")
        let trimLine = trimmed.joined(separator: " ")
        #expect(trimLine.contains(#/Trimmed [0-9a-f]{12} “Notes from[^”]*” to 0:00\.5–0:01\.5: 0:01\.0 \(was 0:02\.0\);/#), "\(trimLine)")
        #expect(trimLine.contains("'voicememo undo' brings the memo as it was back"), "\(trimLine)")
    }
}
