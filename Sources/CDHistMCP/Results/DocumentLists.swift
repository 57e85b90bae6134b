import Foundation

/// The lists of a JSON document in a file: the arrays that are members of its top-level
/// object, found by one pass over its bytes (never the whole document in memory).
struct DocumentLists {
    /// One top-level member whose value is an array.
    struct List: Equatable {
        /// The member's name.
        let key: String
        /// The offsets of its `[` and `]` in the file.
        let open: Int
        let close: Int
        /// Its elements.
        let count: Int
    }

    /// The document's size in bytes.
    let size: Int
    let lists: [List]

    /// The lists of the document in `file`.
    static func scan(_ file: URL) throws -> DocumentLists {
        var scanner = Scanner(watching: nil)
        let size = try scanner.run(file) { _, _ in true }
        return DocumentLists(size: size, lists: scanner.lists)
    }

    /// Calls `body` with the index and byte range of each element of the list named `key`, in
    /// order, until it returns false.
    static func elements(of key: String, in file: URL, _ body: (Int, Range<Int>) -> Bool) throws {
        var scanner = Scanner(watching: key)
        _ = try scanner.run(file, body)
    }

    /// A pass over a document's bytes that tracks nesting and strings.
    private struct Scanner {
        /// The list whose elements are handed out; nil: none.
        let watched: String?
        var lists: [List] = []

        init(watching key: String?) { watched = key }

        /// Reads `file` through, calling `body` with the watched list's elements; the file's size.
        mutating func run(_ file: URL, _ body: (Int, Range<Int>) -> Bool) throws -> Int {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            var depth = 0
            var inString = false
            var escaped = false
            /// The last string of the top-level object (a member's name, before its value).
            var name: [UInt8] = []
            var collecting = false
            var lastName = ""
            /// The top-level list being read: its name, `[`, elements so far.
            var list: (key: String, open: Int, count: Int)?
            var elementStart: Int?
            var lastByte = 0
            var offset = 0
            var stopped = false
            /// Ends the element of the top-level list being read (at the last byte before the
            /// `,` or `]`), handing it to `body` when the list is the watched one.
            func endElement() {
                guard let current = list, let start = elementStart else { return }
                if current.key == watched, !stopped, !body(current.count, start..<(lastByte + 1)) { stopped = true }
                list?.count += 1
                elementStart = nil
            }
            while !stopped, let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
                for byte in block {
                    defer { offset += 1 }
                    if inString {
                        if escaped {
                            escaped = false
                        } else if byte == UInt8(ascii: "\\") {
                            escaped = true
                        } else if byte == UInt8(ascii: "\"") {
                            inString = false
                            if collecting {
                                lastName = String(decoding: name, as: UTF8.self)
                                collecting = false
                            }
                        } else if collecting {
                            name.append(byte)
                        }
                        lastByte = offset
                        continue
                    }
                    switch byte {
                    case 0x20, 0x0A, 0x0D, 0x09:
                        continue
                    case UInt8(ascii: ","):
                        if depth == 2 { endElement() }
                    case UInt8(ascii: "]") where depth == 2 && list != nil:
                        endElement()
                        if let current = list {
                            lists.append(
                                List(key: current.key, open: current.open, close: offset, count: current.count))
                        }
                        list = nil
                        depth -= 1
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        if depth == 1, byte == UInt8(ascii: "[") {
                            list = (lastName, offset, 0)
                            elementStart = nil
                        } else if depth == 2, list != nil, elementStart == nil {
                            elementStart = offset
                        }
                        depth += 1
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        depth -= 1
                    default:
                        if byte == UInt8(ascii: "\"") {
                            inString = true
                            if depth == 1 {
                                name.removeAll(keepingCapacity: true)
                                collecting = true
                            }
                        }
                        if depth == 2, list != nil, elementStart == nil { elementStart = offset }
                    }
                    lastByte = offset
                }
            }
            return offset
        }
    }
}
