/// Checks made before XML bytes reach Foundation's `XMLParser`.
///
/// On Linux, `XMLParser` traps (a crash, not an error) when an element or
/// attribute name is not valid UTF-8: libxml2 hands such names on and
/// FoundationXML force-unwraps their conversion to `String`. Property lists
/// and `.xcdatamodel` files are UTF-8, so anything else is refused up front
/// with the offset of the first bad byte.
enum XMLText {
    /// Why `bytes` are not UTF-8 text, or nil when they are.
    static func utf8Problem(_ bytes: [UInt8]) -> String? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return "not UTF-8 text (invalid byte at offset \(offset))"
            }
        }
    }
}
