import CALSA
import Glibc

/// The sound cards and PCMs alsa-lib knows of, as plain Swift values.
///
/// **Thread safety**: every function may be called from any thread (alsa-lib reads its configuration
/// under its own lock).
enum SoundCards {
    /// A sound card: its index (the `N` of `hw:N` and `/dev/snd/controlCN`), short and long names.
    struct Card: Equatable, Sendable {
        var index: Int
        var name: String
        var longName: String
    }

    /// A PCM from alsa-lib's configuration hints: its name for `snd_pcm_open`, its description, and
    /// which ways it works.
    struct PCMHint: Equatable, Sendable {
        var name: String
        var description: String
        var isInput: Bool
        var isOutput: Bool
    }

    /// Every card present, by index. The corresponding C function is `snd_card_next`.
    static func cards() -> [Card] {
        var cards: [Card] = []
        var index: Int32 = -1
        while snd_card_next(&index) == 0, index >= 0 {
            if let card = card(index: Int(index)) { cards.append(card) }
        }
        return cards
    }

    /// The card at `index`, or `nil` when there is none.
    ///
    /// The corresponding C functions are `snd_card_get_name` and `snd_card_get_longname`.
    static func card(index: Int) -> Card? {
        guard let name = string(index, snd_card_get_name) else { return nil }
        return Card(index: index, name: name, longName: string(index, snd_card_get_longname) ?? name)
    }

    /// The PCMs of alsa-lib's configuration and of every card, in its order.
    ///
    /// The corresponding C functions are `snd_device_name_hint`, `snd_device_name_get_hint` and
    /// `snd_device_name_free_hint`.
    static func pcmHints() throws(DeviceError) -> [PCMHint] {
        ALSALibrary.silenceErrorMessages()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        try checkALSA(snd_device_name_hint(-1, "pcm", &hints))
        guard let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var result: [PCMHint] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            guard let name = value(of: "NAME", in: hint) else { continue }
            // alsa-lib's description has a line per detail: the first names the device.
            let description = value(of: "DESC", in: hint)?.split(separator: "\n").joined(separator: ", ") ?? name
            // No IOID means both ways.
            let direction = value(of: "IOID", in: hint)
            result.append(PCMHint(
                name: name, description: description, isInput: direction != "Output", isOutput: direction != "Input"))
        }
        return result
    }

    private static func value(of field: String, in hint: UnsafeMutableRawPointer) -> String? {
        guard let text = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }

    private static func string(_ index: Int, _ get: (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32) -> String? {
        var text: UnsafeMutablePointer<CChar>?
        guard get(Int32(index), &text) == 0, let text else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}
