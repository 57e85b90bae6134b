/// Text for people that may point at ``Control``s: what is wrong and what to do,
/// with the controls as values for a front end to name. Build one from a string
/// literal; interpolate a ``Control`` where the user should act, or another
/// message (or an error that carries one) to nest it.
public struct Message: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// Text, or a control a front end names.
    public enum Piece: Sendable, Hashable {
        case text(String)
        case control(Control)
    }

    public private(set) var pieces: [Piece]

    /// Plain text.
    public init(_ text: String) {
        pieces = text.isEmpty ? [] : [.text(text)]
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public init(stringInterpolation: Interpolation) {
        pieces = stringInterpolation.pieces
    }

    /// The text, with each control named by `name`.
    public func worded(_ name: (Control) -> String) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .control(let control): return name(control)
            }
        }.joined()
    }

    /// The controls the message points at, in order.
    public var controls: [Control] {
        pieces.compactMap { if case .control(let c) = $0 { return c } else { return nil } }
    }

    /// The text with each control shown as `‹name›`, for a reader with no names of its own.
    public var description: String { worded(\.description) }

    public static func + (a: Message, b: Message) -> Message {
        var joined = a
        joined.append(b.pieces)
        return joined
    }

    private mutating func append(_ more: [Piece]) {
        for piece in more {
            if case .text(let text) = piece, text.isEmpty { continue }
            if case .text(let text) = piece, case .text(let last)? = pieces.last {
                pieces[pieces.count - 1] = .text(last + text)
            } else {
                pieces.append(piece)
            }
        }
    }

    public struct Interpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            appendText(literal)
        }

        /// A value as it describes itself; a message, or an error that carries one, keeps its controls.
        public mutating func appendInterpolation<T>(_ value: T) {
            if let message = value as? Message {
                appendPieces(message.pieces)
            } else if let error = value as? any MessageError {
                appendPieces(error.message.pieces)
            } else {
                appendText(String(describing: value))
            }
        }

        /// A place where the user acts.
        public mutating func appendInterpolation(_ control: Control) {
            pieces.append(.control(control))
        }

        private mutating func appendText(_ text: String) {
            appendPieces([.text(text)])
        }

        private mutating func appendPieces(_ more: [Piece]) {
            var message = Message("")
            message.pieces = pieces
            message.append(more)
            pieces = message.pieces
        }
    }
}

/// An error whose text is a ``Message``: its description names controls as `‹name›`;
/// a front end words ``message`` with its own names.
public protocol MessageError: Error, CustomStringConvertible {
    var message: Message { get }
}

extension MessageError {
    public var description: String { message.description }
}
