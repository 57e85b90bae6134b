import ArgumentParser

/// The actor `provoke` puts into the failure, and how far back `behind` moves it.
struct ProvokeActorOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp("The actor to put into the failure (every scenario but cloudkit-reset).", valueName: "name"))
    var actor: String?

    @Option(help: ArgumentHelp("How many transactions behind moves the actor back.", valueName: "N"))
    var by: Int = 1

    func validate() throws {
        if by < 1 { throw ValidationError("--by takes a positive number of transactions, not \(by)") }
    }
}
