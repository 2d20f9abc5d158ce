import AudioIO
import FoundationEssentials
import SystemPackage

/// Why the memo store could not do what was asked; its `description` says what to do.
public enum MemoStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store directory cannot be created or used.
    case directoryUnusable(path: String, reason: String)
    /// The store is on a read-only file system: it can be listed, played and exported, not changed.
    case readOnly(path: String)
    /// This process may not change the store (its permissions); `reason` is the system's.
    case notWritable(path: String, reason: String)
    /// The index was written by a newer voicememo whose schema this one does not know.
    case newerSchema(path: String, version: Int)
    /// The index is there but cannot be read (its permissions, a disk error); it was left as it is.
    case indexInaccessible(path: String, reason: String)
    /// Writing the index failed; the previous index is intact.
    case indexWriteFailed(path: String, reason: String)
    /// This machine's state directory (`$XDG_STATE_HOME/voicememo`: its id, the edits its index has) cannot be made or
    /// read.
    case stateUnusable(path: String, reason: String)
    /// No memo matches the reference.
    case noMatch(String)
    /// The reference is the start of an id, but shorter than ``MemoStore/minimumPrefixLength`` characters: too short to
    /// name one memo for long, so it names none.
    case prefixTooShort(String)
    /// Several memos match the reference; `candidates` are their ids, titles and dates (local time).
    case ambiguous(String, candidates: [String])
    /// The memo with this title is being recorded by a live process, so its file must not change.
    case recordingInProgress(String)
    /// The memo with this title came from another machine ahead of its audio, which a sync tool is still bringing.
    case stillSyncing(String)
    /// An audio file could not be removed; `reason` is the system's.
    case deleteFailed(path: String, reason: String)
    /// The file system holding `path`, in the store, is full: the trash has no room for the record of a version (a
    /// memo deleted, or as it was before an edit). Nothing was changed. ``MemoStore/deleteForGood(_:)`` needs no room.
    ///
    /// The corresponding C error is `ENOSPC`.
    case noSpace(path: String)
    /// A delete removed the audio of the memos titled `titles` but could not write the index; `reason` is why. The
    /// index drops their entries the next time the store is read, as it does for every file that is gone.
    case deletedButIndexNotSaved(titles: [String], reason: String)
    /// An export was asked to write into the store's own directory, where it could replace a memo or the index.
    case exportIntoStore(path: String)
    /// An export's format was not given and its file name's extension names none that can be written.
    case unknownExportFormat(path: String)
    /// A memo was to be kept in a format the store does not keep memos in (Vorbis, MP3, AIFF: formats export writes);
    /// the store keeps WAV, CAF, Opus, AAC (M4A) and FLAC.
    case unstoredFormat(AudioFileFormat)
    /// An edit could not be made: a file of the store or its trash could not be written; the memo is as it was.
    case editFailed(path: String, reason: String)
    /// A trim of the memo titled `title` was asked for a part it does not have; `reason` says how.
    case invalidCut(title: String, reason: String)
    /// The memo titled `title` has no earlier version in the trash to restore.
    case nothingToRestore(title: String)
    /// The trash holds no edit or delete to undo.
    case nothingToUndo
    /// The memo titled `title` changed (another process edited it) between the start of an edit and its end; nothing
    /// was done.
    case changedDuringEdit(title: String)

    /// The error for a failure to create or change a file in the store at `path`.
    init(changing path: String, _ error: Errno) {
        switch error {
        case .readOnlyFileSystem: self = .readOnly(path: path)
        case .permissionDenied, .notPermitted: self = .notWritable(path: path, reason: error.description)
        default: self = .notWritable(path: path, reason: error.description)
        }
    }

    public var description: String {
        switch self {
        case .directoryUnusable(let path, let reason):
            "cannot use the memo store at '\(path)': \(reason); set VOICEMEMO_HOME to a writable directory"
        case .readOnly(let path):
            "the memo store at '\(path)' is on a read-only file system: its memos can be listed, played and exported, not changed"
        case .notWritable(let path, let reason):
            "cannot change the memo store at '\(path)': \(reason); check that you may write to it"
        case .newerSchema(let path, let version):
            "'\(path)' was written by a newer voicememo (index schema \(version)); upgrade voicememo to use this store"
        case .indexInaccessible(let path, let reason):
            "cannot read the memo index '\(path)': \(reason); check its permissions (nothing was changed)"
        case .indexWriteFailed(let path, let reason):
            "cannot save the memo index '\(path)': \(reason); the previous index is unchanged, free some space and try again"
        case .stateUnusable(let path, let reason):
            "cannot use voicememo's state directory '\(path)': \(reason); set XDG_STATE_HOME to a writable directory"
        case .noMatch(let reference):
            "no memo matches '\(reference)'; run 'voicememo list' to see ids and titles"
        case .prefixTooShort(let reference):
            "'\(reference)' is too short to name a memo by its id: give at least \(MemoStore.minimumPrefixLength) "
                + "characters of the id, or the whole title; run 'voicememo list' to see ids and titles"
        case .ambiguous(let reference, let candidates):
            "'\(reference)' matches \(candidates.count) memos: \(candidates.prefix(5).joined(separator: "; "))"
                + (candidates.count > 5 ? "; and \(candidates.count - 5) more" : "") + "; name the one you mean by its id"
        case .recordingInProgress(let title):
            "“\(title)” is being recorded right now; stop that recording, then try again"
        case .stillSyncing(let title):
            "“\(title)” is still arriving from another machine; wait for the sync to finish, then try again"
        case .deleteFailed(let path, let reason):
            "cannot delete '\(path)': \(reason); check that you may write to the memo store directory"
        case .noSpace(let path):
            "no space left on '\(path)' to keep the memo as it was in the trash; nothing was changed, free some space "
                + "(voicememo delete --now removes memos for good, voicememo trash --empty empties the trash) and try again"
        case .deletedButIndexNotSaved(let titles, let reason):
            "deleted the audio of " + titles.map { "“\($0)”" }.joined(separator: ", ")
                + " but could not update the memo index (\(reason)); the next command that reads the store drops "
                + (titles.count == 1 ? "it" : "them") + " from the index"
        case .exportIntoStore(let path):
            "cannot export to '\(path)': that is inside the memo store, where it could replace a memo; pick a place outside it"
        case .unknownExportFormat(let path):
            "cannot tell which format to write '\(path)' in: voicememo writes "
                + AudioFileFormat.allCases.filter(\.isWritable).map { "." + $0.fileExtension }.joined(separator: ", ")
                + "; end the name with one of those or give --format"
        case .unstoredFormat(let format):
            "memos are kept as WAV, CAF, Opus, AAC (M4A) or FLAC, not \(format.rawValue); choose one of those (export writes \(format.rawValue) files)"
        case .editFailed(let path, let reason):
            "cannot edit the memo: '\(path)': \(reason); the memo is as it was, free some space or check the store's permissions and try again"
        case .invalidCut(let title, let reason):
            "cannot trim “\(title)”: \(reason)"
        case .nothingToRestore(let title):
            "“\(title)” has no earlier version to restore; a trim or a rename keeps one in the trash for "
                + "\(MemoStore.trashDays) days, until the trash is emptied"
        case .nothingToUndo:
            "there is no edit or delete to undo: the trash is empty ('voicememo trash' lists what it keeps)"
        case .changedDuringEdit(let title):
            "“\(title)” changed while it was being edited (another voicememo changed it); nothing was done, try again"
        }
    }
}
