/// What a command takes from the interactive session it runs in: the session's store
/// (and where it goes on the line), its attached defaults and model, its format. The
/// session asks each command's type; a line's own options win.
protocol SessionInputs {
    /// Where the session's store goes on the command's line.
    static var sessionStore: SessionStorePlacement { get }
    /// Whether it reads shared defaults (`defaults PLIST` attaches them).
    static var readsSessionDefaults: Bool { get }
    /// Whether it decodes with a model (`model PATH` attaches it).
    static var takesSessionModel: Bool { get }
    /// Whether the session's `format` applies to it.
    static func takesSessionFormat(_ format: OutputFormat) -> Bool
}

extension SessionInputs {
    static var readsSessionDefaults: Bool { false }
    static var takesSessionModel: Bool { false }
    static func takesSessionFormat(_ format: OutputFormat) -> Bool { true }
}

/// Where a command takes the store.
enum SessionStorePlacement {
    /// Its first argument.
    case first
    /// Its first argument, unless `--group-container` finds it.
    case firstUnlessAppGroupFolder
    /// `--store`.
    case storeOption
}

extension SessionStorePlacement {
    /// A command's arguments (without its name) with `store` put where it takes its store.
    func place(_ store: String, in arguments: [String]) -> [String] {
        var args = arguments
        switch self {
        case .first: args.insert(store, at: 0)
        case .firstUnlessAppGroupFolder: if !args.contains("--group-container") { args.insert(store, at: 0) }
        case .storeOption: if !args.contains("--store") { args += ["--store", store] }
        }
        return args
    }
}
