import AudioIO
import SystemEdge
import SystemPackage

/// `memos.journal`: the changes to the index since `memos.json` was last written whole, appended one record per
/// memo, so that a change to one memo costs the same in a store of 50,000 as in one of 10.
///
/// The journal belongs to one `memos.json`: it starts with that file's generation (a random number the index
/// carries), and a journal of another generation is ignored (the index it belonged to was replaced). Every record
/// carries its length and a checksum: a record a crash tore is where the journal ends, and the next writer cuts it
/// off before it appends. Once the journal holds enough records, the store writes `memos.json` whole again, with a
/// new generation, and starts a new journal (see ``MemoIndex``).
///
/// The layout, in the machine's byte order: the magic, the generation; then records of a 32-bit length of the
/// payload, a 32-bit kind (4: a memo put in, replacing the one with its id or appended; 3: the same without its count
/// of non-finite samples, written while it is 0; 1: the same, written by schema 2, a memo without its loudness, tags
/// and markers, still read; 2: the memo with an id taken out), a 64-bit FNV-1a
/// checksum of the payload, and the payload (a memo as ``MemoRecordWriter`` writes it, or an id).
enum MemoJournal {
    /// The journal's name beside the index.
    static let fileName = "memos.journal"

    /// "VMJRNL" and the layout's version.
    private static let magic: UInt64 = 0x0131_4C4E_524A_4D56

    /// One change to the index.
    enum Change: Equatable {
        /// The memo, in place of the one with its id, or after the others when there is none.
        case put(Memo)
        /// The memo with this id is gone.
        case remove(id: String)
    }

    /// What the journal beside an index of some generation holds.
    struct Contents {
        var changes: [Change] = []
        /// The bytes up to the end of the last whole record: where the next record goes.
        var length: Int64
    }

    /// What reading the journal at `path` for the index of `generation` found.
    enum Read {
        /// There is no journal: nothing has changed since the index was written.
        case missing
        /// The journal belongs to another generation of the index.
        case otherGeneration
        case contents(Contents)
    }

    /// The bytes before the first record.
    static let headerLength = 16
    private static let recordHeaderLength = 16

    /// The journal at `path`, if it belongs to the index of `generation`.
    static func read(at path: String, generation: UInt64) -> Read {
        guard let bytes = try? DurableFile.contents(of: path) else { return .missing }
        return bytes.withUnsafeBytes { bytes -> Read in
            var reader = MemoRecordReader(bytes: bytes)
            guard reader.word() == magic, let found = reader.word() else { return .otherGeneration }
            guard found == generation else { return .otherGeneration }
            var contents = Contents(length: Int64(headerLength))
            while bytes.count - reader.offset >= recordHeaderLength {
                let start = reader.offset
                let length = Int(bytes.loadUnaligned(fromByteOffset: start, as: UInt32.self))
                let kind = bytes.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self)
                let checksum = bytes.loadUnaligned(fromByteOffset: start + 8, as: UInt64.self)
                let payloadStart = start + recordHeaderLength
                guard bytes.count - payloadStart >= length else { break }
                let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<(payloadStart + length)])
                guard MemoRecordWriter.checksum(of: payload) == checksum else { break }
                var record = MemoRecordReader(bytes: payload)
                switch kind {
                case 1, 3, 4:
                    let layout: MemoRecordLayout = kind == 1 ? .schema2 : kind == 3 ? .schema3 : .current
                    guard let memo = record.memo(layout: layout), record.offset == length
                    else { return .contents(contents) }
                    contents.changes.append(.put(memo))
                case 2:
                    guard let id = record.text(), record.offset == length else { return .contents(contents) }
                    contents.changes.append(.remove(id: id))
                default:
                    return .contents(contents)
                }
                reader.offset = payloadStart + length
                contents.length = Int64(reader.offset)
            }
            return .contents(contents)
        }
    }

    /// Starts the journal of the index of `generation` at `path`, empty, in place of any other (atomically, synced).
    static func start(at path: String, generation: UInt64) throws {
        var header = MemoRecordWriter()
        header.append(magic)
        header.append(generation)
        try DurableFile.write(header.bytes, replacing: path, permissions: [.ownerReadWrite], syncing: true)
    }

    /// Appends `changes` to the journal at `path` after its first `length` bytes (cutting off a torn record there),
    /// and waits until they are on the disk; returns the journal's length then.
    @discardableResult
    static func append(_ changes: [Change], at path: String, after length: Int64) throws(Errno) -> Int64 {
        var records = MemoRecordWriter()
        for change in changes {
            var payload = MemoRecordWriter()
            let kind: UInt32
            switch change {
            case .put(let memo):
                // Kind 3 while there is no count of non-finite samples to keep: what an older voicememo reads too.
                let layout: MemoRecordLayout = memo.nonFiniteSampleCount > 0 ? .current : .schema3
                payload.append(memo, layout: layout)
                kind = layout == .current ? 4 : 3
            case .remove(let id):
                payload.append(id)
                kind = 2
            }
            withUnsafeBytes(of: UInt32(payload.bytes.count)) { records.bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: kind) { records.bytes.append(contentsOf: $0) }
            records.append(payload.bytes.withUnsafeBytes { MemoRecordWriter.checksum(of: $0) })
            records.bytes += payload.bytes
        }
        let descriptor: FileDescriptor
        do {
            // Not through a link: the journal is written only where the store is.
            descriptor = try FileDescriptor.open(path, .writeOnly, options: [.noFollow, .closeOnExec])
        } catch {
            throw error as? Errno ?? .ioError
        }
        defer { try? descriptor.close() }
        do {
            try descriptor.resize(to: length)
            _ = try descriptor.writeAll(toAbsoluteOffset: length, records.bytes)
        } catch {
            throw error as? Errno ?? .ioError
        }
        try descriptor.sync()
        return length + Int64(records.bytes.count)
    }

    /// `memos` with `changes` made to them, in order.
    static func apply(_ changes: [Change], to memos: inout [Memo]) {
        guard !changes.isEmpty else { return }
        // What each memo changed to last (nil: removed), and the memos new to the index in the order they came:
        // one look along the memos then makes every change, with a table of the changes alone.
        var last: [String: Memo?] = [:]
        var order: [String] = []
        for change in changes {
            switch change {
            case .put(let memo):
                if last.updateValue(memo, forKey: memo.id) == nil { order.append(memo.id) }
            case .remove(let id):
                if last.updateValue(nil, forKey: id) == nil { order.append(id) }
            }
        }
        var removed: [Int] = []
        for position in memos.indices {
            guard let change = last.removeValue(forKey: memos[position].id) else { continue }
            if let memo = change { memos[position] = memo } else { removed.append(position) }
        }
        if !removed.isEmpty { memos.removeSubranges(RangeSet(removed, within: memos)) }
        for id in order { if case let memo?? = last[id] { memos.append(memo) } }
    }
}
