import Foundation

/// A table column.
struct Column {
    var title: String
    /// Whether the column may be truncated to fit the terminal.
    var flexible = false
    var alignRight = false

    init(_ title: String, flexible: Bool = false, alignRight: Bool = false) {
        self.title = title
        self.flexible = flexible
        self.alignRight = alignRight
    }
}

/// A table cell: text, and an optional style used on a colour terminal.
struct Cell: ExpressibleByStringLiteral {
    var text: String
    var style: Style?

    init(_ text: String, _ style: Style? = nil) {
        self.text = text
        self.style = style
    }

    init(stringLiteral value: String) { self.init(value) }
}
