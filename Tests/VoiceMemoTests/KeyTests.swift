import Testing
@testable import voicememo

@Suite struct KeyTests {
    @Test func rawTerminalBytesBecomeTheKeysPlayAndRecordTake() {
        let bytes: [UInt8] = [0x20, 0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44, 0x2B, 0x2D, 0x71, 0x78, 0x1B, 0x5B, 0x41, 0x0A, 0x0D]
        #expect(Key.parse(bytes) == [.space, .right, .left, .plus, .minus, .quit, .enter, .enter])
        #expect(Key.parse(Array("m[]M".utf8)) == [.mark, .previousMarker, .nextMarker, .mark])
        // mpv's volume keys.
        #expect(Key.parse(Array("90/*".utf8)) == [.volumeDown, .volumeUp, .volumeDown, .volumeUp])
    }

    @Test func shiftedArrowsAndTheirStandInsSkip15SecondsAndLettersMoveThroughMemos() {
        // xterm's shift+→ and shift+←, then ctrl+→ (a plain seek), then , . < > n p s.
        let bytes = Array("\u{1B}[1;2C\u{1B}[1;2D\u{1B}[1;5C,.<>nps".utf8)
        #expect(Key.parse(bytes) == [.shiftRight, .shiftLeft, .right, .shiftLeft, .shiftRight, .shiftLeft, .shiftRight, .next, .previous, .sleep])
    }

    @Test func kTogglesSkippingSilenceAndSStaysTheSleepTimer() {
        #expect(Key.parse(Array("kKsS".utf8)) == [.skipSilence, .skipSilence, .sleep, .sleep])
    }
}
