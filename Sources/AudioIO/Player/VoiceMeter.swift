/// A player's side of its voice's meters: takes the file levels (``FileLevelRecords``) the render thread has
/// mixed past, with the gains it mixed them with (``LevelRecord``), and makes the levels the player reports.
///
/// They are the levels of the file's channels, after volume (fades included). Pan shows in a channel heard on one
/// side of a stereo device only — a stereo file's two, the left and right ones (and their surrounds) of a 5.1
/// file — and not in one heard on both or neither (mono, a centre, the LFE). Over a fade the average is the
/// file's times the fade's RMS gain, and the peak the file's times the largest gain.
///
/// **Threads**: the consumer of a voice's ``Voice/levels`` and ``Voice/fileLevels``: one thread at a time (under
/// the player's lock).
struct VoiceMeter {
    /// The voice read last: a new one (a seek, a new item) starts over.
    private var voice: ObjectIdentifier?
    /// The last record taken from the ring; ``isHeld`` when it has not been heard yet. Kept between calls, so that
    /// taking a record allocates nothing once it has the size of the file's records.
    private var record: [Double] = []
    private var isHeld = false
    /// The last gains known, by ``LevelRecord`` index (volume, left, right): peak and RMS.
    private var gains = ((peak: 1.0, average: 1.0), (peak: 1.0, average: 1.0), (peak: 1.0, average: 1.0))

    /// The levels of what was heard of `voice` since the last call, up to `position` seconds into its item, for each
    /// channel of its file (`fileChannels` when nothing was).
    mutating func take(from voice: Voice, fileChannels: Int, heardUpTo position: Double) -> AudioLevels {
        if self.voice != ObjectIdentifier(voice) { self = VoiceMeter(voice: ObjectIdentifier(voice)) }
        var mixed = LevelRecord.empty
        while let record = voice.levels.pop() { mixed.merge(record) }
        if mixed.frames > 0 {
            let frames = Double(mixed.frames)
            gains = (
                (Double(mixed.peak.0), (mixed.squareSum.0 / frames).squareRoot()),
                (Double(mixed.peak.1), (mixed.squareSum.1 / frames).squareRoot()),
                (Double(mixed.peak.2), (mixed.squareSum.2 / frames).squareRoot())
            )
        }
        var heard: LevelAccumulator?
        let isFinished = voice.hasFinished.load(ordering: .acquiring)
        let item = voice.currentItem.load(ordering: .acquiring)
        while isHeld || takeRecord(from: voice.fileLevels) {
            let (channels, recordItem, endTime) = (Int(record[0]), Int(record[1]), record[2])
            guard isFinished || recordItem < item || (recordItem == item && endTime <= position) else {
                isHeld = true
                break
            }
            isHeld = false
            if heard?.channelCount != channels { heard = LevelAccumulator(channelCount: channels) }
            record.withUnsafeBufferPointer { heard?.merge(UnsafeBufferPointer(rebasing: $0[FileLevelRecords.headerLength...])) }
        }
        let levels = heard ?? LevelAccumulator(channelCount: fileChannels)
        let map = ChannelMap(from: levels.channelCount, to: voice.channelCount)
        return levels.levels { channel in
            switch voice.channelCount >= 2 ? map?.side(ofInput: channel) : nil {
            case .left: gains.1
            case .right: gains.2
            case nil: gains.0
            }
        }
    }

    private init(voice: ObjectIdentifier) {
        self.voice = voice
    }

    init() {}

    /// Reads the next whole record of `ring` into ``record``; false when there is none.
    private mutating func takeRecord(from ring: SPSCRing<Double>) -> Bool {
        // The decoder writes a record whole: its first value, the channel count, says how long it is.
        guard let channels = ring.peek().map(Int.init) else { return false }
        let length = FileLevelRecords.headerLength + 1 + 2 * channels
        if record.count != length { record = [Double](repeating: 0, count: length) }
        record.withUnsafeMutableBufferPointer { _ = ring.read(into: $0) }
        return true
    }
}
