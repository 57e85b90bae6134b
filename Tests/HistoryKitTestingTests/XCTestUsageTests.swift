import HistoryKit
import HistoryKitTesting
import TestSupport
import XCTest

/// HistoryKitTesting from XCTest, as an app's older test targets use it: the expectations run
/// outside Swift Testing (where a failure would go to XCTFail) and pass on a healthy store.
final class XCTestUsageTests: XCTestCase {
    func testExpectationsRunUnderXCTest() throws {
        let dir = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "")
        let history = AppHistory(store: dir.file("Tasks.sqlite"), defaults: [dir.file("phtk.plist")])
        let now = Date(timeIntervalSinceReferenceDate: 762_944_400)
        try history.expectHealthy(failingAt: .error, now: now)
        let before = try DirectoryState(dir.path)
        let inside = try history.provoking(.behind, actor: "widget", by: 2, now: now) {
            try DirectoryState(dir.path)
        }
        XCTAssertNotEqual(inside, before)
        XCTAssertEqual(try DirectoryState(dir.path), before)
        let mark = try history.mark()
        XCTAssertEqual(try history.writtenSince(mark).count, 0)
    }
}
