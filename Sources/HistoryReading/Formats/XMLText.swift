/// Checks made before XML bytes reach Foundation's `XMLParser`, which on
/// Linux crashes (not an error: the process dies) on two things libxml2
/// hands it: an element or attribute name that is not valid UTF-8 (a
/// force-unwrap, SIGILL) and a processing instruction without data such as
/// `<?x?>` (`strlen(NULL)`, SIGSEGV), also when it comes from an entity's
/// replacement text (`<!ENTITY e "&#60;?x?&#62;">` then `&e;`: libxml2
/// substitutes entities for XMLParser). Property lists and `.xcdatamodel`
/// files are UTF-8, declare no entities and hold no processing instruction
/// besides the XML declaration, so anything else is refused up front, with
/// the offset of the first bad byte.
enum XMLText {
    /// Why `bytes` cannot be handed to `XMLParser`, or nil.
    static func problem(_ bytes: [UInt8]) -> String? {
        utf8Problem(bytes) ?? processingInstructionProblem(bytes) ?? entityDeclarationProblem(bytes)
    }

    /// The first entity declaration (`<!ENTITY`, in a DOCTYPE's internal subset), or nil.
    static func entityDeclarationProblem(_ bytes: [UInt8]) -> String? {
        let marker = Array("<!ENTITY".utf8)
        guard bytes.count >= marker.count else { return nil }
        for i in 0...(bytes.count - marker.count)
        where bytes[i] == marker[0] && bytes[i..<(i + marker.count)].elementsEqual(marker) {
            return "an entity declaration at offset \(i) (these files declare none)"
        }
        return nil
    }

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

    /// The first `<?` that is not the XML declaration at the start (after an optional BOM).
    static func processingInstructionProblem(_ bytes: [UInt8]) -> String? {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var i = start
        while i + 1 < bytes.count {
            if bytes[i] == UInt8(ascii: "<") && bytes[i + 1] == UInt8(ascii: "?") {
                let isDeclaration =
                    i == start && bytes.count > i + 5 && Array(bytes[(i + 2)..<(i + 5)]) == Array("xml".utf8)
                    && whitespace.contains(bytes[i + 5])
                if !isDeclaration {
                    return "a processing instruction at offset \(i) (these files hold none but the XML declaration)"
                }
            }
            i += 1
        }
        return nil
    }
}
