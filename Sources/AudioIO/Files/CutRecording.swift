import FoundationEssentials
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
    /// byte for byte. An M4A recording is a fragmented MP4 until it is finished: its packets up to the last whole one,
    /// with its tags, are copied through FFmpeg into a plain M4A that takes its place (see ``AudioFileWriter``). The
    /// file is synced before this returns.
    ///
    /// - Parameter url: A WAV, CAF, Ogg Opus or M4A file no process is writing.
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
        switch MP4Layout(descriptor: descriptor) {
        case .fragmented?: return try repairFragmentedMP4(at: url)
        case .headerOnly?: return .noAudio
        case .whole?: return .intact
        case nil: break
        }
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

    /// Copies the packets of the fragmented MP4 at `url` into a plain M4A in its place.
    private static func repairFragmentedMP4(at url: URL) throws(AudioFileError) -> CutRecordingRepair {
        struct NothingToKeep: Error {}
        let size = (try? FilePath(url.path).stat())?.size ?? 0
        do {
            let copied = try FileRewrite.replace(url) { temporary in
                let copied = try M4ACopy.copy(from: url.path, to: temporary.path, metadata: nil, frames: nil)
                guard copied.frameCount > 0 else { throw NothingToKeep() }
                return copied
            }
            return .repaired(droppedByteCount: max(0, Int64(size) - copied.sourceEnd))
        } catch is NothingToKeep {
            return .noAudio
        } catch let error as AudioFileError {
            throw error
        } catch {
            throw AudioFileError(path: url.path, reason: .writeFailed("\(error)"))
        }
    }
}

/// How an MP4 file (one that begins with an `ftyp` box) is laid out, from its first top-level boxes: enough to tell a
/// recording being written (fragmented: a `moof` box follows the header) from a finished file.
enum MP4Layout {
    /// Fragments follow the header.
    case fragmented
    /// Nothing but the header (and maybe the start of the index) reached the file.
    case headerOnly
    /// A plain MP4: its samples in an `mdat` box, indexed by `moov`.
    case whole

    /// The layout of the file on `descriptor`; `nil` when it is no MP4.
    init?(descriptor: FileDescriptor) {
        guard let size = try? descriptor.seek(offset: 0, from: .end) else { return nil }
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        // The header's boxes (`ftyp`, `moov`, maybe `free`) come first; the first fragment right after.
        for index in 0..<8 {
            guard offset + 8 <= size,
                  let count = try? header.withUnsafeMutableBytes({ try descriptor.read(fromAbsoluteOffset: offset, into: $0) }),
                  count >= 8
            else { break }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if index == 0, type != "ftyp" { return nil }
            if type == "moof" { self = .fragmented; return }
            if type == "mdat" { self = .whole; return }
            var boxSize = (0..<4).reduce(Int64(0)) { $0 << 8 | Int64(header[$1]) }
            if boxSize == 1, count >= 16 { boxSize = (8..<16).reduce(Int64(0)) { $0 << 8 | Int64(header[$1]) } }
            // 0: to the end of the file.
            guard boxSize >= 8 else { break }
            offset += boxSize
        }
        // The end reached (or a box that runs past it) with neither: a recording killed before its first fragment.
        self = offset + 8 > size || offset == 0 ? .headerOnly : .whole
    }
}
