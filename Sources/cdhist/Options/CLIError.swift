/// Errors of the command layer, written for the user (the file or option first).
enum CLIError: Error, CustomStringConvertible {
    case invalidValue(option: String, value: String, reason: String)
    case notFound(path: String, what: String)
    case cannotWrite(path: String, reason: String)
    case refused(path: String, reason: String)

    var description: String {
        switch self {
        case .invalidValue(let option, let value, let reason): return "\(option) '\(value)': \(reason)"
        case .notFound(let path, let what): return "\(path): \(what)"
        case .cannotWrite(let path, let reason): return "\(path): cannot write (\(reason))"
        case .refused(let path, let reason): return "\(path): refused: \(reason)"
        }
    }
}
