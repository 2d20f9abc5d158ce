/// What a live stream's station says as it plays, told when the audio it came with is heard, as `AVPlayerItem`'s
/// `timedMetadata` is.
extension BasePlayer {
    /// What the live stream playing said last of what plays now (its `StreamTitle`), from the moment the audio it came
    /// with is heard; `nil` for a file, and until the station says something. ``Event/timedMetadataChanged(_:)`` tells
    /// each change.
    public var timedMetadata: TimedMetadata? { state.withLock { $0.timedMetadata } }

    /// Decoder thread: keeps what a live stream said until its audio is heard.
    func decoderRead(_ metadata: TimedMetadata, item: Int) {
        withState { state, _ in state.unheardMetadata.append((item, metadata)) }
    }

    /// Tells what a live stream said whose audio is heard now: at each look at the buffer (every 20 ms). Under the lock.
    func hearMetadata(_ state: inout State, _ events: inout [Event]) {
        guard !state.unheardMetadata.isEmpty, let voice = state.voice, voice.hasStarted.load(ordering: .acquiring) else { return }
        let item = voice.currentItem.load(ordering: .acquiring)
        let now = state.currentTime
        while let first = state.unheardMetadata.first, first.item < item || first.item == item && first.metadata.time <= now {
            state.unheardMetadata.removeFirst()
            state.timedMetadata = first.metadata
            events.append(.timedMetadataChanged(first.metadata))
        }
    }
}
