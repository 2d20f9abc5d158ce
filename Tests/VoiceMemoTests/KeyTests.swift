import Testing
@testable import voicememo

@Suite struct KeyTests {
    @Test func rawTerminalBytesBecomeTheKeysPlayAndRecordTake() {
        let bytes: [UInt8] = [0x20, 0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44, 0x2B, 0x2D, 0x71, 0x78, 0x1B, 0x5B, 0x41, 0x0A, 0x0D]
        #expect(Key.parse(bytes) == [.space, .right, .left, .plus, .minus, .quit, .enter, .enter])
    }

    @Test func sTogglesSkippingSilence() {
        #expect(Key.parse(Array("sS".utf8)) == [.skipSilence, .skipSilence])
    }
}
