/// The decoder's side of a voice's ``Voice/fileLevels``: the levels of each channel of the file being played,
/// measured on the file's own frames (before the channel map, resampling and time-stretching), handed on in
/// records tagged with where in the file they end, so that a player's meters can follow what is heard rather
/// than what the decoder has read (up to a ring ahead).
///
/// A record is ``headerLength`` values — the file's channel count, the voice's item (a queue's file, a loop's
/// pass), the file time in seconds of its last frame — followed by a ``LevelAccumulator`` record. When the
/// ring has no room, the levels add up until it has: nothing is lost, only later.
///
/// **Threads**: the decoder thread only.
struct FileLevelRecords {
    static let headerLength = 3

    private var meter: LevelAccumulator
    /// Where a record is put together; allocated with the meter, for its channel count.
    private var record: [Double]

    init(channelCount: Int) {
        meter = LevelAccumulator(channelCount: channelCount)
        record = Array(repeating: 0, count: Self.headerLength + meter.recordLength)
    }

    /// Measures `frames` (interleaved, the file's `channelCount` channels) that end `endTime` seconds into item
    /// `item`, and hands the levels so far to `ring` if it has room.
    mutating func add(
        _ frames: UnsafeBufferPointer<Float>, channelCount: Int, item: Int, endTime: Double, to ring: SPSCRing<Double>
    ) {
        if channelCount != meter.channelCount {
            // Another file of a queue: what is pending of the last one was heard before it, and is dropped.
            self = FileLevelRecords(channelCount: channelCount)
        }
        meter.add(frames)
        guard ring.availableToWrite >= record.count else { return }
        record.withUnsafeMutableBufferPointer { record in
            record[0] = Double(channelCount)
            record[1] = Double(item)
            record[2] = endTime
            meter.write(into: UnsafeMutableBufferPointer(rebasing: record[Self.headerLength...]))
            ring.write(UnsafeBufferPointer(record))
        }
        meter.reset()
    }
}
