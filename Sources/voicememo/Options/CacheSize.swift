import ArgumentParser
import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// The most the download cache keeps, as `--cache-size` and the setting take it: a number and its unit, K, M, G or T
/// (powers of 1024, as `du` and `sort -S` count), e.g. `500M`, `2G`, `1.5G`.
struct CacheSize: Equatable {
    /// Bytes, 0 or more.
    let bytes: Int64

    init(bytes: Int64) {
        self.bytes = bytes
    }

    private static let units: [(suffix: Character, bytes: Double)] = [("K", 0x400), ("M", 0x10_0000), ("G", 0x4000_0000), ("T", 0x100_0000_0000)]

    /// Reads `text`, given to `option`.
    ///
    /// - Throws: `ValidationError` that says what is expected, for anything else (a bare number, which could be bytes
    ///   or megabytes, included).
    static func parse(_ text: String, option: String = "--cache-size") throws -> CacheSize {
        guard let size = CacheSize(text) else {
            throw ValidationError("\(option) takes a size with its unit, such as 500M or 2G (K, M, G, T: powers of 1024), not '\(text.terminalSafe)'.")
        }
        return size
    }

    /// `text` read as a size, or `nil`.
    private init?(_ text: String) {
        guard let last = text.last, let unit = Self.units.first(where: { String($0.suffix) == last.uppercased() }) else { return nil }
        let number = text.dropLast()
        // Digits with at most one point: no sign, exponent, "inf" or "nan", which Double would take.
        guard number.contains(where: \.isNumber), number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              number.filter({ $0 == "." }).count <= 1, let value = Double(number), value * unit.bytes < 0x1p62
        else { return nil }
        bytes = Int64((value * unit.bytes).rounded())
    }

    /// The size as it is written: in the largest unit it reaches, to a tenth, e.g. `500M`, `1.5G`.
    var text: String {
        let unit = Self.units.last { Double(bytes) >= $0.bytes } ?? Self.units[0]
        let tenths = Int64((Double(bytes) / unit.bytes * 10).rounded())
        return (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + String(unit.suffix)
    }

    /// The setting, `$XDG_CONFIG_HOME/voicememo/cache-size` (`~/.config/voicememo/cache-size`): one line, a size.
    static var settingFile: URL {
        UserDirectories().config.appendingPathComponent("voicememo").appendingPathComponent("cache-size")
    }

    /// The size the setting holds, `nil` without one.
    ///
    /// - Throws: ``CacheSizeSettingError`` when the file holds something else, or cannot be read.
    static func setting() throws(CacheSizeSettingError) -> CacheSize? {
        let file = settingFile
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { throw .unreadable(file.path) }
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 1, let size = CacheSize(String(words[0])) else { throw .invalid(file.path, text.terminalSafe) }
        return size
    }

    /// Writes `self` as the setting, replacing the file in one step, synced.
    func save() throws {
        let file = Self.settingFile
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try DurableFile.write(Array((text + "\n").utf8), replacing: file.path, permissions: [.ownerReadWrite, .groupRead, .otherRead], syncing: true)
    }
}

/// A setting of the cache's size that cannot be used.
enum CacheSizeSettingError: Error, CustomStringConvertible {
    case unreadable(String)
    case invalid(String, String)

    var description: String {
        switch self {
        case .unreadable(let path): "the cache size setting \(path) cannot be read; check its permissions, or remove it"
        case .invalid(let path, let text):
            "the cache size setting \(path) holds '\(text)', not a size such as 500M or 2G; correct it or remove it"
        }
    }
}

/// `--cache-size`, on the commands that download addresses (`play`, `import`): the most the cache keeps during this
/// run, instead of the setting (``CacheSize/setting()``), instead of 1 GiB.
struct CacheSizeOptions: ParsableArguments {
    // Unconditional, so that `-5` is a size that is wrong rather than an option that is unknown.
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "The most the download cache keeps, e.g. 500M or 2G (default: the setting 'voicememo cache --set-size' writes, else 1G); the least recently used addresses go first.",
        valueName: "size"), transform: { try CacheSize.parse($0) })
    var cacheSize: CacheSize?

    /// Sets the cap of the shared cache from `--cache-size`, else the setting, when `arguments` name an address.
    ///
    /// - Throws: ``CacheSizeSettingError`` for a setting that cannot be used.
    func apply(for arguments: [String]) throws {
        guard arguments.contains(where: { RemoteAddress.url(from: $0) != nil }) else { return }
        if let size = try cacheSize ?? CacheSize.setting() { RemoteCache.shared.capacity = size.bytes }
    }
}
