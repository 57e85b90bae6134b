import FuzzSupport
import HistoryKit

// The terminal-text sanitiser: whatever a store's string holds (any bytes, read as
// UTF-8 the way SQLite text is), what it shows holds no control character, and text
// without one is shown as it is.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)
    for (newline, tab) in [("\\n", "\\t"), ("↵", " ")] {
        let shown = TerminalText.visible(text, newline: newline, tab: tab)
        let sent = shown.unicodeScalars.first { TerminalText.escape($0) != nil }
        precondition(sent == nil, "a control character is shown raw: U+\(String(sent?.value ?? 0, radix: 16))")
        if !text.unicodeScalars.contains(where: { TerminalText.escape($0) != nil }) {
            precondition(shown == text, "text without a control character was changed")
        }
    }
    return 0
}

FuzzDriver.main(testOneInput)
