import HistoryKit

/// Writes a model as the `contents` XML of an Xcode `.xcdatamodel`.
public enum XcdatamodelWriter {
    public static func contents(_ model: ManagedObjectModel) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
            #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="1" "#
                + #"systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift" "#
                + #"userDefinedModelVersionIdentifier="">"#,
        ]
        for e in model.entities {
            var attrs = #"name="\#(e.name)" representedClassName="\#(e.name)""#
            if let s = e.superentityName { attrs += #" parentEntity="\#(s)""# }
            if e.isAbstract { attrs += #" isAbstract="YES""# }
            lines.append("    <entity \(attrs) syncable=\"YES\">")
            for p in e.properties {
                var a = #"name="\#(p.name)""#
                if p.isOptional { a += #" optional="YES""# }
                if p.isTransient { a += #" transient="YES""# }
                switch p.kind {
                case .attribute(let info):
                    a += #" attributeType="\#(info.type.name)""#
                    if info.preservesValueInHistoryOnDeletion { a += #" preserveAfterDeletion="YES""# }
                    if p.isIndexedBySpotlight { a += #" spotlightIndexingEnabled="YES""# }
                    lines.append("        <attribute \(a)/>")
                case .relationship(let r):
                    if r.isToMany { a += #" toMany="YES""# } else { a += #" maxCount="1""# }
                    if r.isOrdered { a += #" ordered="YES""# }
                    a += #" deletionRule="\#(r.deleteRule.word)""#
                    if let d = r.destinationEntityName { a += #" destinationEntity="\#(d)""# }
                    if let i = r.inverseName, let d = r.destinationEntityName {
                        a += #" inverseName="\#(i)" inverseEntity="\#(d)""#
                    }
                    lines.append("        <relationship \(a)/>")
                case .fetchedProperty:
                    lines.append(
                        """
                                <fetchedProperty \(a)><fetchRequest name=\"fetchedPropertyFetchRequest\" \
                        entity=\"\(e.name)\"/></fetchedProperty>
                        """
                    )
                case .expression:
                    continue
                }
            }
            if !e.userInfo.isEmpty {
                lines.append("        <userInfo>")
                for (k, v) in e.userInfo.sorted(by: { $0.key < $1.key }) {
                    lines.append("            <entry key=\"\(k)\" value=\"\(v)\"/>")
                }
                lines.append("        </userInfo>")
            }
            lines.append("    </entity>")
        }
        lines.append("</model>")
        return lines.joined(separator: "\n") + "\n"
    }
}
