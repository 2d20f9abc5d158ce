import Testing

/// What a terminal shows after the bytes a program wrote to it, for the control sequences voicememo's live display
/// writes: text, carriage return and line feed (the terminal's `onlcr` turns `\n` into `\r\n`), `ESC [ n F` (up `n`
/// lines, to the first column), `ESC [ 2 K` (erase the line), `ESC [ J` (erase to the end of the screen); colors and
/// the cursor's visibility change nothing shown. The screen is unbounded below and does not scroll: rows as written.
public struct TerminalScreen {
    /// The rows, top first, without trailing blanks.
    public private(set) var rows: [String] = [""]
    private var row = 0
    private var column = 0

    public init(_ output: String) {
        var characters = output.unicodeScalars.makeIterator()
        while let character = characters.next() {
            switch character {
            case "\r": column = 0
            case "\n": moveDown()
            case "\u{1B}":
                guard characters.next() == "[" else { continue }
                var parameters = ""
                while let next = characters.next() {
                    guard ("0"..."9").contains(next) || next == ";" || next == "?" else {
                        control(next, parameters)
                        break
                    }
                    parameters.unicodeScalars.append(next)
                }
            default: put(character)
            }
        }
        rows = rows.map { String($0.reversed().drop { $0 == " " }.reversed()) }
        while rows.count > 1, rows.last?.isEmpty == true { rows.removeLast() }
    }

    private mutating func control(_ final: Unicode.Scalar, _ parameters: String) {
        switch final {
        case "F":
            row = max(0, row - (Int(parameters) ?? 1))
            column = 0
        case "K" where parameters == "2": rows[row] = ""
        case "J" where parameters.isEmpty || parameters == "0":
            rows[row] = String(rows[row].prefix(column))
            rows.removeSubrange((row + 1)...)
        default: break
        }
    }

    private mutating func moveDown() {
        row += 1
        column = 0
        if row == rows.count { rows.append("") }
    }

    private mutating func put(_ character: Unicode.Scalar) {
        var line = Array(rows[row])
        while line.count < column { line.append(" ") }
        if column < line.count { line[column] = Character(character) } else { line.append(Character(character)) }
        rows[row] = String(line)
        column += 1
    }
}

/// The screen as a terminal shows it after a live display's redraws.
@Suite struct TerminalScreenTests {
    @Test func aRedrawReplacesItsLinesAndEraseBelowTakesWhatIsLeft() {
        // Three lines, then two drawn over them from the top: the third stays until erased below.
        let three = "\u{1B}[2KL bar\r\n\u{1B}[2KR bar\r\n\u{1B}[2K▶ Wide  0:01.0\r\n"
        let two = "\u{1B}[3F\u{1B}[2KM bar\r\n\u{1B}[2K▶ Narrow  0:00.1\r\n"
        #expect(TerminalScreen(three + two).rows == ["M bar", "▶ Narrow  0:00.1", "▶ Wide  0:01.0"])
        #expect(TerminalScreen(three + two + "\u{1B}[J").rows == ["M bar", "▶ Narrow  0:00.1"])
        #expect(TerminalScreen("\u{1B}[?25l\u{1B}[32mok\u{1B}[0m   \r\n").rows == ["ok"], "colors and the cursor show nothing")
    }
}
