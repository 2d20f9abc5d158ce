import CALSA
import Glibc

/// The one owner of a `snd_ctl_t*`: a sound card's control device, as far as its jack controls go. One
/// method per alsa-lib call, each turning its return code into a ``DeviceError``.
///
/// **Thread safety**: one thread at a time (`@unchecked`: it is opened on one thread and then used only by
/// the thread watching its card).
final class ControlDevice: @unchecked Sendable {
    /// A jack control: an element of interface CARD, boolean, whose name ends in " Jack" (e.g.
    /// "Headphone Jack", "Mic Jack", "Line Out Jack"), as the kernel's drivers name them.
    struct Jack: Equatable, Sendable {
        /// The element's number on this control device.
        var id: UInt32
        var name: String
    }

    /// The control device's name, e.g. "hw:0".
    let name: String
    private let handle: OpaquePointer

    /// Opens the control device `name` (e.g. "hw:0") without blocking reads.
    ///
    /// The corresponding C function is `snd_ctl_open`.
    init(name: String) throws(DeviceError) {
        ALSALibrary.silenceErrorMessages()
        var handle: OpaquePointer?
        try checkALSA(snd_ctl_open(&handle, name, SND_CTL_NONBLOCK))
        guard let handle else { throw .notFound }
        self.name = name
        self.handle = handle
    }

    deinit { snd_ctl_close(handle) }

    /// The card's short name, e.g. "HDA Intel PCH".
    ///
    /// The corresponding C functions are `snd_ctl_card_info` and `snd_ctl_card_info_get_name`.
    func cardName() throws(DeviceError) -> String {
        var info: OpaquePointer?
        try checkALSA(snd_ctl_card_info_malloc(&info))
        defer { snd_ctl_card_info_free(info) }
        try checkALSA(snd_ctl_card_info(handle, info))
        return String(cString: snd_ctl_card_info_get_name(info))
    }

    /// The card's jack controls, in the card's order.
    ///
    /// The corresponding C functions are `snd_ctl_elem_list` and `snd_ctl_elem_info`.
    func jacks() throws(DeviceError) -> [Jack] {
        var list: OpaquePointer?
        try checkALSA(snd_ctl_elem_list_malloc(&list))
        defer { snd_ctl_elem_list_free(list) }
        try checkALSA(snd_ctl_elem_list(handle, list))
        let count = snd_ctl_elem_list_get_count(list)
        try checkALSA(snd_ctl_elem_list_alloc_space(list, count))
        defer { snd_ctl_elem_list_free_space(list) }
        try checkALSA(snd_ctl_elem_list(handle, list))
        var info: OpaquePointer?
        try checkALSA(snd_ctl_elem_info_malloc(&info))
        defer { snd_ctl_elem_info_free(info) }
        var jacks: [Jack] = []
        for index in 0..<snd_ctl_elem_list_get_used(list) {
            let name = String(cString: snd_ctl_elem_list_get_name(list, index))
            guard snd_ctl_elem_list_get_interface(list, index) == SND_CTL_ELEM_IFACE_CARD, name.hasSuffix(" Jack") else { continue }
            let id = snd_ctl_elem_list_get_numid(list, index)
            snd_ctl_elem_info_set_numid(info, id)
            try checkALSA(snd_ctl_elem_info(handle, info))
            if snd_ctl_elem_info_get_type(info) == SND_CTL_ELEM_TYPE_BOOLEAN { jacks.append(Jack(id: id, name: name)) }
        }
        return jacks
    }

    /// Whether something is plugged into `jack`.
    ///
    /// The corresponding C functions are `snd_ctl_elem_read` and `snd_ctl_elem_value_get_boolean`.
    func isPlugged(_ jack: Jack) throws(DeviceError) -> Bool {
        var value: OpaquePointer?
        try checkALSA(snd_ctl_elem_value_malloc(&value))
        defer { snd_ctl_elem_value_free(value) }
        snd_ctl_elem_value_set_numid(value, jack.id)
        try checkALSA(snd_ctl_elem_read(handle, value))
        return snd_ctl_elem_value_get_boolean(value, 0) != 0
    }

    /// Asks for an event each time an element changes.
    ///
    /// The corresponding C function is `snd_ctl_subscribe_events`.
    func subscribe() throws(DeviceError) {
        try checkALSA(snd_ctl_subscribe_events(handle, 1))
    }

    /// The descriptors to poll for events: readable when ``changedElements()`` has something to read.
    ///
    /// The corresponding C functions are `snd_ctl_poll_descriptors_count` and `snd_ctl_poll_descriptors`.
    func pollDescriptors() throws(DeviceError) -> [pollfd] {
        let count = snd_ctl_poll_descriptors_count(handle)
        try checkALSA(count)
        var descriptors = [pollfd](repeating: pollfd(), count: Int(count))
        let filled = snd_ctl_poll_descriptors(handle, &descriptors, UInt32(count))
        try checkALSA(filled)
        return Array(descriptors.prefix(Int(filled)))
    }

    /// The elements whose value changed, from the events queued since the last call, in order; empty
    /// when none is queued. ``DeviceError/disconnected`` when the card went away.
    ///
    /// The corresponding C functions are `snd_ctl_read` and `snd_ctl_event_elem_get_mask`.
    func changedElements() throws(DeviceError) -> [UInt32] {
        var event: OpaquePointer?
        try checkALSA(snd_ctl_event_malloc(&event))
        defer { snd_ctl_event_free(event) }
        var changed: [UInt32] = []
        while true {
            let result = snd_ctl_read(handle, event)
            if result == -EAGAIN || result == 0 { return changed }
            try checkALSA(result)
            guard snd_ctl_event_get_type(event) == SND_CTL_EVENT_ELEM else { continue }
            let mask = snd_ctl_event_elem_get_mask(event)
            // An element removed (all bits set) is no value change.
            if mask != SND_CTL_EVENT_MASK_REMOVE, mask & UInt32(SND_CTL_EVENT_MASK_VALUE) != 0 {
                changed.append(snd_ctl_event_elem_get_numid(event))
            }
        }
    }
}
