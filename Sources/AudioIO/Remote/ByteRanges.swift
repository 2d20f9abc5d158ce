/// A set of byte offsets of a file, as sorted, disjoint, non-adjacent half-open ranges: what of a remote file is
/// downloaded.
struct ByteRanges: Equatable, Sendable, Codable {
    /// The ranges, sorted, none empty, none touching the next.
    private(set) var ranges: [Range<Int64>] = []

    init() {}

    init(_ ranges: [Range<Int64>]) {
        for range in ranges { insert(range) }
    }

    /// Bytes in the set.
    var byteCount: Int64 { ranges.reduce(0) { $0 + Int64($1.count) } }

    var isEmpty: Bool { ranges.isEmpty }

    /// Adds `range`, merging it with the ranges it overlaps or touches.
    mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var merged = range
        // The first range that ends at or after the new one's start: everything before it stays.
        let first = ranges.partitioningIndex { $0.upperBound >= range.lowerBound }
        var last = first
        while last < ranges.count, ranges[last].lowerBound <= range.upperBound {
            merged = min(merged.lowerBound, ranges[last].lowerBound)..<max(merged.upperBound, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [merged])
    }

    /// Adds every range of `other`.
    mutating func formUnion(_ other: ByteRanges) {
        for range in other.ranges { insert(range) }
    }

    /// Whether `offset` is in the set.
    func contains(_ offset: Int64) -> Bool {
        let index = ranges.partitioningIndex { $0.upperBound > offset }
        return index < ranges.count && ranges[index].contains(offset)
    }

    /// Where the run of bytes in the set that holds `offset` ends; `offset` itself when it is not in the set.
    func end(ofRunAt offset: Int64) -> Int64 {
        let index = ranges.partitioningIndex { $0.upperBound > offset }
        guard index < ranges.count, ranges[index].contains(offset) else { return offset }
        return ranges[index].upperBound
    }

    /// The first stretch of `0..<length` at or after `offset` that is not in the set, up to the next byte that is.
    func firstGap(from offset: Int64, below length: Int64) -> Range<Int64>? {
        var start = max(offset, 0)
        let index = ranges.partitioningIndex { $0.upperBound > start }
        if index < ranges.count, ranges[index].contains(start) { start = ranges[index].upperBound }
        guard start < length else { return nil }
        let next = ranges.first { $0.lowerBound > start }?.lowerBound ?? length
        return start..<min(next, length)
    }

    /// Whether the set holds every byte of `0..<length`.
    func covers(length: Int64) -> Bool {
        length == 0 || ranges.first.map { $0.lowerBound <= 0 && $0.upperBound >= length } ?? false
    }

    // Coded as [[start, end], …]: the cache index stays readable.
    init(from decoder: any Decoder) throws {
        let pairs = try [[Int64]](from: decoder)
        self.init(pairs.compactMap { $0.count == 2 && $0[0] >= 0 && $0[0] <= $0[1] ? $0[0]..<$0[1] : nil })
    }

    func encode(to encoder: any Encoder) throws {
        try ranges.map { [$0.lowerBound, $0.upperBound] }.encode(to: encoder)
    }
}

extension Array {
    /// The first index whose element satisfies `belongsInSecondPartition`, for an array in which every element that
    /// does follows every one that does not (a binary search).
    func partitioningIndex(where belongsInSecondPartition: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongsInSecondPartition(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
