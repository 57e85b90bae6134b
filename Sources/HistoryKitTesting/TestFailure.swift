import HistoryKit

#if canImport(Testing)
    import Testing
#endif
#if canImport(XCTest)
    import XCTest
#endif

/// Where in a test an expectation was written, as both test libraries take it (each public
/// expectation takes `#fileID`, `#filePath`, `#line` and `#column` from its caller).
struct TestLocation: Sendable {
    var fileID: String
    var filePath: StaticString
    var line: UInt
    var column: UInt
}

/// A failed expectation, recorded in the test library that runs the current test: an issue in
/// Swift Testing, `XCTFail` in XCTest. Strings from a store are shown with their control
/// characters made visible.
enum TestFailure {
    static func record(_ message: String, at location: TestLocation) {
        let text = TerminalText.visible(message, newline: "\n", tab: "\t")
        #if canImport(Testing)
            if Test.current != nil {
                Issue.record(
                    Comment(rawValue: text),
                    sourceLocation: SourceLocation(
                        fileID: location.fileID, filePath: "\(location.filePath)", line: Int(location.line),
                        column: Int(location.column)))
                return
            }
        #endif
        #if canImport(XCTest)
            XCTFail(text, file: location.filePath, line: location.line)
        #else
            assertionFailure(text)
        #endif
    }
}
