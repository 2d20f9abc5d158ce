import AudioIO
import FoundationEssentials

/// `--normalize [LUFS]`: an option whose value may be left out, which swift-argument-parser has no kind of. The
/// command line is read with a bare `--normalize` given its default, `--normalize=-16`, before it is parsed: a value
/// is what follows only when it is a negative number, the only loudness worth aiming at (a memo id or title that
/// follows stays one).
enum NormalizeOption {
    /// The option's name.
    static let name = "--normalize"
    /// The loudness a bare `--normalize` aims at, in LUFS: what podcasts and speech are mastered to.
    static let defaultLoudness = -16.0

    /// `arguments` with every bare `--normalize` (up to a `--`) given the default value.
    static func expanding(_ arguments: [String]) -> [String] {
        var expanded: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                expanded += arguments[index...]
                break
            }
            let next = index + 1 < arguments.endIndex ? arguments[index + 1] : nil
            if argument == name, !(next.map(isLoudness) ?? false) {
                expanded.append("\(name)=\(defaultLoudness)")
            } else {
                expanded.append(argument)
            }
            index += 1
        }
        return expanded
    }

    /// Whether `argument` reads as a loudness: a negative number, e.g. `-16` or `-23.5`.
    private static func isLoudness(_ argument: String) -> Bool {
        argument.hasPrefix("-") && Double(argument).map { $0 < 0 } == true
    }

    /// What `--normalize` does to each of `items`: the gain in dB that brings it to `target` LUFS with its true peak
    /// under -1 dBTP, from its memo's loudness or, when it has none (a file that is not a memo, a memo of an older
    /// store), measured from its file; and the words that say what it reaches.
    struct Plan {
        /// Each item's gain, in order.
        let gains: [Double]
        private let descriptions: [URL: String]

        init(items: [PlayItem], target: Double) throws {
            let loudness = try items.map { item in
                try item.memo?.loudness ?? AudioFile(forReading: item.url, options: item.options).measureLoudness()
            }
            gains = loudness.map { $0.normalizationGain(toLoudness: target) }
            descriptions = Dictionary(zip(items.map(\.url), loudness.map { Describe.normalization(to: target, of: $0) })) { first, _ in first }
        }

        /// ` at -16.0 LUFS (+3.2 dB)`, or the loudness `item`'s true peak lets it reach and why.
        func description(of item: PlayItem) -> String {
            descriptions[item.url] ?? ""
        }
    }
}
