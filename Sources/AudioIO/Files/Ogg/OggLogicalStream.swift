import COgg

/// Why libogg refused a page or a packet.
enum OggStreamError: Error, Equatable, CustomStringConvertible {
    /// A page of another logical stream, or of an Ogg version libogg does not know, was given to this stream.
    case foreignPage
    /// Pages are missing between two that were given: packets were lost.
    case missingPages
    /// libogg could not allocate what it needed.
    case outOfMemory

    var description: String {
        switch self {
        case .foreignPage: "a page of another stream"
        case .missingPages: "pages are missing"
        case .outOfMemory: "out of memory"
        }
    }
}

/// One logical Ogg stream through libogg's stream layer (`ogg_stream_*`): pages in and packets out when reading,
/// packets in and pages out when writing. libogg does all the framing: lacing, page boundaries, sequence numbers
/// and CRCs.
///
/// **Not thread-safe**: one thread at a time.
final class OggLogicalStream {
    /// The stream's serial number, which every one of its pages carries.
    let serialNumber: Int32
    private let state: UnsafeMutablePointer<ogg_stream_state>

    /// A stream with `serialNumber`. Read, it takes its first page wherever that is in the stream; written, its
    /// first page gets `firstSequenceNumber` (0 for a whole stream; the number of the page a rewrite starts at, to
    /// write the rest of one).
    ///
    /// The corresponding C functions are `ogg_stream_init` and `ogg_stream_reset`.
    init(serialNumber: Int32, firstSequenceNumber: Int? = nil) throws(OggStreamError) {
        self.serialNumber = serialNumber
        state = .allocate(capacity: 1)
        guard ogg_stream_init(state, serialNumber) == 0 else {
            state.deallocate()
            throw .outOfMemory
        }
        if let firstSequenceNumber {
            state.pointee.pageno = firstSequenceNumber
            // Past the first page, libogg must not make the next one the stream's beginning: that page holds the
            // first packet alone and carries the beginning-of-stream flag.
            if firstSequenceNumber > 0 { state.pointee.b_o_s = 1 }
        } else {
            // No page is expected first: reading may start in the middle of a stream.
            ogg_stream_reset(state)
        }
    }

    deinit {
        ogg_stream_clear(state)
        state.deallocate()
    }

    // MARK: Reading

    /// Takes in `page`, whose packets ``nextPacket()`` then returns.
    ///
    /// The corresponding C function is `ogg_stream_pagein`.
    func add(_ page: OggPage) throws(OggStreamError) {
        let result = page.withPage { ogg_stream_pagein(state, UnsafeMutablePointer(mutating: $0)) }
        if result != 0 { throw .foreignPage }
    }

    /// The next packet completed by the pages taken in, or `nil` when there is none yet.
    ///
    /// The corresponding C function is `ogg_stream_packetout`.
    ///
    /// - Throws: ``OggStreamError/missingPages`` when pages were missing before it (the packet after the gap
    ///   comes next).
    func nextPacket() throws(OggStreamError) -> OggPacket? {
        var packet = ogg_packet()
        switch ogg_stream_packetout(state, &packet) {
        case 1:
            return OggPacket(
                data: Array(UnsafeBufferPointer(start: packet.packet, count: packet.bytes)),
                granulePosition: packet.granulepos, isBeginningOfStream: packet.b_o_s != 0,
                isEndOfStream: packet.e_o_s != 0)
        case 0: return nil
        default: throw .missingPages
        }
    }

    // MARK: Writing

    /// Queues `packet` for the pages ``flush()`` returns.
    ///
    /// The corresponding C function is `ogg_stream_packetin`.
    func add(_ packet: OggPacket) throws(OggStreamError) {
        var packet = packet
        let result = packet.data.withUnsafeMutableBufferPointer { data in
            var raw = ogg_packet(
                packet: data.baseAddress, bytes: data.count, b_o_s: packet.isBeginningOfStream ? 1 : 0,
                e_o_s: packet.isEndOfStream ? 1 : 0, granulepos: packet.granulePosition, packetno: 0)
            return ogg_stream_packetin(state, &raw)
        }
        if result != 0 { throw .outOfMemory }
    }

    /// Every packet queued, as pages: as few as libogg's limits allow (255 lacing values a page), the last
    /// ending with the last packet queued.
    ///
    /// The corresponding C function is `ogg_stream_flush`.
    func flush() -> [OggPage] {
        var pages: [OggPage] = []
        var page = ogg_page()
        while ogg_stream_flush(state, &page) != 0 { pages.append(OggPage(page, offset: nil)) }
        return pages
    }
}
