import ArgumentParser
import HistoryKit

/// A transaction's string field as options name it: author, context, bundle or process.
enum FieldName: String, CaseIterable, ExpressibleByArgument {
    case author, context, bundle, process

    var transactionField: TransactionField {
        switch self {
        case .author: return .author
        case .context: return .contextName
        case .bundle: return .bundleID
        case .process: return .processID
        }
    }

    var title: String {
        switch self {
        case .author: return "Authors"
        case .context: return "Context names"
        case .bundle: return "Bundle IDs"
        case .process: return "Processes"
        }
    }

    var jsonKey: String {
        switch self {
        case .author: return "authors"
        case .context: return "contextNames"
        case .bundle: return "bundleIDs"
        case .process: return "processIDs"
        }
    }
}
