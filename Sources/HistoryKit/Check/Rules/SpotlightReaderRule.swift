import HistoryAnalysis

/// `spotlight-reader`: the model indexes properties in Spotlight, so an app may read history
/// with `NSCoreDataCoreSpotlightDelegate`, whose position no file shows: a reader every cleaner
/// must leave room for.
struct SpotlightReaderRule: CheckRule {
    let id = "spotlight-reader"
    let severity = Severity.info
    let summary = "the model indexes properties in Spotlight: a history reader no file shows"

    func evaluate(_ c: CheckContext) throws -> [Finding] {
        guard let model = c.model.model, let reader = HiddenReader.spotlight(in: model) else { return [] }
        return [
            finding(
                RuleMessages.spotlightReader(reader),
                [
                    "reader": .string(reader.kind.rawValue),
                    "indexedProperties": .array(reader.evidence.map { .string($0) }),
                ])
        ]
    }
}
