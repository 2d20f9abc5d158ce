import FoundationEssentials
import Glibc
import SystemPackage

/// What making a recording cut short readable did (see ``AudioFile/repairCutRecording(at:)``).
public enum CutRecordingRepair: Equatable, Sendable {
    /// The file was whole: nothing changed.
    case intact
    /// The file's torn end was cut off and its stream closed; `droppedByteCount` bytes that held no whole packet
    /// are gone, and everything before them is as it was.
    case repaired(droppedByteCount: Int64)
    /// Nothing but headers reached the file: it holds no audio.
    case noAudio
}

extension AudioFile {
    /// Makes a recording cut short (a killed process, a full disk, a power cut) readable again, in place, keeping
    /// every whole packet that reached the disk.
    ///
    /// WAV and CAF recordings need nothing: their headers are rewritten after every write. An Ogg Opus recording is
    /// written page by page, and one cut mid-page ends in a torn page and without the page that closes its stream:
    /// libsndfile cannot tell its length and refuses it. The repair drops the torn page (and any bytes after the last
    /// whole one), and writes the pages from the last one that starts with a whole packet again, through libogg,
    /// with the same packets, the last one's granule position and the end-of-stream flag: the audio packets stay
    /// byte for byte. The file is synced before this returns.
    ///
    /// - Parameter url: A WAV, CAF or Ogg Opus file no process is writing.
    /// - Returns: What was done.
    /// - Throws: ``AudioFileError`` when the file cannot be read or written, or is damaged other than at its end.
    public static func repairCutRecording(at url: URL) throws(AudioFileError) -> CutRecordingRepair {
        let path = url.path
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readWrite, options: [.closeOnExec, .noFollow])
        } catch {
            throw AudioFileError(path: path, opening: error as? Errno ?? .ioError)
        }
        defer { try? descriptor.close() }
        guard OggPageReader.beginsWithPage(descriptor) else { return .intact }
        do {
            return try OpusStreamRepair(descriptor: descriptor).repair()
        } catch let error as OpusStreamRepair.Failure {
            throw AudioFileError(path: path, reason: .malformed(error.description))
        } catch let error as Errno {
            throw AudioFileError(path: path, reason: .writeFailed(error.description))
        } catch {
            throw AudioFileError(path: path, reason: .malformed("\(error)"))
        }
    }
}
