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

    /// The reader of the values of `session`'s store, when asked for.
    func reader(_ session: Session) throws -> SaveValues? {
        guard values else { return nil }
        return try SaveValues(session.store, model: session.model.model)
    }
}
