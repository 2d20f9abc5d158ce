/// Text as a terminal shows it: how many columns it takes, cut to fit, and free of control characters.
///
/// Widths follow what terminals do (the rules of `wcwidth`): East Asian wide and fullwidth characters and
/// emoji take two columns, combining marks and zero-width characters none, everything else one. They are
/// counted per grapheme cluster, so "e" with a combining accent, a flag or an emoji with a skin tone is
/// one character of one or two columns.
extension String {
    /// The columns this text takes in a terminal.
    var terminalColumns: Int {
        // Printable ASCII, what most titles and every other cell are, takes a column per byte.
        if isPrintableASCII { return utf8.count }
        return reduce(0) { $0 + $1.terminalColumns }
    }

    /// This text cut to at most `columns` columns, ending in "…" when it was cut.
    func truncated(toColumns columns: Int) -> String { fitted(toColumns: columns).text }

    /// This text cut to at most `columns` columns, ending in "…" when it was cut, and the columns it takes.
    func fitted(toColumns columns: Int) -> (text: String, columns: Int) {
        guard columns > 0 else { return ("", 0) }
        if isPrintableASCII {
            let count = utf8.count
            return count <= columns ? (self, count) : (String(prefix(columns - 1)) + "…", columns)
        }
        let width = terminalColumns
        guard width > columns else { return (self, width) }
        var kept = ""
        var used = 0
        for character in self {
            let width = character.terminalColumns
            guard used + width <= columns - 1 else { break }
            kept.append(character)
            used += width
        }
        return (kept + "…", used + 1)
    }

    /// Appends this text to `bytes` on one line, cut to at most `columns` columns as ``fitted(toColumns:)`` cuts
    /// it, and returns the columns it takes. Printable ASCII, what most cells of a table are, is copied byte for
    /// byte without a string being made.
    func appendFitted(toColumns columns: Int, to bytes: inout [UInt8]) -> Int {
        var text = self
        let asciiColumns = text.withUTF8 { utf8 -> Int? in
            guard columns > 0, utf8.allSatisfy(Self.isPrintable) else { return nil }
            guard utf8.count > columns else {
                bytes.append(contentsOf: utf8)
                return utf8.count
            }
            bytes.append(contentsOf: utf8.prefix(columns - 1))
            bytes.append(contentsOf: "…".utf8)
            return columns
        }
        if let asciiColumns { return asciiColumns }
        let fitted = singleLine.fitted(toColumns: columns)
        bytes.append(contentsOf: fitted.text.utf8)
        return fitted.columns
    }

    /// This text on one line: control characters (newlines, tabs, escapes) become spaces, so that a title
    /// cannot break a table or move the cursor.
    var singleLine: String {
        if isPrintableASCII { return self }
        return String(map { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? " " : $0 })
    }

    /// Only the bytes 32…126: every character one column wide, none a control character. Checked byte by
    /// byte, it spares `list` walking 10,000 rows grapheme by grapheme.
    private var isPrintableASCII: Bool {
        var text = self
        return text.withUTF8 { $0.allSatisfy(Self.isPrintable) }
    }

    private static func isPrintable(_ byte: UInt8) -> Bool { (32..<127).contains(byte) }
}

extension Character {
    /// The columns this character takes in a terminal: 0, 1 or 2.
    var terminalColumns: Int {
        // Most text is ASCII: a printable character takes one column, a control character none.
        if let ascii = asciiValue { return (32..<127).contains(ascii) ? 1 : 0 }
        let scalars = unicodeScalars
        guard let first = scalars.first else { return 0 }
        let isEmoji = scalars.contains { $0.properties.isEmojiPresentation }
            || (first.properties.isEmoji && scalars.contains("\u{FE0F}"))
        if isEmoji || scalars.contains(where: Self.isWide) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: return 1
        }
    }

    /// East Asian wide and fullwidth ranges, as in Markus Kuhn's `wcwidth`: Hangul, CJK, Yi, fullwidth forms.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3040...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        wideRanges.contains { $0.contains(scalar.value) }
    }
}
