import COgg

/// One Ogg page as libogg framed it (RFC 3533): its header and body, checked by their CRC when read, and where
/// it lies in its file. Its fields are read through libogg's `ogg_page_*` calls.
struct OggPage: Equatable, Sendable {
    /// The page's bytes: header, then body.
    let bytes: [UInt8]
    /// How many of ``bytes`` are the header.
    let headerLength: Int
    /// The page's first byte in its file; `nil` for a page not read from one.
    let offset: Int64?

    /// The page libogg filled in `page` (which points into libogg's own buffers: copied here).
    init(_ page: ogg_page, offset: Int64?) {
        bytes = Array(UnsafeBufferPointer(start: page.header, count: page.header_len))
            + Array(UnsafeBufferPointer(start: page.body, count: page.body_len))
        headerLength = page.header_len
        self.offset = offset
    }

    /// The byte just past the page in its file.
    var end: Int64? { offset.map { $0 + Int64(bytes.count) } }

    /// The logical stream the page belongs to. The corresponding C function is `ogg_page_serialno`.
    var serialNumber: Int32 { withPage { Int32(truncatingIfNeeded: ogg_page_serialno($0)) } }

    /// The page's number in its stream, from 0. The corresponding C function is `ogg_page_pageno`.
    var sequenceNumber: Int { withPage { Int(ogg_page_pageno($0)) } }

    /// The codec's position at the end of the last packet completed on the page (for Opus, 48 kHz samples
    /// including the pre-skip); -1 when no packet ends on it. The corresponding C function is
    /// `ogg_page_granulepos`.
    var granulePosition: Int64 { withPage { ogg_page_granulepos($0) } }

    /// The first page of its stream. The corresponding C function is `ogg_page_bos`.
    var isBeginningOfStream: Bool { withPage { ogg_page_bos($0) != 0 } }

    /// The last page of its stream. The corresponding C function is `ogg_page_eos`.
    var isEndOfStream: Bool { withPage { ogg_page_eos($0) != 0 } }

    /// Whether the page begins with the rest of a packet from the page before. The corresponding C function is
    /// `ogg_page_continued`.
    var isContinued: Bool { withPage { ogg_page_continued($0) != 0 } }

    /// Runs `body` with the page as libogg's `ogg_page`, pointing into ``bytes``.
    func withPage<T>(_ body: (UnsafePointer<ogg_page>) -> T) -> T {
        bytes.withUnsafeBufferPointer { bytes in
            let base = UnsafeMutablePointer(mutating: bytes.baseAddress!)
            var page = ogg_page(
                header: base, header_len: headerLength, body: base + headerLength, body_len: bytes.count - headerLength)
            return body(&page)
        }
    }
}

/// One packet of a logical Ogg stream: a codec's unit (for Opus, a header or an audio packet).
struct OggPacket: Equatable, Sendable {
    /// The packet's bytes.
    var data: [UInt8]
    /// The codec's position at the end of this packet, or -1 when the stream does not say (only the last packet
    /// completed on a page carries it).
    var granulePosition: Int64
    /// The stream's first packet.
    var isBeginningOfStream = false
    /// The stream's last packet.
    var isEndOfStream = false
}
