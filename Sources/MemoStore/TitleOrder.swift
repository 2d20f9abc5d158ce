@_spi(_Unicode) import Swift

/// The order of titles in `list --sort title`, as `localizedStandardCompare` gives it in the root locale:
/// letters without regard to case or accents ("apple", "Émile", "Memo"), numbers by value ("Memo 2" before
/// "memo 10"), spaces and punctuation before digits and digits before letters; titles that are equal that
/// way keep one order by their exact text.
///
/// FoundationEssentials has no collation (Foundation's needs ICU, which the store does without to keep the
/// process small), so it is done here. Accents come off with the standard library's canonical
/// decomposition (NFD), reached through the `_Unicode` SPI that swift-foundation itself uses for this.
struct TitleOrder: Comparable {
    /// One thing a title is compared by, in this order of kinds.
    private enum Unit: Comparable {
        case symbol(UInt32)
        /// A run of digits, by value: fewer significant digits first, then the digits.
        case number(count: Int, digits: String)
        case letter(UInt32)
    }

    private let units: [Unit]
    private let text: String

    init(_ title: String) {
        text = title
        var units: [Unit] = []
        var digits = ""
        func endNumber() {
            guard !digits.isEmpty else { return }
            let significant = String(digits.drop { $0 == "0" })
            units.append(.number(count: significant.count, digits: significant))
            digits = ""
        }
        for scalar in title.lowercased()._nfd {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: continue
            default: break
            }
            if ("0"..."9").contains(scalar) {
                digits.unicodeScalars.append(scalar)
                continue
            }
            endNumber()
            units.append(scalar.properties.isAlphabetic ? .letter(scalar.value) : .symbol(scalar.value))
        }
        endNumber()
        self.units = units
    }

    static func < (first: TitleOrder, second: TitleOrder) -> Bool {
        first.units == second.units ? first.text < second.text : first.units.lexicographicallyPrecedes(second.units)
    }

    static func == (first: TitleOrder, second: TitleOrder) -> Bool {
        first.text == second.text
    }
}
