import CWebRTCAudio

/// Cleans up speech in a stream of interleaved float frames, as ``SpeechEnhancement`` says, with
/// webrtc-audio-processing: 10 ms at a time, what comes out following what goes in frame for frame (the last part of
/// a chunk, at the end, is padded with silence and cut again).
///
/// **Threads**: one thread at a time — a recording's writer, a converter's caller. Not for a real-time thread: the
/// library allocates as it pleases.
final class SpeechEnhancer {
    /// Why enhancement cannot be done on a stream.
    struct Refusal: Error, CustomStringConvertible {
        let description: String
    }

    private let audio: OpaquePointer
    let channelCount: Int
    /// Frames in a chunk: 10 ms.
    private let chunkFrames: Int
    /// The chunk being filled (interleaved), and how many frames it holds.
    private let pending: UnsafeMutableBufferPointer<Float>
    private var pendingFrames = 0
    /// The chunk, one buffer per channel, as the library takes it.
    private let planes: [UnsafeMutableBufferPointer<Float>]
    private let planePointers: UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>?>

    /// The corresponding C++ calls are `webrtc::AudioProcessing::Create` and its components' `Enable` and settings.
    ///
    /// - Throws: ``Refusal`` for more than two channels, or a rate the library does not take.
    init(sampleRate: Double, channelCount: Int, settings: SpeechEnhancement) throws(Refusal) {
        guard (1...2).contains(channelCount) else {
            throw Refusal(description: "speech enhancement takes mono or stereo, not \(channelCount) channels")
        }
        guard let audio = webrtc_audio_create(
            Int32(sampleRate.rounded()), Int32(channelCount), Int32(settings.noiseSuppression.rawValue),
            settings.adjustsGain ? 1 : 0, 3)
        else { throw Refusal(description: "webrtc-audio-processing does not take \(Int(sampleRate)) Hz audio") }
        self.audio = audio
        self.channelCount = channelCount
        let chunkFrames = Int(webrtc_audio_chunk_frames(audio))
        self.chunkFrames = chunkFrames
        pending = .allocate(capacity: chunkFrames * channelCount)
        planes = (0..<channelCount).map { _ in .allocate(capacity: chunkFrames) }
        planePointers = .allocate(capacity: channelCount)
        for channel in 0..<channelCount { planePointers[channel] = planes[channel].baseAddress }
    }

    deinit {
        webrtc_audio_destroy(audio)
        pending.deallocate()
        planes.forEach { $0.deallocate() }
        planePointers.deallocate()
    }

    /// Takes interleaved `frames` and hands what comes out, chunk by chunk, to `emit`.
    ///
    /// - Throws: ``Refusal`` when the library fails on a chunk; what `emit` throws.
    func process(_ frames: UnsafeBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        var offset = 0
        while offset < frames.count {
            let taken = min((chunkFrames - pendingFrames) * channelCount, frames.count - offset)
            let start = pendingFrames * channelCount
            _ = UnsafeMutableBufferPointer(rebasing: pending[start..<(start + taken)])
                .update(fromContentsOf: frames[offset..<(offset + taken)])
            pendingFrames += taken / channelCount
            offset += taken
            if pendingFrames == chunkFrames {
                try processChunk()
                try emit(UnsafeBufferPointer(pending))
                pendingFrames = 0
            }
        }
    }

    /// Hands what is left, the last part of a chunk, to `emit`.
    func finish(_ emit: (UnsafeBufferPointer<Float>) throws -> Void) throws {
        guard pendingFrames > 0 else { return }
        let frames = pendingFrames
        UnsafeMutableBufferPointer(rebasing: pending[(frames * channelCount)...]).update(repeating: 0)
        try processChunk()
        pendingFrames = 0
        try emit(UnsafeBufferPointer(rebasing: pending[..<(frames * channelCount)]))
    }

    /// Runs the library on ``pending``, in place. The corresponding C++ call is `webrtc::AudioProcessing::ProcessStream`.
    private func processChunk() throws(Refusal) {
        for frame in 0..<chunkFrames {
            for channel in 0..<channelCount { planes[channel][frame] = pending[frame * channelCount + channel] }
        }
        let status = webrtc_audio_process(audio, planePointers.baseAddress)
        guard status == 0 else { throw Refusal(description: "webrtc-audio-processing failed (error \(status))") }
        for frame in 0..<chunkFrames {
            for channel in 0..<channelCount { pending[frame * channelCount + channel] = planes[channel][frame] }
        }
    }
}
