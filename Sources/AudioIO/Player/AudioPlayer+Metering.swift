extension AudioPlayer {
    /// Whether the render thread measures levels for ``updateMeters()``; off by default, as it costs a
    /// little on the render thread.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.controls.isMeteringEnabled } }
        set { state.withLock { $0.controls.setMetering(newValue, voice: $0.voice) } }
    }

    /// Takes the levels of everything heard since the previous call for ``averagePower(forChannel:)`` and
    /// ``peakPower(forChannel:)``, one for each of the file's ``numberOfChannels`` channels; silence if nothing
    /// played. They are the file's channels after ``volume`` (fades included); ``pan`` shows in a channel heard on
    /// one side of a stereo device only (a stereo file's two; the left and right ones of a 5.1 file mixed down),
    /// not in one heard on both (mono, a centre). Calls more than about 5 s apart lose nothing either: what the
    /// first of them cannot take comes with the next.
    public func updateMeters() {
        state.withLock { state in
            // Up to what is heard, not what is mixed: a long buffer holds half a second or more between the two.
            let heard = state.currentTime
            state.controls.updateMeters(from: state.voice, fileChannels: numberOfChannels, heardUpTo: heard)
        }
    }

    /// Peak level of `channel` (0-based, the file's channels) at the last ``updateMeters()``, in dBFS: 0 is full
    /// scale, −160 silence (also for a channel that does not exist).
    public func peakPower(forChannel channel: Int) -> Float {
        state.withLock { $0.controls.peakPower(forChannel: channel) }
    }

    /// Average (RMS) level of `channel` at the last ``updateMeters()``, in dBFS, −160…0.
    public func averagePower(forChannel channel: Int) -> Float {
        state.withLock { $0.controls.averagePower(forChannel: channel) }
    }
}
