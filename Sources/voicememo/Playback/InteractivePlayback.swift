import AudioIO
import Foundation

/// `voicememo play` in a terminal: a status line redrawn about 20 times a second (play/pause, position,
/// speed, a level meter per channel with peak hold), and keys: space pauses and resumes, ←/→ seek 5 s,
/// +/- change the speed by 0.25, q quits.
struct InteractivePlayback {
    /// Seconds a seek key moves.
    static let seekStep: TimeInterval = 5
    /// Speed a +/- key adds or takes away.
    static let rateStep: Float = 0.25

    let group: PlayerGroup
    let showsMeter: Bool
    let terminal = Terminal()

    /// Plays the group with the status line and the keys; returns as ``PlayerGroup/playTogether()`` does,
    /// with the terminal restored.
    func run() async throws -> Bool {
        terminal.enterRawMode()
        defer { terminal.restore() }
        let keys = Task { for await key in Key.typed() { handle(key) } }
        let drawing = Task {
            var holds = PeakHold()
            while !Task.isCancelled {
                terminal.redraw(statusLine(holds: &holds))
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer {
            keys.cancel()
            drawing.cancel()
        }
        return try await group.playTogether()
    }

    private func handle(_ key: Key) {
        let players = group.players
        switch key {
        case .space:
            if players.contains(where: \.isPlaying) { players.forEach { $0.pause() } } else { players.forEach { $0.play() } }
        case .left, .right:
            let step = key == .left ? -Self.seekStep : Self.seekStep
            for player in players { player.currentTime = min(max(player.currentTime + step, 0), player.duration) }
        case .plus, .minus:
            let step = key == .plus ? Self.rateStep : -Self.rateStep
            for player in players { player.rate = min(max(player.rate + step, 0.5), 2) }
        case .quit:
            group.quit()
        }
    }

    private func statusLine(holds: inout PeakHold) -> String {
        let lead = group.players[0]
        let symbol = group.players.contains(where: \.isPlaying) ? "▶" : "⏸"
        var line = "\(symbol) \(Describe.duration(lead.currentTime)) / \(Describe.duration(lead.duration))"
        if lead.rate != 1 { line += String(format: "  ×%.2f", lead.rate) }
        guard showsMeter else { return line }
        for player in group.players { player.updateMeters() }
        let channels = 2
        let barWidth = max(8, (terminal.columns - line.count - 4 - channels * 11) / channels)
        let bar = LevelBar(width: barWidth)
        let peaks = (0..<channels).map { channel in
            Double(group.players.map { $0.peakPower(forChannel: channel) }.max() ?? Float(AudioLevels.floor))
        }
        let marks = holds.update(peaks: peaks, at: ProcessInfo.processInfo.systemUptime)
        var meters: [String] = []
        for channel in 0..<channels {
            let peak = peaks[channel]
            let average = Double(group.players.map { $0.averagePower(forChannel: channel) }.max() ?? Float(AudioLevels.floor))
            let name = channel == 0 ? "L" : "R"
            meters.append("\(name) " + bar.render(average: average, peak: peak, peakHold: marks[channel], in: terminal))
        }
        return line + "  " + meters.joined(separator: "  ")
    }
}
