import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge

/// Short human forms of durations, sizes and formats for the terminal.
enum Describe {
    /// `m:ss.s` below an hour, `h:mm:ss` above, e.g. `0:03.2`, `12:07.0`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        // A live stream's length.
        guard seconds.isFinite else { return "live" }
        let tenths = Int((seconds * 10).rounded())
        let (hours, minutes, rest) = (tenths / 36000, tenths / 600 % 60, tenths % 600)
        if hours > 0 { return "\(hours):\(twoDigits(minutes)):\(twoDigits(rest / 10))" }
        return "\(minutes):\(twoDigits(rest / 10)).\(rest % 10)"
    }

    /// Seconds left as a timer shows them, in whole seconds rounded up: `m:ss` below an hour, `h:mm:ss` above, e.g.
    /// `14:59`, `1:00:00`.
    static func countdown(_ seconds: Double) -> String {
        let total = Int(max(seconds, 0).rounded(.up))
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
    }

    /// Bytes in B, KB, MB or GB (powers of 1000, as `ls --si`).
    static func size(_ bytes: Int64) -> String {
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < sizeUnits.count - 1 {
            value /= 1000
            unit += 1
        }
        guard unit > 0 else { return "\(bytes) B" }
        let tenths = Int((value * 10).rounded())
        return (value < 10 ? "\(tenths / 10).\(tenths % 10)" : "\(Int(value.rounded()))") + " " + sizeUnits[unit]
    }

    private static let sizeUnits = ["B", "KB", "MB", "GB", "TB"]

    /// Local date and time to the minute, e.g. `2026-11-22 21:59`: what a list needs to tell memos apart.
    static func date(_ date: Date) -> String {
        LocalTime(secondsSince1970: date.timeIntervalSince1970)?.minute ?? "\(date)"
    }

    /// Local date and time to the second with the offset from UTC, e.g. `2026-11-22 21:59:22 +0100`.
    static func dateTime(_ date: Date) -> String {
        guard let local = LocalTime(secondsSince1970: date.timeIntervalSince1970) else { return "\(date)" }
        let offset = abs(local.secondsFromUTC) / 60
        return local.minute + ":\(twoDigits(local.second)) \(local.secondsFromUTC < 0 ? "-" : "+")"
            + twoDigits(offset / 60) + twoDigits(offset % 60)
    }

    /// `value` (0 or more) with a leading zero below 10: what `%02d` gives, without `String(format:)`, which a
    /// list of thousands of memos would call tens of thousands of times.
    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// Levels per channel in dBFS to a tenth, e.g. `-6.0 dBFS` or `-6.0, -inf dBFS` (channel 1 first).
    static func levels(_ levels: [Double]) -> String {
        levels.map { $0 > AudioLevels.floor ? level($0) : silence }.joined(separator: ", ") + " dBFS"
    }

    /// A level of silence, as sox and mpv write it: AudioLevels' floor, -160 dBFS, is no level anyone measured.
    static let silence = "-inf"

    /// A memo's loudness as three measures, e.g. `-18.3 LUFS, range 6.2 LU, true peak -3.1 dBTP`; for a memo without,
    /// why.
    static func loudness(of memo: Memo) -> String {
        guard let loudness = memo.loudness else {
            return memo.state == .recording ? "not measured yet (it is being recorded)" : "not measured (its file could not be read)"
        }
        return "\(level(loudness.integrated)) LUFS, range \(level(loudness.range)) LU, true peak \(level(loudness.truePeak)) dBTP"
    }

    /// An edit, e.g. `trim 0:12.0–0:45.5`.
    static func edit(_ edit: MemoEdit) -> String {
        switch edit {
        case .trim(let start, let end): "trim \(duration(start))–\(duration(end))"
        case .rename: "rename"
        case .delete: "delete"
        case .syncConflict: "sync conflict"
        }
    }

    /// What `--normalize` makes of a memo as loud as `loudness`, to follow its name: ` at -16.0 LUFS (+3.2 dB)`; when
    /// its true peak holds the gain back, the loudness it reaches and why: ` at -19.6 LUFS, not -16.0 (+0.5 dB: its
    /// true peak, -1.5 dBTP, stays under -1 dBTP)`; for silence, that nothing is raised.
    static func normalization(to target: Double, of loudness: AudioLoudness) -> String {
        guard loudness.integrated > AudioLoudness.silence else { return " as it is (silent: nothing to raise)" }
        let gain = loudness.normalizationGain(toLoudness: target)
        let reached = loudness.integrated + gain
        guard level(reached) != level(target) else { return " at \(level(target)) LUFS (\(self.gain(gain)))" }
        return " at \(level(reached)) LUFS, not \(level(target)) (\(self.gain(gain)): its true peak, "
            + "\(level(loudness.truePeak + gain)) dBTP, stays under -1 dBTP)"
    }

    /// A gain to a tenth of a dB with its sign, e.g. `+4.2 dB`, `-1.0 dB`.
    static func gain(_ decibels: Double) -> String {
        (decibels >= 0 ? "+" : "") + level(decibels) + " dB"
    }

    /// A level to a tenth of a dB, e.g. `-6.0`, `-160.0`.
    static func level(_ level: Double) -> String {
        // Rounded first, so that a level just below 0 reads 0.0, not -0.0.
        number((level * 10).rounded() / 10 + 0, "%.1f")
    }

    /// `value` as C's `printf` writes it with `format`, one conversion of a `double` (e.g. `%.1f`, `%g`).
    static func number(_ value: Double, _ format: String) -> String {
        Printf.string(value, format: format)
    }

    /// e.g. `opus 48 kHz mono`, `wav 44.1 kHz stereo`.
    static func format(_ format: AudioFileFormat, sampleRate: Double, channels: Int) -> String {
        let kilohertz = sampleRate / 1000
        let rate = kilohertz.rounded() == kilohertz ? String(Int(kilohertz)) : number(kilohertz, "%g")
        let layout = switch channels {
        case 1: "mono"
        case 2: "stereo"
        default: "\(channels) ch"
        }
        return "\(format.rawValue) \(rate) kHz \(layout)"
    }

    /// The format as a narrow table writes it, e.g. `wav 48k 2ch`, `opus 16k 1ch`.
    static func shortFormat(_ format: AudioFileFormat, sampleRate: Double, channels: Int) -> String {
        let kilohertz = sampleRate / 1000
        let rate = kilohertz.rounded() == kilohertz ? String(Int(kilohertz)) : number(kilohertz, "%g")
        return "\(format.rawValue) \(rate)k \(channels)ch"
    }

    /// A player's failure, with what to do about a device that cannot be opened.
    static func failure(_ error: AudioPlayerError) -> String {
        guard case .device(let device) = error, device.operation == .open else { return "\(error)" }
        return DeviceFailure(error: device).description
    }
}
