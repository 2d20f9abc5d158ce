import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge

/// A write into the memo store that found its file system full: how much room is left, how much the write takes, and
/// what to do, in one line.
struct SpaceFailure: Error, CustomStringConvertible {
    /// The store's directory.
    let directory: String
    /// What the room was for: "the recording", "“Standup”".
    let purpose: String
    /// What the write takes, said so that it can be weighed against the room left: "a minute of this format takes 5.8 MB".
    let need: String
    /// What to do.
    let advice: String
    /// The bytes left on the store's file system when the write failed; nil when `statvfs` cannot tell.
    let available: Int64?

    init(directory: String, purpose: String, need: String, advice: String) {
        (self.directory, self.purpose, self.need, self.advice) = (directory, purpose, need, advice)
        available = (try? FileSystemSpace(of: directory))?.availableBytes
    }

    var description: String {
        let room = available.map { Describe.size($0) } ?? "an unknown amount"
        return "no space left on '\(directory)' for \(purpose): \(room) free, \(need); \(advice)"
    }

    /// What frees room in the store for good.
    static let freeRoom = "delete memos (voicememo delete, then voicememo trash --empty)"

    /// A recording in `settings` that found no room in the store at `directory`.
    static func recording(_ settings: AudioSettings, in directory: String) -> SpaceFailure {
        SpaceFailure(
            directory: directory, purpose: "the recording",
            need: "a minute of this format takes \(Describe.size(Int64(settings.estimatedBytesPerSecond * 60)))",
            advice: "\(freeRoom) or record elsewhere (VOICEMEMO_HOME)")
    }

    /// Fails before a recording in `settings` begins when the store at `directory` has no room for its first second:
    /// it would fail at once, and leave a memo with nothing in it.
    static func requireRoom(forRecording settings: AudioSettings, in directory: String) throws(SpaceFailure) {
        guard let space = try? FileSystemSpace(of: directory),
              Double(space.availableBytes) < settings.estimatedBytesPerSecond + Double(space.blockSize)
        else { return }
        throw recording(settings, in: directory)
    }

    /// An import of `seconds` of audio as `title`, in `settings`, that found no room in the store at `directory`.
    static func importing(_ title: String, seconds: Double, settings: AudioSettings, in directory: String) -> SpaceFailure {
        SpaceFailure(
            directory: directory, purpose: "“\(title)”",
            need: "it takes about \(Describe.size(Int64(settings.estimatedBytesPerSecond * seconds)))",
            advice: "\(freeRoom) or import elsewhere (VOICEMEMO_HOME)")
    }
}
