/// The body of an Icecast or SHOUTcast stream asked for with `Icy-MetaData: 1`, taken apart: every `icy-metaint`
/// bytes of audio, one length byte (× 16) and that many bytes of metadata (`StreamTitle='…';StreamUrl='…';`, padded
/// with NULs). The pieces may split anywhere across the chunks the network gives.
struct IcyDemultiplexer {
    /// Audio bytes between two metadata blocks, as `icy-metaint` says.
    let interval: Int
    private var state: State
    private var block: [UInt8] = []

    private enum State {
        case audio(left: Int)
        case length
        case metadata(left: Int)
    }

    /// A demultiplexer of a body whose `icy-metaint` is `interval` (at least 1).
    init(interval: Int) {
        self.interval = interval
        state = .audio(left: interval)
    }

    /// Splits `bytes`, the next chunk of the body: hands `audio` each run of audio bytes, and `metadata` each
    /// metadata block once it is whole (an empty block, which says nothing changed, is not handed over).
    mutating func split(_ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) -> Void, metadata: ([UInt8]) -> Void) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .audio(let left):
                let count = min(left, bytes.count - index)
                audio(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)]))
                index += count
                state = left == count ? .length : .audio(left: left - count)
            case .length:
                let length = Int(bytes[index]) * 16
                index += 1
                state = length == 0 ? .audio(left: interval) : .metadata(left: length)
            case .metadata(let left):
                let count = min(left, bytes.count - index)
                block.append(contentsOf: bytes[index..<(index + count)])
                index += count
                if left == count {
                    metadata(block)
                    block.removeAll(keepingCapacity: true)
                    state = .audio(left: interval)
                } else {
                    state = .metadata(left: left - count)
                }
            }
        }
    }
}

/// What one ICY metadata block says: the title the station gives for what plays now, and its link.
struct IcyMetadata: Equatable {
    /// `StreamTitle`, e.g. "Artist - Song"; nil when the block has none.
    var title: String?
    /// `StreamUrl`, when the block has one and it is not empty.
    var url: String?

    /// The fields of `block`. Values are quoted with `'` and not escaped, so a value ends at the first `';` followed by
    /// another field or the end. UTF-8, else Latin-1 (older servers); control characters are dropped.
    init(block: [UInt8]) {
        let bytes = block.prefix { $0 != 0 }
        // Latin-1's bytes are the first 256 code points, as UTF-16 units.
        let text = String(validating: bytes, as: UTF8.self) ?? String(decoding: bytes.map(UInt16.init), as: UTF16.self)
        let fields = Self.fields(of: Substring(text))
        title = fields["StreamTitle"].map(Self.cleaned)
        url = fields["StreamUrl"].map(Self.cleaned).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `name='value';` pairs. A value's end is the `';` after which comes the end or the next `name='`: a title may
    /// hold `';` itself ("Rock 'n' Roll';" is one value).
    private static func fields(of text: Substring) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = text
        while let open = rest.firstRange(of: "='") {
            let name = String(rest[..<open.lowerBound].drop { $0 == " " || $0 == ";" })
            let value = rest[open.upperBound...]
            var search = value.startIndex
            var end: (value: Substring.Index, next: Substring.Index)?
            while end == nil, let close = value[search...].firstRange(of: "';") {
                let after = value[close.upperBound...]
                let nextName = after.firstRange(of: "='").map { after[..<$0.lowerBound] }
                if after.allSatisfy({ $0 == " " }) || nextName?.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) == true {
                    end = (close.lowerBound, close.upperBound)
                }
                search = close.upperBound
            }
            // A last value without its `;`: up to its closing quote.
            let last = value.hasSuffix("'") ? value.index(before: value.endIndex) : value.endIndex
            fields[name] = String(value[..<(end?.value ?? last)])
            rest = value[(end?.next ?? value.endIndex)...]
        }
        return fields
    }

    /// `value` without control characters (a terminal shows the title) and outer spaces.
    private static func cleaned(_ value: String) -> String {
        let kept = String(String.UnicodeScalarView(value.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return String(kept.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
