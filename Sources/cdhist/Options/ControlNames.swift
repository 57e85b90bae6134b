import HistoryKit

/// The command line's names for what HistoryKit's messages ask the user to give or run.
enum ControlNames {
    static func name(_ control: Control) -> String {
        switch control {
        case .model: return "--model"
        case .nextModel: return "--next-model"
        case .allowExpire: return "--allow-expire"
        case .allowSkip: return "--allow-skip"
        case .noBackup: return "--no-backup"
        case .store: return "--store"
        case .moveToTransaction: return "--to tx:N"
        case .moveToOldest: return "--to-oldest"
        case .moveToLatest: return "--to-latest"
        case .removePosition: return "--remove"
        case .keyFormat: return "--key-format"
        case .entityFilter: return "--entity"
        case .changeTypeFilter: return "--type"
        case .objectFilter: return "--object"
        case .groupContainer: return "--group-container"
        case .defaults: return "--defaults"
        case .token: return "--token"
        case .declareActor: return "--actor"
        case .keyPrefix: return "--key-prefix"
        case .startAfter: return "--since"
        case .purgeAndVacuum: return "cdhist purge … --vacuum"
        case .removePositionFromDefaults: return "cdhist repair-defaults --remove"
        case .showActors: return "cdhist actors"
        case .purgeByStrategy: return "cdhist purge --strategy NAME"
        case .showStoreInfo: return "cdhist info"
        case .showCloudKit: return "cdhist cloudkit"
        case .showTokens: return "cdhist token"
        case .exportHistory: return "export"
        case .listSaves: return "cdhist saves STORE"
        case .provokeUndo: return "cdhist provoke --undo STORE"
        case .provokeUndoForce: return "cdhist provoke --undo STORE --force"
        case .provokeActor: return "--actor"
        }
    }
}

extension Message {
    /// The message as the command line says it: controls named by their flags and commands.
    var text: String { worded(ControlNames.name) }
}

extension DecodingWarning {
    /// The warning as the command line says it, with the raw bytes concerned.
    var text: String { worded(ControlNames.name) }
}

/// An error as the command line says it.
func describe(_ error: Error) -> String {
    (error as? any MessageError)?.message.text ?? "\(error)"
}
