/// One audio device as the session describes it: an ALSA PCM, and the card behind it when there is one.
public struct PortDescription: Equatable, Hashable, Sendable {
    /// What kind of device it is, as far as its names tell.
    public enum PortType: String, Sendable {
        /// A sound card's analog output.
        case lineOut
        /// A sound card's analog input.
        case lineIn
        /// Headphones (a card's headphone jack).
        case headphones
        /// A microphone in a card's mic jack: a headset's, or one of its own.
        case headsetMic
        /// HDMI or DisplayPort audio.
        case hdmi
        /// A USB audio device.
        case usbAudio
        /// A sound server (PulseAudio, PipeWire, JACK) or ALSA's `default`, which usually reaches one.
        case soundServer
        /// A device that is no hardware: ALSA's `null` or `file` PCMs, a loopback.
        case virtual
        /// Nothing tells.
        case unknown
    }

    /// The ALSA PCM name, e.g. "default", "hw:1", "pulse"; for a card appearing or vanishing, "hw:N"; for
    /// a jack, the device in use on its card, else "hw:N".
    public let name: String
    /// What alsa-lib or the card calls it, e.g. "PulseAudio Sound Server" or "USB Audio CODEC".
    public let description: String
    /// The card index, when the device is a card's.
    public let card: Int?
    /// What kind of device it is.
    public let type: PortType

    /// Describes `name`; `card` and `description` come from alsa-lib when it knows them.
    public init(name: String, description: String, card: Int? = nil, type: PortType? = nil) {
        self.name = name
        self.description = description
        self.card = card
        self.type = type ?? Self.guessType(name: name, description: description)
    }

    /// The kind of device that `name` and `description` suggest.
    static func guessType(name: String, description: String) -> PortType {
        let text = (name + " " + description).lowercased()
        if text.contains("headphone") { return .headphones }
        if text.contains("hdmi") || text.contains("displayport") { return .hdmi }
        if text.contains("usb") { return .usbAudio }
        if ["pulse", "pipewire", "jack", "default", "sysdefault"].contains(where: { name.hasPrefix($0) }) || text.contains("sound server") {
            return .soundServer
        }
        if ["null", "file"].contains(where: { name.hasPrefix($0) }) || text.contains("loopback") { return .virtual }
        if name.hasPrefix("hw:") || name.hasPrefix("plughw:") || name.hasPrefix("front:") { return .lineOut }
        return .unknown
    }
}

/// The inputs and outputs in use, as `AVAudioSessionRouteDescription` describes them.
public struct RouteDescription: Equatable, Sendable {
    /// Devices recorded from.
    public let inputs: [PortDescription]
    /// Devices played on.
    public let outputs: [PortDescription]

    /// Describes a route of `inputs` and `outputs`, e.g. the one before a change, for comparing with
    /// ``AudioSession/Event/routeChanged(_:port:previousRoute:)``'s.
    public init(inputs: [PortDescription], outputs: [PortDescription]) {
        self.inputs = inputs
        self.outputs = outputs
    }
}
