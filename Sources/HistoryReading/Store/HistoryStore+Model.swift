import Foundation
import GRDB

extension HistoryStore {
    /// What `Z_MODELCACHE.Z_CONTENT` holds.
    enum ModelCacheContent {
        /// No table or no row, or a NULL value.
        case none
        case blob([UInt8])
        /// A value of another type, described (`TEXT "…"`, `INTEGER 42`).
        case other(String)
    }

    func modelCacheContent() throws -> ModelCacheContent {
        guard schema.hasModelCacheTable else { return .none }
        return try read { db in
            try db.firstRow("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1") { row -> ModelCacheContent in
                switch row.storageClass(0) {
                case .null: return .none
                case .blob: return .blob(row.optionalBytes(0) ?? [])
                case .integer, .real, .text: return .other(row.describe(0))
                }
            } ?? .none
        }
    }

    /// Chooses the model for decoding: the user's file when `userModelPath`
    /// is given (errors thrown: the user asked for it), else the store's
    /// model cache (problems reported in ``ModelResolution/problem``, since
    /// history still reads without a model).
    public func resolveModel(userModelPath: String? = nil) throws -> ModelResolution {
        if let userModelPath {
            let loaded = try ModelLoader.load(path: userModelPath)
            return ModelResolution(model: loaded.model, source: loaded.source, problem: nil)
        }
        switch try modelCacheContent() {
        case .none:
            return ModelResolution(
                model: nil, source: nil,
                problem: "\(path): the store has no model cache (Z_MODELCACHE); give a model with \(Control.model)")
        case .other(let found):
            return ModelResolution(
                model: nil, source: nil,
                problem:
                    "\(path): Z_MODELCACHE holds \(found), not a compressed model; give a model with \(Control.model)")
        case .blob(let blob):
            do {
                let model = try ModelLoader.fromModelCache(blob, source: "\(path): Z_MODELCACHE")
                return ModelResolution(model: model, source: .storeCache, problem: nil)
            } catch {
                return ModelResolution(model: nil, source: nil, problem: "\(error)")
            }
        }
    }
}
