import SystemEdge
import SystemPackage

extension FileDescriptor {
    /// Locks the file at `path`, open on this descriptor to be written, exclusively and without waiting, until
    /// `unlockAndClose()`: whoever finds the file meanwhile (a memo store cleaning up after killed processes) tells a
    /// file being written from one left behind, and no second writer writes over it. (Closed without unlocking, the
    /// file could stay locked for a moment by a program another thread starts, which shares it until it runs.)
    ///
    /// On a file system that keeps no locks the file is written unlocked: a store cannot lock it either, and takes a
    /// file it cannot lock for one in use.
    ///
    /// - Throws: ``AudioFileError`` with ``AudioFileError/Reason/inUse`` when another process holds it locked.
    func lockForWriting(path: String) throws(AudioFileError) {
        do {
            try lock(.exclusive, wait: false)
        } catch .heldElsewhere {
            throw AudioFileError(path: path, reason: .inUse)
        } catch {
            // Refused: a file system that keeps no locks, written unlocked.
        }
    }
}
