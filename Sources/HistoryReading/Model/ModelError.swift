/// Why a model could not be read.
public enum ModelError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The model file or folder does not exist.
    case fileNotFound(path: String)
    /// The path exists but is not a model this tool reads.
    case unsupportedFile(path: String, reason: String)
    /// The data is damaged or of the wrong kind; `source` names where it came from.
    case undecodable(source: String, reason: String)

    public var description: String {
        switch self {
        case .fileNotFound(let path): return "\(path): no such model file or folder"
        case .unsupportedFile(let path, let reason): return "\(path): \(reason)"
        case .undecodable(let source, let reason): return "\(source): model cannot be decoded: \(reason)"
        }
    }
}
