import AudioIO
import FoundationEssentials

/// One edit of one memo by one machine: the file `<id>.<clock>-<machine>.change` in the store, written once, atomically,
/// and never changed again, so that a sync tool that copies files whole (rsync, `cp -r`, Syncthing) can only add edits,
/// never overwrite one. Which memos there are and what they are called is what these files say together (see
/// ``MemoMerge``); the index is a cache of it.
///
/// `clock` is a Lamport clock: one more than the highest clock of any edit the machine has seen in the store, so an
/// edit made after seeing another is ordered after it on every machine; two edits made without seeing each other are
/// ordered by the machine's id.
struct MemoEditRecord: Codable, Equatable {
    /// What an edit may set.
    enum Field: String, Codable, CaseIterable {
        case title, createdAt, artist, album, comment, markers
        /// The audio file changed (a recording finished, a trim, an undo): its facts are read again from it.
        case audio
        /// The memo was deleted (``MemoEditRecord/deleted`` true) or brought back (false).
        case deleted
    }

    /// Which edit came last: the higher clock, then the higher machine id.
    struct Stamp: Comparable, Hashable {
        var clock: Int
        var machine: String

        static func < (lhs: Stamp, rhs: Stamp) -> Bool {
            (lhs.clock, lhs.machine) < (rhs.clock, rhs.machine)
        }
    }

    var id: String
    var clock: Int
    var machine: String
    /// When the edit was made, by the machine's wall clock: for people only, never for ordering.
    var madeAt: Date
    /// What this edit sets; a field it does not name is left as the other edits have it.
    var fields: [Field]
    var title: String?
    var createdAt: Date?
    var artist: String?
    var album: String?
    var comment: String?
    var markers: [AudioMarker]?
    var deleted: Bool?
    /// What the audio file is once whole, with ``Field/audio`` (none in an edit of the voicememo before this one):
    /// where the file is not that yet, a sync tool is still bringing it (see ``Memo/State/syncing``).
    var audio: Audio?

    /// An audio file's facts, as an edit records them.
    struct Audio: Codable, Equatable {
        var fileName: String
        var sizeBytes: Int64
        /// Seconds.
        var duration: Double
        var sampleRate: Double
        var channels: Int
    }

    var stamp: Stamp { Stamp(clock: clock, machine: machine) }

    /// The edit of `memo` that sets `fields` to its values.
    init(of memo: Memo, fields: [Field], deleted: Bool? = nil, clock: Int, machine: String, madeAt: Date = Date()) {
        (id, self.clock, self.machine, self.madeAt) = (memo.id, clock, machine, madeAt)
        self.fields = Field.allCases.filter(fields.contains)
        let sets = Set(fields)
        if sets.contains(.title) { title = memo.title }
        if sets.contains(.createdAt) { createdAt = memo.createdAt }
        if sets.contains(.artist) { artist = memo.artist }
        if sets.contains(.album) { album = memo.album }
        if sets.contains(.comment) { comment = memo.comment }
        if sets.contains(.markers) { markers = memo.markers }
        if sets.contains(.deleted) { self.deleted = deleted ?? false }
        if sets.contains(.audio), deleted != true {
            audio = Audio(fileName: memo.fileName, sizeBytes: memo.sizeBytes, duration: memo.duration, sampleRate: memo.sampleRate, channels: memo.channels)
        }
    }

    /// Its file's name in the store.
    var fileName: String { Self.fileName(id: id, clock: clock, machine: machine) }

    static func fileName(id: String, clock: Int, machine: String) -> String {
        "\(id).\(clock)-\(machine).\(fileExtension)"
    }

    static let fileExtension = "change"

    /// The id, clock and machine an change file's name gives, or nil when `name` is no change file's: exactly
    /// `<12 hex digits>.<decimal clock>-<16 hex digits>.change`, so that a sync tool's temporary or partial file
    /// (`.syncthing.….tmp`, `….~tmp~`, rsync's `.….XXXXXX`) is never taken for one.
    static func parse(fileName name: String) -> (id: String, stamp: Stamp)? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == fileExtension, parts[0].count == 12, parts[0].allSatisfy(isLowerHex) else { return nil }
        let stamp = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard stamp.count == 2, !stamp[0].isEmpty, stamp[0].count <= 18, stamp[0].allSatisfy(\.isASCIIDigit),
              let clock = Int(stamp[0]), isMachineID(stamp[1])
        else { return nil }
        return (String(parts[0]), Stamp(clock: clock, machine: String(stamp[1])))
    }

    /// Whether `text` is a machine id: 16 lowercase hexadecimal digits.
    static func isMachineID(_ text: some StringProtocol) -> Bool {
        text.count == 16 && text.allSatisfy(isLowerHex)
    }

    private static func isLowerHex(_ character: Character) -> Bool {
        character.isASCIIDigit || ("a"..."f").contains(character)
    }

    /// The name of the file a Syncthing conflict copy `name` is a copy of, when it is one of an change file:
    /// `<name>.sync-conflict-<date>-<time>-<device>.<extension>` for `<name>.<extension>`.
    static func original(ofConflictCopy name: String) -> String? {
        guard let marker = name.firstRange(of: ".sync-conflict-") else { return nil }
        let rest = name[marker.upperBound...]
        guard let dot = rest.lastIndex(of: ".") else { return nil }
        let original = String(name[..<marker.lowerBound] + rest[dot...])
        return parse(fileName: original) != nil ? original : nil
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        // Sorted keys: two machines that write one edit write the same bytes.
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// The edit in the file at `path`, when it is one and agrees with its name.
    static func read(at path: String, named name: String) -> MemoEditRecord? {
        guard let parsed = parse(fileName: name), let bytes = try? DurableFile.contents(of: path),
              let record = try? MemoIndex.decoder.decode(MemoEditRecord.self, from: Data(bytes)),
              record.id == parsed.id, record.stamp == parsed.stamp
        else { return nil }
        return record
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
