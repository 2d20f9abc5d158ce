/// Text as a terminal shows it: how many columns it takes, cut to fit, and safe to show (``terminalSafe``).
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
        let fitted = terminalSafe.fitted(toColumns: columns)
        bytes.append(contentsOf: fitted.text.utf8)
        return fitted.columns
    }

    /// This text as it is safe to show on a terminal: the one sanitizer of everything voicememo prints for a person
    /// (titles, tags, paths, messages). A control character (C0, DEL, C1) or a bidirectional embedding, override or
    /// isolate (U+202A–U+202E, U+2066–U+2069) is shown escaped, as `\n`, `\t`, `\r`, `\e`, `\x7F` or `\u{202E}`: a
    /// title can neither move the cursor, change colors, break a line nor turn the text after it around.
    var terminalSafe: String {
        if isPrintableASCII { return self }
        guard unicodeScalars.contains(where: Self.needsEscaping) else { return self }
        var escaped = ""
        for scalar in unicodeScalars {
            guard Self.needsEscaping(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case "\u{1B}": escaped += "\\e"
            case _ where scalar.value < 0x80: escaped += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return escaped
    }

    /// Control characters (C0, DEL, C1) and the bidirectional controls that reorder what follows them.
    private static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
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
