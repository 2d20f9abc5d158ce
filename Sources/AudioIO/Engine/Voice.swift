import Atomics

/// A stretch of audio in a voice's ring: how many frames, and where in the file they come from.
package struct PlaybackMarker: BitwiseCopyable {
    /// Frames of audio this marker covers, in the voice's ring, in order.
    var frames: Int
    /// Seconds into the file of its first frame.
    var fileTime: Double
    /// File seconds per device frame: the playback rate over the device rate.
    var secondsPerFrame: Double
    /// Which item of the voice the frames come from: a queue's file, or a loop's pass.
    var item: Int
    /// The end of the stream: no audio follows.
    var isEnd: Bool
    /// Seconds of the files left out as silence before its first frame, since the voice began.
    var skipped: Double

    /// A marker with every field given.
    package init(frames: Int, fileTime: Double, secondsPerFrame: Double, item: Int, isEnd: Bool, skipped: Double = 0) {
        self.frames = frames
        self.fileTime = fileTime
        self.secondsPerFrame = secondsPerFrame
        self.item = item
        self.isEnd = isEnd
        self.skipped = skipped
    }
}

/// The gains one voice was mixed with over one or more render periods, for its player's meters: the volume
/// (fades included) alone, and with the pan of the left and of the right device channel.
package struct LevelRecord: BitwiseCopyable {
    var frames: Int
    /// The largest gain: volume, left, right.
    var peak: (Float, Float, Float)
    /// The sum over the frames of the squared gain: volume, left, right.
    var squareSum: (Double, Double, Double)

    static let empty = LevelRecord(frames: 0, peak: (0, 0, 0), squareSum: (0, 0, 0))

    /// Notes the volume gain `gain` of one frame (before pan); ``frames`` is counted by the caller.
    @inline(__always)
    mutating func add(gain: Float) {
        peak.0 = max(peak.0, gain)
        squareSum.0 += Double(gain * gain)
    }

    /// Notes the volume gain `gain` of `frames` frames (before pan).
    mutating func add(gain: Float, frames: Int) {
        peak.0 = max(peak.0, gain)
        squareSum.0 += Double(gain * gain) * Double(frames)
    }

    /// Fills in the sides from the volume, for a period whose pan gains were `left` and `right`.
    mutating func pan(left: Float, right: Float) {
        peak.1 = peak.0 * left
        peak.2 = peak.0 * right
        squareSum.1 = squareSum.0 * Double(left * left)
        squareSum.2 = squareSum.0 * Double(right * right)
    }

    /// Adds the frames of `other` to these.
    mutating func merge(_ other: LevelRecord) {
        frames += other.frames
        peak = (max(peak.0, other.peak.0), max(peak.1, other.peak.1), max(peak.2, other.peak.2))
        squareSum = (squareSum.0 + other.squareSum.0, squareSum.1 + other.squareSum.1, squareSum.2 + other.squareSum.2)
    }
}

