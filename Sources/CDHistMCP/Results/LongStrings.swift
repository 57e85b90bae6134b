import CDHistCLI
import Foundation

/// A JSON answer (or one row of it) with its long string values cut as ``TextCut`` cuts them:
/// what the server sends when the answer would not fit a page whole. Member names are kept.
enum LongStrings {
    /// `json` with each string value of more than ``TextCut/limit`` characters cut, and how many were.
    static func cut(_ json: Data) -> (json: Data, cut: Int) {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), colon = UInt8(ascii: ":")
        let decoder = JSONDecoder(), encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var out = Data()
        out.reserveCapacity(json.count)
        var cut = 0
        var i = json.startIndex
        while i < json.endIndex {
            guard json[i] == quote else {
                out.append(json[i])
                i += 1
                continue
            }
            var end = i + 1
            var escaped = false
            while end < json.endIndex {
                let byte = json[end]
                end += 1
                if escaped {
                    escaped = false
                } else if byte == backslash {
                    escaped = true
                } else if byte == quote {
                    break
                }
            }
            let token = json[i..<end]
            var next = end
            while next < json.endIndex, whitespace.contains(json[next]) { next += 1 }
            let isName = next < json.endIndex && json[next] == colon
            // A string of at most `limit` characters takes at least as many bytes, and its quotes.
            if !isName, token.count > TextCut.limit + 2,
                let text = try? decoder.decode(String.self, from: Data(token)),
                let short = TextCut.cut(text), let encoded = try? encoder.encode(short)
            {
                out.append(encoded)
                cut += 1
            } else {
                out.append(token)
            }
            i = end
        }
        return (out, cut)
    }
}
