import CSndFile
import SystemPackage

/// Why an audio file could not be opened, read or written.
///
/// Its `description` is one sentence a person can act on: what failed, on which path, and what to do.
public struct AudioFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Equatable, Sendable {
        /// Nothing exists at the path.
        case notFound
        /// The path exists but this process may not open it.
        case permissionDenied
        /// The path is not a regular file; the payload names what it is ("a directory", "a FIFO", ...).
        case notARegularFile(String)
        /// The file has zero bytes.
        case empty
        /// The file opens but holds no audio frames.
        case noAudio
        /// Neither libsndfile nor FFmpeg recognises the contents as audio; the payload is libsndfile's reason.
        case unrecognized(String)
        /// The file is recognised but damaged or claims impossible values; the payload says which.
        case malformed(String)
        /// The file is valid but uses something this library cannot handle; the payload says what.
        case unsupported(String)
        /// Reading failed part-way; the payload is the cause.
        case readFailed(String)
        /// Creating or writing the file failed (disk full, I/O error, ...); the payload is the cause.
        case writeFailed(String)
        /// The destination exists and is not a regular file (a device, a FIFO, a directory...), which a
        /// written file must not replace.
        case notAFileToReplace(String)
        /// The destination exists, and was not to be replaced.
        case exists
        /// The directory the file was to be written into does not exist.
        case directoryNotFound
        /// The file system the file was to be written on is mounted read-only.
        case readOnlyFileSystem
        /// The file system the file was to be written on is full: what fitted of it was written, or nothing.
        ///
        /// The corresponding C error is `ENOSPC`.
        case noSpace
        /// Another process holds the file to be written locked: it is writing the file itself (a recording, a
        /// conversion), or removing it. The file is left as it is.
        case inUse
        /// The bytes of an `http` or `https` address could not be downloaded; the payload says why.
        case downloadFailed(DownloadError)
    }

    /// The path of the file concerned, as given; for an `http` or `https` address, the address (without a password).
    public let path: String
    /// What went wrong.
    public let reason: Reason

    /// Creates an error for `path`.
    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .notFound:
            "cannot open '\(path)': no such file; check the path"
        case .permissionDenied:
            "cannot open '\(path)': permission denied; check the permissions of the file and its directory"
        case .notARegularFile(let kind):
            "cannot read '\(path)': it is \(kind), not an audio file; pass a regular audio file"
        case .empty:
            "cannot read '\(path)': the file is empty (0 bytes); pass an audio file with sound in it"
        case .noAudio:
            "cannot use '\(path)': it contains no audio (0 frames); pass an audio file with sound in it"
        case .unrecognized(let why):
            "cannot read '\(path)': not a recognised audio file (\(why)); pass a WAV, CAF, Opus, FLAC, Ogg Vorbis, MP3, M4A, AAC, WMA or AMR file"
        case .malformed(let why):
            "cannot read '\(path)': the file is damaged (\(why)); try another copy of it"
        case .unsupported(let why):
            "cannot read '\(path)': \(why)"
        case .readFailed(let why):
            "reading '\(path)' failed: \(why); check the disk and try again"
        case .writeFailed(let why):
            "writing '\(path)' failed: \(why); free some space or pick another place and try again"
        case .notAFileToReplace(let kind):
            "cannot write '\(path)': it is \(kind); give the path of a file to create or replace"
        case .exists:
            "'\(path)' exists already; pick another name, or remove it first"
        case .directoryNotFound:
            "cannot write '\(path)': there is no such directory; create it or pick another place"
        case .readOnlyFileSystem:
            "cannot write '\(path)': the file system is read-only; pick another place"
        case .noSpace:
            "cannot write '\(path)': no space left on its file system; free some space or pick another place"
        case .inUse:
            "cannot write '\(path)': another process is writing it; wait until it is done, or pick another name"
        case .downloadFailed(let why):
            "cannot download '\(path)': \(why)"
        }
    }

    /// The error for a failed `open(2)`, `link(2)` or `rename(2)` creating `path`.
    package init(path: String, creating errno: Errno) {
        switch errno {
        case .noSuchFileOrDirectory, .notDirectory: self.init(path: path, reason: .directoryNotFound)
        case .readOnlyFileSystem: self.init(path: path, reason: .readOnlyFileSystem)
        case .noSpace: self.init(path: path, reason: .noSpace)
        case .permissionDenied, .notPermitted: self.init(path: path, reason: .permissionDenied)
        case .fileExists: self.init(path: path, reason: .exists)
        case .isDirectory: self.init(path: path, reason: .notAFileToReplace("a directory"))
        default: self.init(path: path, reason: .writeFailed(errno.description))
        }
    }

    /// The error for a failed `open(2)`/`fstat(2)` on `path`.
    init(path: String, opening errno: Errno) {
        switch errno {
        case .noSuchFileOrDirectory, .notDirectory: self.init(path: path, reason: .notFound)
        case .permissionDenied, .notPermitted: self.init(path: path, reason: .permissionDenied)
        case .isDirectory: self.init(path: path, reason: .notARegularFile("a directory"))
        default: self.init(path: path, reason: .readFailed(errno.description))
        }
    }

    /// The error for a libsndfile failure while opening `path` for reading.
    init(path: String, opening error: SndFileError) {
        switch error.code {
        case Int32(SF_ERR_UNRECOGNISED_FORMAT):
            self.init(path: path, reason: .unrecognized(error.message))
        case Int32(SF_ERR_UNSUPPORTED_ENCODING):
            self.init(path: path, reason: .unsupported("its encoding is not supported (\(error.message))"))
        case Int32(SF_ERR_SYSTEM):
            self.init(path: path, reason: .readFailed(error.message))
        default:
            self.init(path: path, reason: .malformed(error.message))
        }
    }
}
