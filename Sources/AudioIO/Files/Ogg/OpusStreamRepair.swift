import SystemEdge
import SystemPackage

/// Closes an Ogg Opus stream that was cut short: decides which pages to keep and which to write again; libogg
/// (``OggPageReader``, ``OggLogicalStream``) does the framing.
///
/// Every whole page up to the last one that starts with a whole packet stays byte for byte. From that page on,
/// the packets completed by the whole pages are written again as pages of the same stream, numbered on from
/// there, each packet with its granule position (an Opus packet's own duration tells those the pages did not
/// carry), the last one ending the stream. What followed (a torn page, zeros a power cut left, a packet whose
/// end never reached the disk) is cut off.
struct OpusStreamRepair {
    /// Why a file cannot be repaired this way.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A page of the last logical stream, as far as the decision needs it.
    private struct PageFacts {
        var offset: Int64
        var sequenceNumber: Int
        var granulePosition: Int64
        var isContinued: Bool
    }

    let descriptor: FileDescriptor

    func repair() throws -> CutRecordingRepair {
        guard let (pages, serialNumber, isClosed, end) = try survey() else { return .noAudio }
        if isClosed { return .intact }
        // Opus header pages have granule position 0 (RFC 7845 §5.2), and the first audio page starts with a whole
        // packet: every page from there on that is not continued is a place to write from.
        let starts = pages.indices.filter { pages[$0].granulePosition != 0 && !pages[$0].isContinued }
        for start in starts.reversed() {
            // Audio pages end where they say; the header pages before the first one carry 0.
            let previousEnd = start > 0 && pages[start - 1].granulePosition > 0 ? pages[start - 1].granulePosition : nil
            let groups = try packets(from: pages[start].offset, after: previousEnd, serialNumber: serialNumber)
            guard groups.contains(where: { !$0.isEmpty }) else { continue }
            let written = try rewrite(groups, at: pages[start], serialNumber: serialNumber)
            return .repaired(droppedByteCount: end - written)
        }
        return .noAudio
    }

    /// The whole pages of the file's last logical stream, its serial number, whether it is whole and closed (ends
    /// with its end-of-stream page and nothing after it), and the file's size; `nil` when the file was cut before
    /// its first page was whole.
    private func survey() throws -> (pages: [PageFacts], serialNumber: Int32, isClosed: Bool, end: Int64)? {
        let reader = OggPageReader(descriptor: descriptor)
        var pages: [PageFacts] = []
        var serialNumber: Int32?
        var isClosed = false
        var damageSeen = false
        while true {
            switch try reader.next() {
            case .page(let page):
                guard !damageSeen else { throw Failure(description: "it is damaged before its end") }
                // A chained file: the last stream is the one a recording was cut in.
                if page.isBeginningOfStream {
                    pages = []
                    serialNumber = page.serialNumber
                }
                guard page.serialNumber == serialNumber else {
                    throw Failure(description: "its pages do not begin a stream or interleave several")
                }
                isClosed = page.isEndOfStream
                pages.append(PageFacts(
                    offset: page.offset ?? 0, sequenceNumber: page.sequenceNumber, granulePosition: page.granulePosition,
                    isContinued: page.isContinued))
            case .damaged:
                guard serialNumber != nil else { throw Failure(description: "it is not an Ogg stream") }
                damageSeen = true
                isClosed = false
            case .end(let offset, let torn):
                guard let serialNumber else { return nil }
                return (pages, serialNumber, isClosed && torn == 0, offset + Int64(torn))
            }
        }
    }

    /// The packets completed by the whole pages from `offset` on, one group per page, each packet with its
    /// granule position where it can be told; `previousEnd` is where the page before `offset` ended (`nil` when
    /// the page at `offset` is the first audio page).
    private func packets(from offset: Int64, after previousEnd: Int64?, serialNumber: Int32) throws -> [[OggPacket]] {
        let reader = OggPageReader(descriptor: descriptor, offset: offset)
        let stream = try OggLogicalStream(serialNumber: serialNumber)
        var timeline = OpusPacketTimeline(after: previousEnd)
        var groups: [[OggPacket]] = []
        while case .page(let page) = try reader.next() {
            try stream.add(page)
            var group: [OggPacket] = []
            while let packet = try stream.nextPacket() { group.append(packet) }
            groups.append(timeline.place(group)?.map(\.packet) ?? group)
        }
        return groups
    }

    /// Writes `groups` as the pages of the stream from `start` on, the last packet ending the stream, and cuts the
    /// file after them; returns the file's new size.
    private func rewrite(_ groups: [[OggPacket]], at start: PageFacts, serialNumber: Int32) throws -> Int64 {
        let stream = try OggLogicalStream(serialNumber: serialNumber, firstSequenceNumber: start.sequenceNumber)
        let kept = groups.filter { !$0.isEmpty }
        var bytes: [UInt8] = []
        for (number, group) in kept.enumerated() {
            for (index, packet) in group.enumerated() {
                var packet = packet
                packet.isEndOfStream = number == kept.count - 1 && index == group.count - 1
                try stream.add(packet)
            }
            // One page (or more, past libogg's 255 lacing values) for each page read: the same boundaries.
            for page in stream.flush() { bytes += page.bytes }
        }
        _ = try descriptor.writeAll(toAbsoluteOffset: start.offset, bytes)
        let end = start.offset + Int64(bytes.count)
        try descriptor.resize(to: end)
        try descriptor.sync()
        return end
    }
}
