import HistoryKit
import Testing

@Suite struct TerminalTextTests {
    /// Every scalar up to U+FFFF (and one of each longer UTF-8 form) is left as it is exactly
    /// when `escape` shows it as itself, alone and between letters; the bytes read first decide.
    @Test func textIsLeftAsItIsExactlyWhenNoCharacterIsEscaped() {
        let scalars =
            (0...0xFFFF).compactMap(Unicode.Scalar.init)
            + [Unicode.Scalar(0x1F600), Unicode.Scalar(0x10FFFF)].compactMap { $0 }
        var escaped = 0
        for scalar in scalars {
            let alone = String(Character(scalar))
            let between = "a" + alone + "b"
            let shownOtherwise = TerminalText.escape(scalar) != nil
            if shownOtherwise { escaped += 1 }
            #expect((TerminalText.visible(alone) != alone) == shownOtherwise, "U+\(String(scalar.value, radix: 16))")
            #expect(
                (TerminalText.visible(between) != between) == shownOtherwise,
                "U+\(String(scalar.value, radix: 16)) in text")
        }
        // C0 and DEL, C1, U+2028–U+202E and U+2066–U+2069.
        #expect(escaped == 32 + 1 + 32 + 7 + 4)
        #expect(TerminalText.visible("1 change, #4…#9") == "1 change, #4…#9")
        #expect(TerminalText.visible("a\u{202E}b\u{2069}\u{85}") == "a\\u{202E}b\\u{2069}\\u{85}")
        #expect(TerminalText.visible("x\r\ny\tz", newline: "↵", tab: " ") == "x↵y z")
    }
}
