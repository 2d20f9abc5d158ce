import Atomics

/// Where a block of frames a ``RenderTap`` holds sits: on the device clock, and in the voice's item.
package struct RenderTapMarker: BitwiseCopyable {
    /// The device frame of the block's first frame.
    var deviceFrame: Int64
    /// Frames in the block.
    var frames: Int
    /// Seconds into the item of the block's first frame, and seconds of it per frame (the playback rate over the
    /// device rate).
    var fileTime: Double
    var secondsPerFrame: Double
    /// The voice's item (a queue's item, a loop's pass).
    var item: Int
}

/// A voice's frames as the render thread mixed them — after volume, fades and pan — for a player's tap, with where
/// they sit: the render thread writes them, the tap's thread reads them.
///
/// **Real-time contract**: ``write(_:marker:)`` runs on the render thread and never waits: a block that does not fit
/// (the tap's thread fell behind by a whole ring) is dropped and counted in ``droppedFrames``. Storage is allocated
/// once, in `init`.
///
/// **Threads**: one render thread writes (a voice is in one engine's mix), one tap thread reads.
package final class RenderTap: @unchecked Sendable {
    package let audio: SPSCRing<Float>
    package let markers: SPSCRing<RenderTapMarker>
    /// Frames the render thread could not hand over, since the ring was full.
    package let droppedFrames = ManagedAtomic<Int>(0)

    /// A tap for `channelCount`-channel frames holding `capacityFrames` frames.
    package init(channelCount: Int, capacityFrames: Int) {
        audio = SPSCRing(minimumCapacity: capacityFrames * channelCount)
        markers = SPSCRing(minimumCapacity: max(64, capacityFrames / 64))
    }

    /// Render thread: hands over `samples` (interleaved, `marker.frames` frames), or drops them when there is no room.
    func write(_ samples: UnsafeBufferPointer<Float>, marker: RenderTapMarker) {
        guard audio.availableToWrite >= samples.count, markers.availableToWrite > 0 else {
            droppedFrames.wrappingIncrement(by: marker.frames, ordering: .relaxed)
            return
        }
        audio.write(samples)
        markers.push(marker)
    }
}
