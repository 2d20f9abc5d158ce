import Testing
@testable import voicememo

@Suite struct SleepDurationTests {
    @Test(arguments: [("90s", 90.0), ("20m", 1200), ("1h", 3600), ("1h30m", 5400), ("1h30m15s", 5415), ("2m30s", 150)])
    func durationsWithTheirUnitsAreRead(text: String, seconds: Double) throws {
        #expect(try SleepDuration.parse(text).seconds == seconds)
    }

    @Test(arguments: ["20", "", "0m", "1m1h", "1.5h", "m", "-5m", "20 m", "1h30"])
    func anythingElseSaysWhatItTakes(text: String) throws {
        let error = try #require(throws: (any Error).self) { try SleepDuration.parse(text) }
        #expect("\(error)".contains("such as 90s, 20m, 1h or 1h30m, not '\(text)'"), "\(error)")
    }
}
