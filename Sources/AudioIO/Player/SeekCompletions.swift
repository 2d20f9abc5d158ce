/// The completion handler of a seek still waiting to be heard, and the handlers due, held in a player's state
/// (``AudioPlayer`` and ``AudioQueuePlayer`` alike) and called once its lock is let go.
///
/// A seek lands at once — the file is positioned and the new voice primed before `seek` returns — so what a seek
/// waits for is its first frame being played: at once when the player is paused, with the new voice's first frame when
/// it plays. Another seek, ``AudioPlayer/cancelPendingSeeks()``, a stop or a lost device end it unfinished.
///
/// **Threads**: a value under its player's lock.
struct SeekCompletions {
    typealias Handler = @Sendable (_ finished: Bool) -> Void

    /// The seek waiting for the first frame of `voice`.
    private var pending: (handler: Handler, voice: Voice)?
    /// Handlers to call, with whether their seek finished.
    private var due: [(handler: Handler, finished: Bool)] = []

    /// A seek whose position is heard from `voice`'s first frame (`nil`: the player is paused, the seek is complete).
    /// One still pending is superseded: its handler gets false.
    mutating func begin(_ handler: Handler?, heardFrom voice: Voice?) {
        end(finished: false)
        guard let handler else { return }
        if let voice, !voice.hasStarted.load(ordering: .acquiring) {
            pending = (handler, voice)
        } else {
            due.append((handler, true))
        }
    }

    /// A seek that has nothing to wait for: `handler`, if any, is due with `finished`. One still pending is superseded.
    mutating func complete(_ handler: Handler?, finished: Bool) {
        end(finished: false)
        if let handler { due.append((handler, finished)) }
    }

    /// `voice` played its first frame: the seek waiting for it finished.
    mutating func voiceStarted(_ voice: Voice) {
        if pending?.voice === voice { end(finished: true) }
    }

    /// The pending seek's voice gave way to `voice` at the position heard (a pause, or a change heard at once on a
    /// device that queues long): the seek waits for that one, or, paused (`nil`), is complete.
    mutating func moved(to voice: Voice?) {
        guard let handler = pending?.handler else { return }
        pending = nil
        begin(handler, heardFrom: voice)
    }

    /// Ends the pending seek, if any: finished (the player paused there, or played on to the end) or not.
    mutating func end(finished: Bool) {
        guard let pending else { return }
        due.append((pending.handler, finished))
        self.pending = nil
    }

    /// The handlers due, now to be called outside the lock.
    mutating func takeDue() -> [(handler: Handler, finished: Bool)] {
        defer { due.removeAll() }
        return due
    }
}
