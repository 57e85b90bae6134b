import HistoryKit

/// The labels commands look up for their presenters, which show them as values.
extension ObjectLabeler {
    /// A deleted object's label: its tombstone's, else its row's in the earlier copy of the store.
    func label(of object: DeletedObject) -> String? {
        if let change = object.change { return try? label(change) }
        return try? earlierLabel(entity: object.entityName, primaryKey: object.entityPK)
    }

    /// The label of `object`, an object of `store`'s (nil: none, or not an entity of the store).
    func label(of object: ObjectReference, in store: HistoryStore) -> String? {
        guard let number = store.catalog.entity(named: object.entityName)?.number else { return nil }
        return try? label(entityNumber: number, primaryKey: object.primaryKey)
    }

    /// The labels of the objects `state`'s relationships point to, by object.
    func labels(ofObjectsIn state: ObjectState, in store: HistoryStore) -> [ObjectReference: String] {
        var labels: [ObjectReference: String] = [:]
        for property in state.properties {
            let objects: [ObjectReference]
            switch property.content {
            case .toOne(let object?): objects = [object]
            case .toMany(_, let first): objects = first
            case .toOne(nil), .attribute, .column, .unread: objects = []
            }
            for object in objects where labels[object] == nil {
                if let text = label(of: object, in: store) { labels[object] = text }
            }
        }
        return labels
    }
}
