import FoundationEssentials
import SystemEdge
import SystemPackage

/// A converted file waiting, hidden beside where it is to go, for its place: see
/// ``AudioFileConverter/stage(contentsOf:beside:settings:metadata:gain:speechEnhancement:permissions:)``. It is held locked (`flock`) while
/// it waits, and removed when it is released unplaced.
///
/// **Not thread-safe**: one thread at a time.
package final class StagedAudioFile {
    /// Where it waits.
    package let url: URL
    /// What was written into it.
    package internal(set) var summary = AudioFileSummary(
        frameCount: 0, sampleRate: 0, channelCount: 0, levels: AudioLevels(peak: [], average: []),
        waveform: Waveform(sampleRate: 1, samplesPerPixel: Waveform.standardSamplesPerPixel, channelCount: 1, data: []),
        byteCount: 0)
    private let lock: FileDescriptor
    private var isPlaced = false

    /// Locks the file at `url`, written to be placed at `destination`.
    ///
    /// - Throws: ``AudioFileError`` (of `destination`) when the file cannot be opened, or another process holds it
    ///   locked (``AudioFileError/Reason/inUse``).
    init(url: URL, for destination: URL) throws(AudioFileError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(url.path, .readOnly, options: [.closeOnExec, .noFollow])
        } catch {
            throw AudioFileError(path: destination.path, creating: error as? Errno ?? .ioError)
        }
        do {
            try descriptor.lockForWriting(path: destination.path)
        } catch {
            try? descriptor.close()
            throw error
        }
        self.url = url
        lock = descriptor
    }

    deinit {
        if !isPlaced { FileNames.removeIgnoringFailure(url.path) }
        lock.unlockAndClose()
    }

    /// Puts the file at `destination` in one step, replacing what is there when `replacingExisting`; returns what it holds.
    ///
    /// - Throws: ``AudioFileError`` with ``AudioFileError/Reason/exists`` when something is at `destination` and
    ///   it was not to be replaced; the file stays staged then.
    @discardableResult
    package func place(at destination: URL, replacingExisting: Bool) throws(AudioFileError) -> AudioFileSummary {
        do {
            if replacingExisting {
                try FileNames.rename(url.path, to: destination.path)
            } else {
                try DurableFile.place(url.path, at: destination.path)
            }
        } catch {
            throw AudioFileError(path: destination.path, creating: error)
        }
        isPlaced = true
        try? DurableFile.syncDirectory(containing: destination.path)
        return summary
    }
}
