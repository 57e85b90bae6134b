import Foundation
import HistoryKit
import MCP

/// A command's JSON document cut to a size an agent can hold: whole when it fits, else its
/// longest list paged, the rest of the document as it is, with a `page` member that says which
/// rows the page holds, how many there are, and the cursor of the next page.
enum ResultPage {
    /// Room kept for the `page` member.
    private static let pageMemberRoom = 400

    /// The whole of `file`, a command's output, through ``FileContents`` (which reads an empty
    /// file without the 4 KiB leak of `Data(contentsOf:)` on Linux).
    static func whole(_ file: URL) throws -> Data {
        guard let data = FileContents.read(file.path) else {
            let why = FileContents.whyUnreadable(file.path) ?? "unreadable"
            throw ToolFailure("cannot read the command's answer in \(file.path): \(why)")
        }
        return data
    }

    /// The document in `file` (a command's output, `size` bytes) for `call`, at most `limit` bytes.
    /// A document (or the first row of a page) too large even so has its long strings cut
    /// (``LongStrings``), and says how many in `cutStrings`.
    static func bounded(_ file: URL, size: Int, call: ToolCall, limit: Int) throws -> Data {
        let cursor = try call.cursor.map { try PageCursor(decoding: $0, for: call) }
        // A document that fits, asked for whole, is read once; its lists are scanned only to page.
        if cursor == nil, call.pageRows == nil, size <= limit { return try whole(file) }
        let lists = try DocumentLists.scan(file)
        if cursor == nil, let rows = call.pageRows, lists.lists.allSatisfy({ $0.count <= rows }), size <= limit {
            return try whole(file)
        }
        let paged: DocumentLists.List?
        if let cursor {
            paged = lists.lists.first { $0.key == cursor.list }
        } else {
            paged = lists.lists.max { $0.close - $0.open < $1.close - $1.open }
        }
        guard let list = paged else {
            let (document, cut) = LongStrings.cut(try whole(file))
            guard cut > 0, document.count + pageMemberRoom <= limit else {
                throw ToolFailure(
                    """
                    the answer is \(lists.size) bytes, over the server's limit of \(limit), and holds no list to \
                    page: narrow the question
                    """
                )
            }
            return try adding(["cutStrings": .int(cut)], to: document)
        }
        let first = cursor?.offset ?? 0
        let budget = limit - (list.open + 1) - (lists.size - list.close) - pageMemberRoom
        var ranges: [Range<Int>] = []
        var used = 0
        var tooLarge: Range<Int>?
        try DocumentLists.elements(of: list.key, in: file) { index, range in
            guard index >= first else { return true }
            if let rows = call.pageRows, ranges.count >= rows { return false }
            let cost = range.count + (ranges.isEmpty ? 0 : 1)
            guard used + cost <= budget else {
                if ranges.isEmpty { tooLarge = range }
                return false
            }
            ranges.append(range)
            used += cost
            return true
        }
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        func bytes(_ range: Range<Int>) throws -> Data {
            try handle.seek(toOffset: UInt64(range.lowerBound))
            return try handle.read(upToCount: range.count) ?? Data()
        }
        // A row too large for a page alone is the page, with its long strings cut.
        var shortened: (json: Data, cut: Int)?
        if let tooLarge {
            let row = LongStrings.cut(try bytes(tooLarge))
            guard row.cut > 0, row.json.count <= budget else {
                throw ToolFailure(
                    """
                    row \(first) of '\(list.key)' is \(tooLarge.count) bytes, more than a page of \(limit) bytes \
                    holds: narrow the question, or start the server with a larger --max-result-bytes
                    """
                )
            }
            ranges = [tooLarge]
            shortened = row
        }
        let next = first + ranges.count
        var members: [String: Value] = [
            "page": .object([
                "list": .string(list.key), "offset": .int(first), "count": .int(ranges.count),
                "total": .int(list.count),
                "nextCursor": next < list.count
                    ? .string(PageCursor(call: call, list: list.key, offset: next).encoded) : .null,
            ])
        ]
        if let shortened { members["cutStrings"] = .int(shortened.cut) }
        var document = try bytes(0..<(list.open + 1))
        for (i, range) in ranges.enumerated() {
            if i > 0 { document.append(UInt8(ascii: ",")) }
            document.append(try shortened?.json ?? bytes(range))
        }
        document.append(try bytes(list.close..<lists.size))
        return try adding(members, to: document)
    }

    /// `document`, a JSON object, with `members` added at its end (in the order of their names).
    private static func adding(_ members: [String: Value], to document: Data) throws -> Data {
        guard let end = document.lastIndex(of: UInt8(ascii: "}")) else {
            throw ToolFailure("the command's answer is not one JSON object")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var added = Data()
        for name in members.keys.sorted() {
            added.append(contentsOf: Data(",\"\(name)\":".utf8) + (try encoder.encode(members[name])))
        }
        var result = document
        result.insert(contentsOf: added, at: end)
        return result
    }
}

/// Where a page of an answer ends: the question it belongs to, the list, the next row.
struct PageCursor {
    let question: UInt64
    let list: String
    let offset: Int

    init(call: ToolCall, list: String, offset: Int) {
        question = Self.fingerprint(call.question)
        self.list = list
        self.offset = offset
    }

    /// The cursor `text` names, checked to continue `call`'s question.
    init(decoding text: String, for call: ToolCall) throws {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let fields = try? JSONDecoder().decode(Fields.self, from: data),
            let question = UInt64(fields.q, radix: 16), fields.o >= 0
        else {
            throw MCPError.invalidParams("\(call.definition.name): 'cursor' is not a cursor this server gave")
        }
        guard question == Self.fingerprint(call.question) else {
            throw MCPError.invalidParams(
                """
                \(call.definition.name): the cursor continues another question (call with the same arguments as \
                the page that gave it)
                """
            )
        }
        self.question = question
        list = fields.l
        offset = fields.o
    }

    /// The cursor as a page gives it: URL-safe base64 of its fields.
    var encoded: String {
        let fields = Fields(q: String(question, radix: 16), l: list, o: offset)
        let data = (try? JSONEncoder().encode(fields)) ?? Data()
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private struct Fields: Codable {
        let q: String
        let l: String
        let o: Int
    }

    /// FNV-1a of `text`: the same in every process (Swift's Hasher is seeded anew per process).
    private static func fingerprint(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// A tool's failure to answer, told to the agent as the tool's error result.
struct ToolFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
