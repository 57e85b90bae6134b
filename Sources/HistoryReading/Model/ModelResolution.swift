/// The model used to decode a store's history, and where it came from.
public struct ModelResolution: Sendable {
    /// The model, or nil when none could be had.
    public var model: ManagedObjectModel?
    /// Where the model came from (nil when there is none).
    public var source: ModelSource?
    /// Why there is no model, or why the cached one was not usable.
    public var problem: Message?

    /// A resolution; `problem` says why `model` is nil or degraded.
    public init(model: ManagedObjectModel?, source: ModelSource?, problem: Message?) {
        self.model = model
        self.source = source
        self.problem = problem
    }
}
