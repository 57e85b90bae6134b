import Foundation
import HistoryKit

/// Decodes change rows described by fuzzer bytes with ``ChangeDecoder``.
///
/// Input (little-endian; `fuzz/make-seeds.py` writes the same format from real rows):
/// - u8 store: index into ``contexts`` (AppGroup, NoModelCache, Purged, Photos, SwiftData);
/// - u8 flags: 1 decode without a model, 2 extra catalog rows follow, 4 a tombstone column count follows;
/// - with flag 2: u8 n, then n × (i16 Z_ENT, i16 Z_SUPER, u8 name: an entity of the model, or 255: 4 bytes of name);
/// - with flag 4: u8 tombstone column count (else the store's);
/// - rows to the end: u8 ZCHANGETYPE (signed), i16 ZENTITY, i64 ZENTITYPK,
///   u16 ZCOLUMNS length (0xFFFF: NULL) and its bytes, then per tombstone column
///   u8 type (0 NULL, 1 integer i64, 2 real f64, 3 text, 4 blob; text and blob: u16 length and bytes).
public enum ChangeRows {
    /// A store's catalog, tombstone columns and model.
    public struct Context {
        var uuid: String
        var catalog: EntityCatalog
        var schema: HistorySchema
        var model: ModelResolution
    }

    public static let contexts: [Context] = {
        let fixtures = FuzzRepository.fixtures.path
        let real = FuzzRepository.realStores?.path
        let sources: [(String?, String?)] = [
            ("\(fixtures)/AppGroup/Tasks.sqlite", nil),
            ("\(fixtures)/NoModelCache/Tasks.sqlite", "\(fixtures)/NoModelCache/Tasks.xcdatamodel"),
            ("\(fixtures)/Purged/Tasks.sqlite", nil),
            (real.map { "\($0)/photos-10.15.7/Photos.sqlite" }, nil),
            (real.map { "\($0)/swiftdata-resources/default.store" }, nil),
        ]
        var loaded: [Context?] = sources.map { path, model in
            guard let path, let store = try? HistoryStore.open(path),
                let resolution = try? store.resolveModel(userModelPath: model)
            else { return nil }
            return Context(uuid: store.storeUUID, catalog: store.catalog, schema: store.schema, model: resolution)
        }
        // Without the real stores their slots fall back to the first fixture, so seeds keep their meaning.
        guard let first = loaded.compactMap({ $0 }).first else {
            fatalError("fuzz-changes: cannot open the fixture stores under \(fixtures); set CDHIST_ROOT")
        }
        return loaded.map { $0 ?? first }
    }()

    /// Decoders of unchanged catalogs, by store, model flag and tombstone column count
    /// (building one lays out every entity: most of the time of a small input).
    nonisolated(unsafe) static var decoders: [String: ChangeDecoder] = [:]

    public static func run(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        let index = Int(r.u8()) % contexts.count
        let context = contexts[index]
        let flags = r.u8()
        let model = flags & 1 != 0 ? ModelResolution(model: nil, source: nil, problem: "fuzz: no model") : context.model
        var catalog = context.catalog
        if flags & 2 != 0 {
            let names = model.model?.entities.map(\.name) ?? catalog.entities.map(\.name)
            var rows = catalog.entities + catalog.historyEntities
            for _ in 0..<Int(r.u8() % 16) {
                let number = r.i16()
                let superNumber = r.i16()
                let pick = r.u8()
                let name =
                    pick == 255 || names.isEmpty
                    ? String(decoding: r.take(4), as: UTF8.self) : names[Int(pick) % names.count]
                rows.append(CatalogEntity(number: number, name: name, superNumber: superNumber, max: 0))
            }
            catalog = EntityCatalog(rows: rows)
        }
        var schema = context.schema
        if flags & 4 != 0 {
            schema.tombstoneColumns = (0..<Int(r.u8() % 32)).map { "ZTOMBSTONE\($0)" }
        }
        let key = "\(index)-\(flags & 1)-\(schema.tombstoneColumns.count)"
        let cached = flags & 2 == 0 ? decoders[key] : nil
        let decoder = cached ?? ChangeDecoder(storeUUID: context.uuid, catalog: catalog, schema: schema, model: model)
        if flags & 2 == 0 { decoders[key] = decoder }
        for entity in catalog.entities where cached == nil {
            if let layout = decoder.layout(forEntity: entity.number) {
                _ = layout.propertyNames(forSlots: Array(-1...layout.slots.count))
            }
        }
        var id: Int64 = 1
        while !r.isAtEnd {
            let type = Int64(Int8(bitPattern: r.u8()))
            let entity = r.i16()
            let pk = r.i64()
            let length = r.u16()
            let columns: [UInt8]? = length == 0xFFFF ? nil : r.take(length)
            var tombstones: [StoredValue?] = []
            for _ in 0..<decoder.tombstoneColumnCount {
                switch r.u8() % 5 {
                case 1: tombstones.append(.integer(r.i64()))
                case 2: tombstones.append(.real(r.f64()))
                case 3: tombstones.append(.text(String(decoding: r.take(r.u16()), as: UTF8.self)))
                case 4: tombstones.append(.blob(r.take(r.u16())))
                default: tombstones.append(nil)
                }
            }
            let change = decoder.decode(
                changeID: id, transactionNumber: id, changeTypeRaw: type, entityNumber: entity,
                entityPK: pk, columns: columns, tombstones: tombstones)
            Touch.change(change)
            id += 1
        }
    }
}

extension Touch {
    public static func change(_ c: Change) {
        text(c.changeType.description)
        text(c.entityName)
        text(c.changedObjectID)
        sink &+= c.updatedSlots?.count ?? 0
        for name in c.updatedProperties ?? [] { text(name) }
        for entry in c.tombstone {
            text(entry.name)
            sink &+= Int(truncatingIfNeeded: entry.attributeType?.rawValue ?? 0)
        }
        for w in c.warnings { text(w.description) }
    }
}
