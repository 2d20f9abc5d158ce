import Foundation

/// A sound card with jack controls, for tests: its control device `controlC<N>` appears in a card directory
/// of the test's own (watched through `AUDIOIO_SND_DIR`, or a session made for it), and alsa-lib's `hw:N`
/// control device is the test plugin showing the jacks this card sets (see ``ALSATestDevices``).
///
/// Pick an index no other test uses: the jack states live in one directory per test process, which the
/// processes it starts share.
public struct TestSoundCard {
    /// The card index `N`.
    public let index: Int
    private let cards: URL
    private var jacks: [(name: String, plugged: Bool)]

    /// Makes card `index` with `jacks` (e.g. `["Headphone Jack": true]`, in the order given) and adds it to
    /// the card directory `cards`, as udev adds a card to /dev/snd.
    public init(index: Int, in cards: URL, jacks: KeyValuePairs<String, Bool>) throws {
        try ALSATestDevices.install()
        self.index = index
        self.cards = cards
        self.jacks = jacks.map { ($0.key, $0.value) }
        try writeState()
        guard FileManager.default.createFile(atPath: controlDevice.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: controlDevice.path])
        }
    }

    /// A PCM of this card, as `hw:N` would be on a real one: a `null` device, unclocked.
    public var device: String { "testcard:\(index)" }

    /// Plugs or unplugs `jack`, as the card's driver sees it: its control's value changes.
    public mutating func set(_ jack: String, plugged: Bool) throws {
        guard let position = jacks.firstIndex(where: { $0.name == jack }) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: jack])
        }
        jacks[position].plugged = plugged
        try writeState()
    }

    /// Takes the card away, as unplugging a USB card does.
    public func remove() throws {
        try FileManager.default.removeItem(at: controlDevice)
        try FileManager.default.removeItem(at: state)
    }

    private var controlDevice: URL { cards.appendingPathComponent("controlC\(index)") }
    private var state: URL { ALSATestDevices.jackDirectory.appendingPathComponent("card\(index)") }

    /// Written whole and renamed into place: the plugin never reads half a file.
    private func writeState() throws {
        let text = jacks.map { "\($0.name)=\($0.plugged ? 1 : 0)\n" }.joined()
        try text.write(to: state, atomically: true, encoding: .utf8)
    }
}

#if canImport(Testing)
import Testing

/// The test card itself, checked with alsa-utils' amixer (alsa-lib's control API, outside our code), so that
/// a broken rig is told apart from a broken library.
@Suite struct TestSoundCardTests {
    @Test func amixerSeesTheJacksAsACardsJackControlsAndTheirValuesChange() throws {
        let scratch = try ScratchDirectory()
        var card = try TestSoundCard(index: 41, in: scratch.url, jacks: ["Headphone Jack": true, "Mic Jack": false])
        defer { try? card.remove() }
        #expect(try Tool.output("amixer", ["-D", "hw:41", "controls"])
            == "numid=1,iface=CARD,name='Headphone Jack'\nnumid=2,iface=CARD,name='Mic Jack'\n")
        func value(_ jack: String) throws -> String? {
            try Tool.output("amixer", ["-D", "hw:41", "cget", "iface=CARD,name=\(jack)"])
                .split(separator: "\n").first { $0.contains(": values=") }?.split(separator: "=").last.map(String.init)
        }
        #expect(try value("Headphone Jack") == "on" && value("Mic Jack") == "off")
        try card.set("Headphone Jack", plugged: false)
        #expect(try value("Headphone Jack") == "off")
        #expect(try Tool.output("amixer", ["-D", "hw:41", "info"]).contains("Card hw:41 'TestJacks41'/'Test card 41 with jack controls'"))
    }
}
#endif