/// One sound source mixed by the engine: the rings its decoder fills and its renderer drains, and the
/// atomics through which its player steers it.
///
/// **Threads**: the decoder thread is the only producer of ``audio``, ``markers`` and ``fileLevels``; the render thread
/// the only consumer of the first two, the only producer of ``levels`` and the only user of the fields marked
/// "render thread only". Everything else is an atomic any thread may read or set.
package final class Voice: @unchecked Sendable {
    /// ``startFrame`` value: not playing.
    static let notScheduled = Int64.min
    /// ``startFrame`` value: start (or resume) with the next period, without alignment.
    package static let immediately = Int64(-1)

    let channelCount: Int
    package let audio: SPSCRing<Float>
    package let markers: SPSCRing<PlaybackMarker>
    /// The gains it was mixed with, while metering is enabled (render thread → player).
    package let levels = SPSCRing<LevelRecord>(minimumCapacity: 512)
    /// The levels of its files' channels, while metering is enabled (decoder thread → player): ``FileLevelRecords``.
    let fileLevels = SPSCRing<Double>(minimumCapacity: 8192)
    /// Who is told about its events (on the engine's event thread).
    weak var owner: (any VoiceOwner)?
    /// Where the render thread hands over the frames it mixed of this voice, for a player's tap: set once, at any time.
    package let tap = ManagedAtomicLazyReference<RenderTap>()
    /// Whether its owner is told when another item starts (a queue). A looping player's items are its passes,
    /// which it only reads from ``currentItem``: a short file looping on an unclocked device would flood the
    /// engine's events.
    let reportsItems: Bool

    // Set by the player, read by the render thread.
    /// The device frame at which to start: ``notScheduled``, ``immediately`` or a frame ≥ 0. A start frame
    /// already written is honoured by skipping the frames that would have played since, so that voices
    /// scheduled for the same frame stay aligned sample for sample.
    package let startFrame = ManagedAtomic<Int64>(notScheduled)
    let isPaused = ManagedAtomic<Bool>(false)
    /// Whether it keeps to the device frame it was scheduled to start at (``AudioPlayer/play(atTime:)``): frames its
    /// decoder did not deliver in time are dropped once it does, so that voices started together stay together to the
    /// frame. A resume without a time ends it.
    let keepsTime = ManagedAtomic<Bool>(false)
    let removalRequested = ManagedAtomic<Bool>(false)
    package let volumeBits = ManagedAtomic<UInt32>(Float(1).bitPattern)
    package let fadeFrames = ManagedAtomic<Int>(0)
    package let volumeGeneration = ManagedAtomic<Int>(0)
    package let panBits = ManagedAtomic<UInt32>(Float(0).bitPattern)
    package let isMeteringEnabled = ManagedAtomic<Bool>(false)
    /// Its owner has time observers: the engine's event thread ticks every 5 ms for it, else about once a period.
    let wantsTicks = ManagedAtomic<Bool>(false)

    // Set by the decoder thread, read by anyone.
    /// The ring holds enough to start (or all there is): ``AudioPlayer/prepareToPlay()`` waits for it.
    let isPrimed = ManagedAtomic<Bool>(false)
    /// Reading the file failed; the end marker that follows ends the voice unsuccessfully.
    let decodeFailed = ManagedAtomic<Bool>(false)

    /// The last position ``heardPosition(on:isPlaying:rate:startedAt:)`` reported while playing. Control threads
    /// alone take this lock; the render thread never does.
    let reportedPosition = ReportedPosition()

    // Set by the render thread, read by anyone.
    /// Seconds into the file of the last frame mixed, and the device frame after it: ``mixedPosition``.
    private let positionBits = ManagedAtomic<UInt64>(0)
    private let positionFrame = ManagedAtomic<Int64>(0)
    /// Odd while the render thread changes the two: a reader that sees it odd, or changed, reads them again.
    private let positionVersion = ManagedAtomic<Int>(0)
    /// Seconds of the files left out as silence before the last frame mixed (``PlaybackMarker/skipped``).
    let skippedBits = ManagedAtomic<UInt64>(0)
    let hasStarted = ManagedAtomic<Bool>(false)
    let hasFinished = ManagedAtomic<Bool>(false)
    /// The item (a queue's file, a loop's pass) of the last marker the render thread took up.
    let currentItem = ManagedAtomic<Int>(0)
    /// Periods in which the ring ran dry before its end: the decoder fell behind.
    package let starvedPeriods = ManagedAtomic<Int>(0)

    // Render thread only.
    var gain: Float = 1
    var gainTarget: Float = 1
    var gainStep: Float = 0
    var rampFramesLeft = 0
    var seenVolumeGeneration = 0
    var marker = PlaybackMarker(frames: 0, fileTime: 0, secondsPerFrame: 0, item: 0, isEnd: false)
    var markerFramesLeft = 0
    /// Levels not yet handed to ``levels``, which was full: the reader still gets every frame's level.
    var pendingLevels = LevelRecord.empty
    /// Frames that should have sounded by now and did not (its ring was dry, or it came after its start frame): a voice
    /// that ``keepsTime`` drops them before it sounds again.
    var framesMissed = 0

    /// A voice of `channelCount` channels whose ring holds `capacityFrames` frames, starting `fileTime` seconds
    /// into item `item`.
    package init(channelCount: Int, capacityFrames: Int, startingAt fileTime: Double, item: Int = 0, reportsItems: Bool = false) {
        self.channelCount = channelCount
        self.reportsItems = reportsItems
        audio = SPSCRing(minimumCapacity: capacityFrames * channelCount)
        markers = SPSCRing(minimumCapacity: capacityFrames / 64 + 16)
        positionBits.store(fileTime.bitPattern, ordering: .relaxed)
        currentItem.store(item, ordering: .relaxed)
        marker.item = item
    }

    /// Seconds into the file of the last frame mixed.
    var position: Double { mixedPosition.seconds }

    /// Seconds of the files left out as silence before the last frame mixed.
    var skipped: Double { Double(bitPattern: skippedBits.load(ordering: .relaxed)) }

    /// Seconds into the file of the last frame mixed, and the device frame after it, as one reading: how much of what
    /// was mixed the device still holds is that frame less the frame heard, wherever the render thread is in a period.
    var mixedPosition: (seconds: Double, beforeFrame: Int64) {
        while true {
            let version = positionVersion.load(ordering: .acquiring)
            let bits = positionBits.load(ordering: .relaxed)
            let frame = positionFrame.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            if version & 1 == 0, positionVersion.load(ordering: .relaxed) == version { return (Double(bitPattern: bits), frame) }
        }
    }

    /// Render thread: the last frame mixed is `seconds` into the file, and `frame` the device frame after it. Wait-free:
    /// a reader that comes in between reads again.
    func setPosition(_ seconds: Double, beforeFrame frame: Int64) {
        positionVersion.wrappingIncrement(ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        positionBits.store(seconds.bitPattern, ordering: .relaxed)
        positionFrame.store(frame, ordering: .relaxed)
        positionVersion.wrappingIncrement(ordering: .releasing)
    }
}

/// What the engine tells a voice's owner, on the engine's event thread.
protocol VoiceOwner: AnyObject, Sendable {
    /// The voice's first frame was mixed.
    func voiceDidStart(_ voice: Voice)
    /// The voice's end marker was reached: every frame has been mixed.
    func voiceDidFinish(_ voice: Voice)
    /// The engine's device failed; the voice will not be mixed again.
    func voiceDidLoseDevice(_ voice: Voice, error: AudioDeviceError)
    /// Another item of a voice that ``Voice/reportsItems`` was taken up; ``Voice/currentItem`` says which.
    func voiceDidStartItem(_ voice: Voice)
    /// About every 5 ms while the voice is in the mix, and once more just before ``voiceDidFinish(_:)``: time
    /// to run time observers.
    func voiceDidTick(_ voice: Voice)
}
