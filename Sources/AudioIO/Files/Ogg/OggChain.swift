import FoundationEssentials
import SystemPackage

/// The links of a chained Ogg file (RFC 3533 §4): whole logical streams one after another, as `cat a.opus b.opus`
/// makes. libsndfile reads only a file's first link; each link on its own is a whole file it reads.
enum OggChain {
    /// A chain of more links than ``maximumLinkCount``: each is a file open while the chain is read.
    struct TooManyLinks: Error {
        let count: Int
    }

    /// The most links a chain is read with: far more than a person chains, few enough to keep a file open for each.
    static let maximumLinkCount = 256

    /// Each link of the Ogg file on `descriptor` as a file of its own (its pages byte for byte, in unlinked temporary
    /// files; one link is held in memory at a time), or an empty array when the file is not a chain of two or more links (one stream, streams
    /// interleaved, or no Ogg at all).
    ///
    /// - Throws: `Errno` when the file cannot be read, ``TooManyLinks``, ``AudioFileError`` when a temporary file cannot
    ///   be written.
    static func links(of descriptor: FileDescriptor) throws -> [AnonymousFile] {
        // Counted first: a file of one stream is not held in memory for nothing.
        let count = try forEachPage(of: descriptor) { _, _ in }
        guard count > 1 else { return [] }
        guard count <= maximumLinkCount else { throw TooManyLinks(count: count) }
        var links: [AnonymousFile] = []
        var bytes: [UInt8] = []
        _ = try forEachPage(of: descriptor) { page, beginsLink in
            if beginsLink, !bytes.isEmpty {
                links.append(try AnonymousFile(Data(bytes)))
                bytes = []
            }
            bytes += page.bytes
        }
        if !bytes.isEmpty { links.append(try AnonymousFile(Data(bytes))) }
        return links
    }

    /// Calls `body` with every whole page of the file and whether it begins a link (a stream beginning when no other
    /// is open); returns how many links there are. Interleaved streams (a second beginning before the first ends)
    /// belong to one link.
    private static func forEachPage(of descriptor: FileDescriptor, _ body: (OggPage, Bool) throws -> Void) throws -> Int {
        let reader = OggPageReader(descriptor: descriptor)
        var count = 0
        var open: Set<Int32> = []
        while true {
            switch try reader.next() {
            case .page(let page):
                let beginsLink = page.isBeginningOfStream && open.isEmpty
                if beginsLink { count += 1 }
                if page.isBeginningOfStream { open.insert(page.serialNumber) }
                if page.isEndOfStream { open.remove(page.serialNumber) }
                try body(page, beginsLink)
            case .damaged:
                continue
            case .end:
                return count
            }
        }
    }
}
