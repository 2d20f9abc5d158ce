import Atomics

/// A cycle's slots for its clients (a mixer's voices, a capture cycle's taps): each holds a client, retained, as an
/// opaque pointer, or nil when free. A control thread fills a free slot; the stream thread empties it once the event
/// thread has been told to let the client go.
typealias ClientSlots = [ManagedAtomic<UnsafeMutableRawPointer?>]

extension ClientSlots {
    /// Control thread: puts `client` into a free slot, retained until the stream thread reports it removed. Returns
    /// false when every slot is taken.
    func claim<Client: AnyObject>(for client: Client) -> Bool {
        let pointer = Unmanaged.passRetained(client).toOpaque()
        for slot in self where slot.compareExchange(expected: nil, desired: pointer, ordering: .acquiringAndReleasing).exchanged {
            return true
        }
        Unmanaged<Client>.fromOpaque(pointer).release()
        return false
    }
}
