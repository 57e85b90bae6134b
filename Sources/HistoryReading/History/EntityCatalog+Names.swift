extension EntityCatalog {
    /// The numbers of the entities `names` name, each with every entity below it when
    /// `includingSubentities`; throws for a name the store has no entity of.
    public func numbers(of names: [String], includingSubentities: Bool) throws -> [Int64] {
        try names.flatMap { name -> [Int64] in
            guard let entity = entity(named: name) else {
                throw QueryError.unknownEntity(name: name, known: entities.map(\.name))
            }
            return includingSubentities ? descendants(of: entity.number) : [entity.number]
        }
    }
}
