import ArgumentParser
import HistoryKit

/// `--values`: each change's values before and after it, for the transactions the `-wal`'s saves hold.
struct ValueOptions: ParsableArguments {
    @Flag(
        help:
            """
            Show each change's values before and after it (an update's properties, an insert's values, a deleted \
            object's whole row), for the transactions still in the -wal's saves.
            """
    )
    var values = false

    /// `presenter` with the values of `session`'s store, when asked for.
    func apply(to presenter: inout HistoryPresenter, session: Session) throws {
        guard values else { return }
        let reader = try SaveValues(session.store, model: session.model.model)
        presenter.values = .init(
            storeUUID: session.store.storeUUID, lookup: { try? reader.values($0) }, missing: reader.whyMissing)
    }
}
