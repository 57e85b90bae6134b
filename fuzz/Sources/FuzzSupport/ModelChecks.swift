import HistoryKit

/// What the model target runs on one input.
public enum ModelChecks {
    public static func run(_ input: [UInt8]) {
        guard let selector = input.first else { return }
        let bytes = Array(input.dropFirst())
        do {
            let model: ManagedObjectModel
            switch selector % 3 {
            case 0: model = try ModelLoader.fromModelCache(bytes, source: "Z_MODELCACHE")
            case 1: model = try ModelLoader.fromArchive(bytes, source: "fuzz.mom")
            default: model = try XcdatamodelReader.read(bytes, source: "contents")
            }
            layOut(model)
        } catch {
            Touch.error(error)
        }
    }

    /// Everything decoding history asks of a model.
    public static func layOut(_ model: ManagedObjectModel) {
        for entity in model.entities {
            _ = model.inheritanceChain(of: entity.name)
            _ = model.subentityNames(of: entity.name)
            for p in model.allProperties(of: entity.name) { Touch.text(p.name) }
            guard let layout = SlotLayout(entity: entity.name, model: model) else {
                fatalError("entity \(entity.name) of the model has no layout")
            }
            _ = layout.byteLength
            _ = layout.propertyNames(forSlots: Array(-1...layout.slots.count))
            for name in layout.tombstoneAttributes { Touch.text(name) }
            for note in layout.notes { Touch.text(note) }
        }
    }
}
