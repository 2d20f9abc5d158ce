import FoundationEssentials
import Glibc
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

    /// Locks the file at `url`, which nothing else holds locked.
    init(url: URL) throws(Errno) {
        self.url = url
        do {
            lock = try FileDescriptor.open(url.path, .readOnly, options: [.closeOnExec, .noFollow])
        } catch {
            throw error as? Errno ?? .ioError
        }
        _ = flock(lock.rawValue, LOCK_EX | LOCK_NB)
    }

    deinit {
        if !isPlaced { DurableFile.removeQuietly(url.path) }
        try? lock.close()
    }

    /// Puts the file at `destination` in one step, replacing what is there when `replacingExisting`; returns what it holds.
    ///
    /// - Throws: ``AudioFileError`` with ``AudioFileError/Reason/exists`` when something is at `destination` and
    ///   it was not to be replaced; the file stays staged then.
    @discardableResult
    package func place(at destination: URL, replacingExisting: Bool) throws(AudioFileError) -> AudioFileSummary {
        do {
            if replacingExisting {
                try DurableFile.replace(destination.path, with: url.path)
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
