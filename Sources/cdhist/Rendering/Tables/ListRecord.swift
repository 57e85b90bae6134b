/// A record of a list that is also a table row: ``ListRenderer/add(_:)`` formats it in whichever
/// format the list is written, on another thread when it is Sendable.
protocol ListRecord: JSONRecord {
    /// The record as a table row.
    var cells: [Cell] { get }
}
