import AudioIO
import Testing
@testable import voicememo

/// The meter's text, drawn from levels alone.
@Suite struct MeterLineTests {
    @Test func theBarIsSolidToTheAverageShadedToThePeakAndMarksTheHeldPeak() {
        let line = MeterLine(barWidth: 12, usesColor: false)
        // 12 cells over −60…0 dBFS: 5 dB each.
        #expect(line.channel("L", peak: -20, average: -40, hold: -10) == "L ████▒▒▒▒··|·  -20.0 peak  -40.0 avg dBFS")
        // Silence reads -inf, as sox and mpv write it, not the floor of -160 dBFS that no one measured.
        #expect(line.channel("R", peak: -160, average: -160, hold: -160) == "R ············   -inf peak   -inf avg dBFS")
        #expect(line.channel("M", peak: 0, average: -3.01, hold: 0) == "M ███████████|    0.0 peak   -3.0 avg dBFS")
    }

    @Test func colorsFollowTheZonesAndAreResetAtTheEnd() {
        let bar = MeterLine(barWidth: 12, usesColor: true).channel("L", peak: 0, average: 0, hold: -160)
        // Each cell takes the zone of the level at its middle: below −18 green, below −6 yellow, then red.
        #expect(bar.hasPrefix("L \u{1B}[0m\u{1B}[32m████████\u{1B}[0m\u{1B}[33m███\u{1B}[0m\u{1B}[31m█\u{1B}[0m "))
    }

    @Test func labelsStatusAndPlainLines() {
        #expect((0..<2).map { MeterLine.label(channel: $0, of: 2) } == ["L", "R"])
        #expect(MeterLine.label(channel: 0, of: 1) == "M" && MeterLine.label(channel: 2, of: 4) == "3")
        #expect(MeterLine.status("● REC  ", title: "Standup", elapsed: 3.24, bytes: 96000).text == "● REC  Standup  0:03.2  96 KB")
        #expect(MeterLine.status("METER  ", title: "pulse", elapsed: 0.5, bytes: nil).text == "METER  pulse  0:00.5")
        let levels = AudioLevels(peak: [-6.02, -160], average: [-9.03, -160])
        #expect(MeterLine.plain(elapsed: 1, levels: levels, bytes: nil) == "0:01.0  peak -6.0, -inf dBFS  average -9.0, -inf dBFS")
    }

    @Test func thePlaybackLineShowsStatePositionOfDurationAndAChangedSpeed() {
        #expect(MeterLine.playback("Standup", isPlaying: true, position: 3.24, duration: 65, rate: 1).text == "▶ Standup  0:03.2 / 1:05.0")
        #expect(MeterLine.playback("A + B", isPlaying: false, position: 0, duration: 2, rate: 1.25).text == "⏸ A + B  0:00.0 / 0:02.0  ×1.25")
        #expect(MeterLine.playback("A", isPlaying: true, position: 0, duration: 2, rate: 1.25, volume: 0.7).text == "▶ A  0:00.0 / 0:02.0  ×1.25  vol 70%")
        #expect(MeterLine.playback("A", isPlaying: true, position: 0, duration: 2, rate: 1, volume: 0).text == "▶ A  0:00.0 / 0:02.0  vol 0%")
        #expect(MeterLine.playback("talk.wav", isPlaying: true, position: 12, duration: 30, rate: 1, isBuffering: true).text
            == "… talk.wav  0:12.0 / 0:30.0  buffering")
        // Another program holds the device: record's words, on play's line.
        #expect(MeterLine.playback("Standup", isPlaying: false, position: 0, duration: 65, rate: 1, place: (1, 2), waitsForDevice: true).text
            == "⏳ WAITING FOR THE DEVICE  Standup  0:00.0 / 1:05.0  1/2")
        #expect(MeterLine.status(MeterLine.waitingForDevice, title: "Standup", elapsed: 0, bytes: 0).text
            == "⏳ WAITING FOR THE DEVICE  Standup  0:00.0  0 B")
    }

    @Test func theDownloadBarShowsWhatWasHeardWhatIsHereAndWhatIsNot() {
        // 20 cells of a second: heard to 5 s, downloaded to 10 s and from 15 s (a seek's range, an Ogg file's end).
        #expect(ProgressBar.line(position: 5, duration: 20, loaded: [0..<10, 15..<20], columns: 20) == "█████▒▒▒▒▒·····▒▒▒▒▒")
        // A cell only partly downloaded is not shown as here.
        #expect(ProgressBar.line(position: 0, duration: 4, loaded: [0..<2.5], columns: 4) == "▒▒··")
        #expect(ProgressBar.line(position: 4, duration: 4, loaded: [0..<4], columns: 4) == "████")
        #expect(ProgressBar.line(position: 0, duration: 0, loaded: [], columns: 10).isEmpty)
    }

    @Test func whileSilenceIsSkippedThePlaybackLineShowsTheTimeSaved() {
        let line = MeterLine.playback("Standup", isPlaying: true, position: 3.24, duration: 65, rate: 1.5, silenceSkipped: 12.44)
        #expect(line.text == "▶ Standup  0:03.2 / 1:05.0  ×1.50  0:12.4 saved")
        #expect(line.fitted(toColumns: 40) == "▶ Standup  0:03.2 / 1:05.0  ×1.50", "the saving goes first on a narrow terminal")
    }

    @Test func aNarrowTerminalGetsShorterWordsThenThePeakAloneThenNoBar() {
        func line(_ columns: Int) -> String {
            MeterLine(columns: columns, usesColor: false).channel("L", peak: -20, average: -40, hold: -10)
        }
        #expect(line(42) == "L ███▒▒▒··|·  -20.0 peak  -40.0 avg dBFS")
        #expect(line(40) == "L █████▒▒▒▒▒···|··  -20.0 pk  -40.0 av")
        #expect(line(20) == "L ███▒▒▒▒··|·  -20")
        #expect(line(10) == "L  -20")
        for columns in 7...120 {
            #expect(line(columns).count < columns)
        }
    }

    @Test func aStatusLineShortensItsTitleDropsFieldsAndKeepsTheTime() {
        let recording = MeterLine.status("● REC  ", title: "Weekly standup", elapsed: 3.24, bytes: 96000)
        #expect(recording.fitted(toColumns: 80) == "● REC  Weekly standup  0:03.2  96 KB")
        #expect(recording.fitted(toColumns: 30) == "● REC  Weekly …  0:03.2  96 KB")
        #expect(recording.fitted(toColumns: 20) == "● REC  Week…  0:03.2")
        let playing = MeterLine.playback("Weekly standup", isPlaying: true, position: 3.24, duration: 65, rate: 1.25)
        #expect(playing.fitted(toColumns: 20) == "▶ 0:03.2 / 1:05.0")
        #expect(playing.fitted(toColumns: 10) == "▶ 0:03.2 …")
        for columns in 1...60 {
            #expect(recording.fitted(toColumns: columns).count <= columns && playing.fitted(toColumns: columns).count <= columns)
        }
    }

    @Test func aPeakIsHeldThenFollowsTheLevelDown() {
        var hold = PeakHold()
        #expect(hold.update(peaks: [-10, -30], at: 0) == [-10, -30])
        #expect(hold.update(peaks: [-20, -20], at: 1) == [-10, -20])
        #expect(hold.update(peaks: [-25, -40], at: 1.4) == [-10, -20])
        #expect(hold.update(peaks: [-25, -40], at: 1.6) == [-25, -20])
        #expect(hold.update(peaks: [-30, -40], at: 2.6) == [-25, -40])
    }
}
