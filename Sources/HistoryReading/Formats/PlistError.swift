/// Why bytes could not be read as a property list or keyed archive.
public enum PlistError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are neither a binary nor an XML property list.
    case notAPropertyList
    /// The structure is damaged; the associated text says where.
    case malformed(String)
    /// The plist is valid but is not an `NSKeyedArchiver` archive.
    case notAKeyedArchive(String)
    /// A value the format cannot hold (a date far outside an XML plist's years).
    case unrepresentable(String)

    public var description: String {
        switch self {
        case .notAPropertyList: return "not a property list (neither binary nor XML)"
        case .malformed(let why): return "damaged property list: \(why)"
        case .notAKeyedArchive(let why): return "not a keyed archive: \(why)"
        case .unrepresentable(let why): return "cannot write the property list: \(why)"
        }
    }
}
