import GRDB
import Foundation

extension HistoryStore {
    /// The raw `Z_MODELCACHE.Z_CONTENT` blob, or nil when the store has none.
    public func modelCacheBlob() throws -> [UInt8]? {
        guard schema.hasModelCacheTable else { return nil }
        return try read { db in
            let data: Data? = try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1")
            return data.map { [UInt8]($0) }
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
        guard let blob = try modelCacheBlob() else {
            return ModelResolution(model: nil, source: nil,
                                   problem: "\(path): the store has no model cache (Z_MODELCACHE); give a model with --model")
        }
        do {
            let model = try ModelLoader.fromModelCache(blob, source: "\(path): Z_MODELCACHE")
            return ModelResolution(model: model, source: .storeCache, problem: nil)
        } catch {
            return ModelResolution(model: nil, source: nil, problem: "\(error)")
        }
    }
}
