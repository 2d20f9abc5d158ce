import Atomics
import SystemEdge

/// The render cycle: mixes every active voice into one period of interleaved float frames, applying each
/// voice's volume (with fades) and pan, noting the gains for its meters, honouring scheduled start frames to
/// the frame: a scheduled voice whose decoder falls behind drops the frames it missed, so that it stays on time.
///
/// **Real-time contract**: ``render(into:frames:firstFrame:)`` runs on the render thread. It allocates
/// nothing, takes no lock and logs nothing; it talks to the rest of the process only through atomics and
/// lock-free rings. One exception to "no system call", stated plainly: when a voice's ring is dry before its
/// end, the render thread sleeps in 100 µs steps, at most ``starvationWait`` per period, for the decoder to catch
/// up, then counts a starved period and moves on. On a clocked device the wait is short and only happens when
/// an underrun is near anyway; on an unclocked one (ALSA's `null` and `file`, which take frames as fast as
/// they come) the engine lengthens it, since no listener is harmed and it keeps playback sample-exact
/// (spinning instead would starve the decoder of the CPU it needs).
package final class Mixer: @unchecked Sendable {
    /// How many voices can play at once.
    static let maximumVoices = 64

    let channelCount: Int
    let maximumFrames: Int
    /// How long, in nanoseconds, a period may wait for a starved voice; set by the engine.
    let starvationWait: ManagedAtomic<Int>
    /// Started, finished and removed voices, for the engine's event thread.
    let events = SPSCRing<EngineEvent>(minimumCapacity: 1024)
    /// Render thread: how many times a voice took up another item (a loop's next pass, a queue's next file), events or
    /// not: its owner learns of a pass at its next tick, for which the event thread must wake.
    private(set) var itemsTakenUp = 0
    /// The device frame after the last frame any voice has mixed: where an offline render's audio ends.
    let endOfMix = ManagedAtomic<Int64>(0)

    private let slots: ClientSlots
    private let scratch: UnsafeMutableBufferPointer<Float>
    /// Render thread only: nanoseconds of waiting for starved voices left in this period.
    private var waitBudget = 0
    /// Render thread only: a voice was cut off before its end (paused, stopped, seeked): what the device holds
    /// queued of it is not to be heard. The engine drops that queue once no other voice sounds, and clears this.
    var audioWasCut = false

    package init(channelCount: Int, maximumFrames: Int, starvationWait: Int) {
        self.channelCount = channelCount
        self.maximumFrames = maximumFrames
        self.starvationWait = ManagedAtomic(starvationWait)
        slots = (0..<Self.maximumVoices).map { _ in ManagedAtomic(nil) }
        scratch = .allocate(capacity: maximumFrames * channelCount)
        scratch.initialize(repeating: 0)
    }

    deinit {
        scratch.deallocate()
        // Voices still in the mix when the engine goes (an offline render closed with players on it).
        for slot in slots {
            if let pointer = slot.load(ordering: .acquiring) { Unmanaged<Voice>.fromOpaque(pointer).release() }
        }
    }

    /// Control thread: puts `voice` into the mix, holding a reference to it until the render thread reports
    /// it ``EngineEvent/Kind/removed``. Returns false when every slot is taken.
    package func add(_ voice: Voice) -> Bool {
        slots.claim(for: voice)
    }

    /// Whether a period must be rendered: a voice plays or waits for its start frame, or asks to be removed.
    /// Paused and finished voices alone let the engine idle.
    var needsRendering: Bool {
        anyVoice { voice in
            voice.removalRequested.load(ordering: .acquiring)
                || (voice.startFrame.load(ordering: .relaxed) != Voice.notScheduled
                    && !voice.isPaused.load(ordering: .relaxed) && !voice.hasFinished.load(ordering: .relaxed))
        }
    }

    /// Whether a voice plays or waits for its start frame (one that is being removed does not).
    var hasVoicesToPlay: Bool {
        anyVoice { voice in
            voice.startFrame.load(ordering: .relaxed) != Voice.notScheduled && !voice.isPaused.load(ordering: .relaxed)
                && !voice.hasFinished.load(ordering: .relaxed) && !voice.removalRequested.load(ordering: .acquiring)
        }
    }

    /// Whether a voice that has started sounds on: neither paused, finished nor being removed.
    var hasSoundingVoices: Bool {
        anyVoice { voice in
            voice.hasStarted.load(ordering: .relaxed) && !voice.isPaused.load(ordering: .relaxed)
                && !voice.hasFinished.load(ordering: .relaxed) && !voice.removalRequested.load(ordering: .relaxed)
        }
    }

    /// Whether a voice in the mix passes `test`; allocates nothing.
    private func anyVoice(_ test: (Voice) -> Bool) -> Bool {
        slots.contains { slot in
            guard let pointer = slot.load(ordering: .acquiring) else { return false }
            return test(Unmanaged<Voice>.fromOpaque(pointer).takeUnretainedValue())
        }
    }

    /// The earliest start frame of the voices waiting to start, when every voice that needs rendering is such
    /// a voice; nil when one of them must be rendered now (playing, starting at once, or to be removed).
    var startFrameToWaitFor: Int64? {
        var earliest: Int64?
        for slot in slots {
            guard let pointer = slot.load(ordering: .acquiring) else { continue }
            let voice = Unmanaged<Voice>.fromOpaque(pointer).takeUnretainedValue()
            if voice.removalRequested.load(ordering: .acquiring) { return nil }
            let start = voice.startFrame.load(ordering: .relaxed)
            guard start != Voice.notScheduled, !voice.isPaused.load(ordering: .relaxed),
                  !voice.hasFinished.load(ordering: .relaxed)
            else { continue }
            guard start >= 0, !voice.hasStarted.load(ordering: .relaxed) else { return nil }
            earliest = min(earliest ?? start, start)
        }
        return earliest
    }

    /// Render thread: overwrites the first `frames` frames of `output` with the mix of device frames
    /// `firstFrame ..< firstFrame + frames`.
    package func render(into output: UnsafeMutableBufferPointer<Float>, frames: Int, firstFrame: Int64) {
        let samples = frames * channelCount
        output.baseAddress!.update(repeating: 0, count: samples)
        waitBudget = starvationWait.load(ordering: .relaxed)
        for slot in slots {
            guard let pointer = slot.load(ordering: .acquiring) else { continue }
            Unmanaged<Voice>.fromOpaque(pointer)._withUnsafeGuaranteedRef { voice in
                if voice.removalRequested.load(ordering: .acquiring) {
                    if isCut(voice) { audioWasCut = true }
                    if events.push(EngineEvent(kind: .removed, voice: pointer)) { slot.store(nil, ordering: .releasing) }
                    return
                }
                mix(voice, pointer: pointer, into: output, frames: frames, firstFrame: firstFrame)
            }
        }
    }

    private func mix(
        _ voice: Voice, pointer: UnsafeMutableRawPointer, into output: UnsafeMutableBufferPointer<Float>,
        frames: Int, firstFrame: Int64
    ) {
        let start = voice.startFrame.load(ordering: .acquiring)
        guard start != Voice.notScheduled, !voice.isPaused.load(ordering: .relaxed),
              !voice.hasFinished.load(ordering: .relaxed)
        else {
            // Paused, it has left its schedule: what it missed before is not owed.
            voice.framesMissed = 0
            return
        }
        var written = 0
        if start >= 0, !voice.hasStarted.load(ordering: .relaxed) {
            if start >= firstFrame + Int64(frames) { return }
            if start > firstFrame {
                written = Int(start - firstFrame)
            } else if start < firstFrame {
                // Arrived after its start frame was written: it starts where it would be by now.
                voice.framesMissed = Int(firstFrame - start)
            }
        }
        if voice.framesMissed > 0 {
            if voice.keepsTime.load(ordering: .relaxed) {
                voice.framesMissed -= skip(voice, frames: voice.framesMissed, pointer: pointer, atFrame: firstFrame)
            } else {
                voice.framesMissed = 0
            }
        }
        if !voice.hasStarted.load(ordering: .relaxed) {
            voice.hasStarted.store(true, ordering: .releasing)
            _ = events.push(EngineEvent(kind: .started, voice: pointer))
        }
        applyVolumeChange(voice)
        let pan = Float(bitPattern: voice.panBits.load(ordering: .relaxed))
        let leftGain = min(1, 1 - pan)
        let rightGain = min(1, 1 + pan)
        var record = LevelRecord.empty
        let isMetering = voice.isMeteringEnabled.load(ordering: .relaxed)
        let tap = voice.tap.load()
        while written < frames {
            guard nextMarker(voice, pointer: pointer, atFrame: firstFrame + Int64(written)) else { break }
            let wanted = min(frames - written, voice.markerFramesLeft)
            let got = voice.audio.read(into: UnsafeMutableBufferPointer(rebasing: scratch[..<(wanted * channelCount)])) / channelCount
            mix(got, from: voice, into: output.baseAddress! + written * channelCount, leftGain: leftGain, rightGain: rightGain,
                isMetering: isMetering, keepsWhatIsAdded: tap != nil, record: &record)
            record.frames += got
            if let tap, got > 0 {
                let marker = voice.marker
                tap.write(UnsafeBufferPointer(rebasing: scratch[..<(got * channelCount)]), marker: RenderTapMarker(
                    deviceFrame: firstFrame + Int64(written), frames: got,
                    fileTime: marker.fileTime + Double(marker.frames - voice.markerFramesLeft) * marker.secondsPerFrame,
                    secondsPerFrame: marker.secondsPerFrame, item: marker.item))
            }
            voice.markerFramesLeft -= got
            written += got
            if got > 0, firstFrame + Int64(written) > endOfMix.load(ordering: .relaxed) {
                endOfMix.store(firstFrame + Int64(written), ordering: .relaxed)
            }
            let marker = voice.marker
            let position = marker.fileTime + Double(marker.frames - voice.markerFramesLeft) * marker.secondsPerFrame
            voice.setPosition(position, beforeFrame: firstFrame + Int64(written))
            if got < wanted { break }
        }
        if written < frames, !voice.hasFinished.load(ordering: .relaxed) {
            voice.starvedPeriods.wrappingIncrement(ordering: .relaxed)
            voice.framesMissed += frames - written
        }
        if record.frames > 0, isMetering {
            if channelCount >= 2 { record.pan(left: leftGain, right: rightGain) } else { record.pan(left: 1, right: 1) }
            // A reader that has not called for a while finds the ring full: what follows waits here, summed.
            voice.pendingLevels.merge(record)
            if voice.levels.push(voice.pendingLevels) { voice.pendingLevels = .empty }
        }
    }

    /// Adds the first `frames` frames of ``scratch`` to `output` at the voice's gain (moving through its fade, if it
    /// is in one) and pan, noting the gains in `record` when `isMetering`; when `keepsWhatIsAdded` (for a tap), leaves in
    /// ``scratch`` what was added, the channels past the second silent. The gain is kept in locals for the frames: the
    /// voice's fields, a class's, are read and written once per call rather than once per sample.
    @inline(__always)
    private func mix(
        _ frames: Int, from voice: Voice, into output: UnsafeMutablePointer<Float>, leftGain: Float, rightGain: Float,
        isMetering: Bool, keepsWhatIsAdded: Bool, record: inout LevelRecord
    ) {
        let input = scratch.baseAddress!
        var gain = voice.gain
        var rampFramesLeft = voice.rampFramesLeft
        let (gainStep, gainTarget) = (voice.gainStep, voice.gainTarget)
        // In a fade, the gain moves with every frame.
        let fading = min(rampFramesLeft, frames)
        for frame in 0..<fading {
            gain += gainStep
            rampFramesLeft -= 1
            if rampFramesLeft == 0 { gain = gainTarget }
            add(frame, from: input, to: output, gain: gain, leftGain: leftGain, rightGain: rightGain, keeping: keepsWhatIsAdded)
            if isMetering { record.add(gain: gain) }
        }
        // After it, one gain for the rest.
        if fading < frames {
            for frame in fading..<frames {
                add(frame, from: input, to: output, gain: gain, leftGain: leftGain, rightGain: rightGain, keeping: keepsWhatIsAdded)
            }
            if isMetering { record.add(gain: gain, frames: frames - fading) }
        }
        if keepsWhatIsAdded, channelCount > 2 {
            for frame in 0..<frames { (input + frame * channelCount + 2).update(repeating: 0, count: channelCount - 2) }
        }
        voice.gain = gain
        voice.rampFramesLeft = rampFramesLeft
    }

    /// Adds frame `frame` of `input` to `output` at `gain` and the pan's gains (a mono device's one channel at `gain`),
    /// leaving in `input` what was added when `keeping`.
    @inline(__always)
    private func add(
        _ frame: Int, from input: UnsafeMutablePointer<Float>, to output: UnsafeMutablePointer<Float>, gain: Float,
        leftGain: Float, rightGain: Float, keeping: Bool
    ) {
        if channelCount >= 2 {
            let left = input[frame * channelCount] * gain * leftGain
            let right = input[frame * channelCount + 1] * gain * rightGain
            output[frame * channelCount] += left
            output[frame * channelCount + 1] += right
            if keeping { (input[frame * channelCount], input[frame * channelCount + 1]) = (left, right) }
        } else {
            let sample = input[frame] * gain
            output[frame] += sample
            if keeping { input[frame] = sample }
        }
    }

    /// Render thread: notes, in ``audioWasCut``, voices being removed before their end. Called before a period is
    /// rendered, so that a seek (one voice removed, its successor added) is seen before the successor sounds. A paused
    /// voice cuts nothing: on a device that queues long a player's pause removes its voice, and what pauses one there
    /// is a stall for a download, whose last audio, queued on the device, is still to be heard.
    func noteCutVoices() {
        if anyVoice({ $0.removalRequested.load(ordering: .acquiring) && isCut($0) }) {
            audioWasCut = true
        }
    }

    /// Whether `voice`, which stops sounding here, started and had not finished.
    private func isCut(_ voice: Voice) -> Bool {
        voice.hasStarted.load(ordering: .relaxed) && !voice.hasFinished.load(ordering: .relaxed)
    }

    /// Makes the voice's current marker one with frames left (`frame` is the device frame its next frame is mixed
    /// at), waiting briefly for the decoder; false at the
    /// end of the stream (reported as finished) or when the decoder does not deliver in time.
    private func nextMarker(_ voice: Voice, pointer: UnsafeMutableRawPointer, atFrame frame: Int64) -> Bool {
        if voice.markerFramesLeft > 0 {
            return voice.audio.availableToRead > 0 || waitForData(voice) { voice.audio.availableToRead > 0 }
        }
        guard voice.markers.availableToRead > 0 || waitForData(voice, { voice.markers.availableToRead > 0 }),
              let marker = voice.markers.pop()
        else { return false }
        if marker.isEnd {
            voice.hasFinished.store(true, ordering: .releasing)
            _ = events.push(EngineEvent(kind: .finished, voice: pointer))
            return false
        }
        take(marker, voice, pointer: pointer, atFrame: frame)
        return voice.audio.availableToRead > 0 || waitForData(voice) { voice.audio.availableToRead > 0 }
    }

    /// Makes `marker` the voice's current one. One of another item (a queue's next file, a loop's next pass) is
    /// published, with its position, before any of its frames is mixed: a player that lets the voice go knows
    /// which item it was in.
    private func take(_ marker: PlaybackMarker, _ voice: Voice, pointer: UnsafeMutableRawPointer, atFrame frame: Int64) {
        if marker.item != voice.marker.item {
            voice.setPosition(marker.fileTime, beforeFrame: frame)
            voice.currentItem.store(marker.item, ordering: .releasing)
            itemsTakenUp &+= 1
            if voice.reportsItems { _ = events.push(EngineEvent(kind: .itemStarted, voice: pointer)) }
        }
        voice.marker = marker
        voice.markerFramesLeft = marker.frames
        voice.skippedBits.store(marker.skipped.bitPattern, ordering: .relaxed)
    }

    /// Drops up to `frames` frames of the voice unheard, before device frame `frame`, as many as the decoder has
    /// delivered (its end is not dropped); returns how many it dropped.
    private func skip(_ voice: Voice, frames: Int, pointer: UnsafeMutableRawPointer, atFrame frame: Int64) -> Int {
        var remaining = frames
        while remaining > 0 {
            if voice.markerFramesLeft == 0 {
                guard voice.markers.availableToRead > 0 || waitForData(voice, { voice.markers.availableToRead > 0 }),
                      let marker = voice.markers.peek(), !marker.isEnd
                else { break }
                take(voice.markers.pop()!, voice, pointer: pointer, atFrame: frame)
            }
            let wanted = min(remaining, voice.markerFramesLeft, voice.audio.availableToRead / channelCount)
            guard wanted > 0 || waitForData(voice, { voice.audio.availableToRead >= self.channelCount }) else { break }
            voice.audio.discard(wanted * channelCount)
            voice.markerFramesLeft -= wanted
            remaining -= wanted
        }
        return frames - remaining
    }

    /// Sleeps in 100 µs steps until `ready()`, the period's waiting budget is spent, or `voice` is being
    /// removed.
    private func waitForData(_ voice: Voice, _ ready: () -> Bool) -> Bool {
        while !ready() {
            guard waitBudget > 0, !voice.removalRequested.load(ordering: .relaxed) else { return false }
            MonotonicClock.sleep(nanoseconds: 100_000)
            waitBudget -= 100_000
        }
        return true
    }

    private func applyVolumeChange(_ voice: Voice) {
        let generation = voice.volumeGeneration.load(ordering: .acquiring)
        guard generation != voice.seenVolumeGeneration else { return }
        voice.seenVolumeGeneration = generation
        let target = Float(bitPattern: voice.volumeBits.load(ordering: .relaxed))
        let fade = voice.fadeFrames.load(ordering: .relaxed)
        voice.gainTarget = target
        if fade > 0 {
            voice.gainStep = (target - voice.gain) / Float(fade)
            voice.rampFramesLeft = fade
        } else {
            voice.gain = target
            voice.rampFramesLeft = 0
        }
    }
}
