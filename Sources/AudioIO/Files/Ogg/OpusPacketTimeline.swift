/// Where each audio packet of an Ogg Opus stream lies, told page by page as the packets come: in 48 kHz samples
/// counted as granule positions are, the pre-skip included (RFC 7845 §4).
///
/// Only a page's last packet carries a position. The others are counted on from where the page before ended, by
/// their durations. The stream's last page may end short of its packets (end trimming, §4.5): its packets are
/// still counted on from the page before, and its last ends where the page says. So an end-trimmed stream keeps
/// the trim on its last packet, where every reader looks for it; counted back from the last page's position, the
/// trim would move onto every packet of that page and earlier pages would seem to end short, which libsndfile
/// refuses as malformed. The first audio page has no page before: its packets are counted back from its own
/// position, and never to before 0: a first page that is also the last and ends short of its packets is
/// end-trimmed, not started early.
struct OpusPacketTimeline {
    /// An audio packet and where it lies.
    struct Placed {
        /// The packet, its granule position where it ends (past end trimming, for the stream's last packet).
        var packet: OggPacket
        /// The granule position where it begins: where the packet before ended.
        let start: Int64
    }

    /// Where the last packet placed ends; `nil` before the first audio page.
    private(set) var end: Int64?

    /// A timeline that goes on from `end`, where the page before the first one it is given ended (`nil` when that
    /// one is the stream's first audio page).
    init(after end: Int64? = nil) {
        self.end = end
    }

    /// The packets completed on one page, each placed; `nil` when the page carries no position or a packet's
    /// duration cannot be told (it is no valid Opus packet), and then the timeline is where it was.
    mutating func place(_ packets: [OggPacket]) -> [Placed]? {
        guard let last = packets.last, last.granulePosition >= 0 else { return nil }
        var durations: [Int64] = []
        for packet in packets {
            guard let duration = OpusLibrary.sampleCount(ofPacket: packet.data) else { return nil }
            durations.append(Int64(duration))
        }
        var position = end ?? max(0, last.granulePosition - durations.reduce(0, +))
        var placed: [Placed] = []
        for (index, (packet, duration)) in zip(packets, durations).enumerated() {
            var packet = packet
            let start = position
            position = index == packets.count - 1 ? last.granulePosition : min(start + duration, last.granulePosition)
            packet.granulePosition = position
            placed.append(Placed(packet: packet, start: start))
        }
        end = position
        return placed
    }
}
