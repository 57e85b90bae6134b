import Foundation
import HistoryKit

/// A table column, and how it gives way when the table is wider than the terminal.
struct Column {
    /// What a column may do to fit.
    enum Fit: Equatable {
        /// Never cut or wrapped: numbers, ids, dates, statuses. Only when nothing
        /// else is left to give does it move under its row (with its title).
        case whole
        /// Free text (names, paths): wraps within the column, no narrower than
        /// `min` (or its title); narrower than that, it moves under its row.
        case wrap(min: Int)
        /// Values (a quoted string, a list of them): never broken inside. A row whose value is
        /// wider than the column has it under the row, whole, with its title.
        case value(min: Int)
        /// Long free text best read under its row (why, what to do, a rule): the
        /// first to move there when the table is too wide.
        case below
    }

    var title: String
    var fit: Fit
    var alignRight: Bool
    /// The column is at least this wide (room for the widest value the caller knows of,
    /// beyond the rows a streamed table sizes itself from).
    var minWidth: Int
    /// How much the grid wants it when space is short.
    enum Importance {
        /// What the row is about (an author, an entity's name): it stays while any other column can move.
        case key
        case normal
        /// Detail the row can do without in the grid (a bundle ID, a process name): moves first.
        case detail
    }
    var importance: Importance
    /// Under its row, on one line however long and shell-quoted (a path to copy and paste).
    var copiable: Bool

    /// A column; `flexible` text wraps (at least 10 wide), the rest is shown whole. A
    /// `copiable` one is always under its row, each value on a line of its own, shell-quoted.
    init(
        _ title: String, flexible: Bool = false, alignRight: Bool = false, fit: Fit? = nil, minWidth: Int = 0,
        importance: Importance = .normal, copiable: Bool = false
    ) {
        self.title = title
        self.fit = copiable ? .below : fit ?? (flexible ? .wrap(min: 10) : .whole)
        self.alignRight = alignRight
        self.minWidth = minWidth
        self.importance = importance
        self.copiable = copiable
    }

    /// The title as a terminal shows it (a timeline's column is an author's name: ``TerminalText``).
    var shownTitle: String { TerminalText.visible(title) }

    /// The narrowest this column's grid cells get: its title stays whole.
    var narrowest: Int {
        switch fit {
        case .whole: return shownTitle.count
        case .wrap(let min), .value(let min): return max(min, shownTitle.count)
        case .below: return max(40, shownTitle.count)
        }
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
