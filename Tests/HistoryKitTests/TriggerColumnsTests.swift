import Foundation
import TestSupport
import Testing

@testable import HistoryKit
@testable import HistoryAnalysis
@testable import HistoryPlaces
@testable import HistoryReading
@testable import HistoryWrites

/// The columns Core Data's triggers set are read from the triggers' SQL.
@Suite struct TriggerColumnsTests {
    /// A count attribute's trigger and a derived attribute's, as Photos' stores hold them, and SQL
    /// that only looks like an assignment.
    @Test func eachUpdateSetOfATriggerNamesItsColumns() {
        let count = """
            CREATE TRIGGER ZT_ZDETECTEDFACE_ZASSETVISIBLE_ZASSET_UPDATE_DECREMENT AFTER UPDATE OF ZTRASHEDSTATE, \
            ZHIDDEN ON ZASSET \
            FOR EACH ROW WHEN (OLD.ZTRASHEDSTATE == 0) BEGIN UPDATE ZDETECTEDFACE SET ZASSETVISIBLE = \
            MAX(0,IFNULL(ZASSETVISIBLE,0) - 1) \
            WHERE OLD.Z_PK = ZASSETFORFACE; SELECT NSCoreDataTriggerUpdateAffectedObjectValue('ZDETECTEDFACE', Z_ENT, \
            Z_PK, \
            'ZASSETVISIBLE', ZASSETVISIBLE) FROM ZDETECTEDFACE WHERE ZASSETFORFACE = NEW.Z_PK; END
            """
        let derived = """
            CREATE TRIGGER Z_DA_ZASSET_Asset_derivedCameraCaptureDevice_SOURCE_UPDATE AFTER UPDATE OF \
            ZADDITIONALATTRIBUTES ON ZASSET \
            FOR EACH ROW BEGIN UPDATE ZASSET SET ZDERIVEDCAMERACAPTUREDEVICE = (SELECT ZCAMERACAPTUREDEVICE FROM \
            ZADDITIONALASSETATTRIBUTES WHERE Z_PK = NEW.ZADDITIONALATTRIBUTES), "zOther" = 1 WHERE Z_PK = NEW.Z_PK; END
            """
        let lookalike = """
            CREATE TRIGGER T AFTER INSERT ON ZA BEGIN SELECT 'UPDATE ZB SET ZC = 1'; -- UPDATE ZD SET ZE = 2
            UPDATE OR IGNORE [ZF] SET ZG = 1, ZH = (1, 2) WHERE ZI = 3; END
            """
        let qualified = """
            CREATE TRIGGER U AFTER UPDATE ON ZA BEGIN UPDATE main.ZJ SET ZK = CASE WHEN NEW.ZL > 0 THEN 1 ELSE 0 END, \
            ZM = 2; END
            """
        let columns = TriggerColumns(sql: [count, derived, lookalike, qualified])
        #expect(columns.contains(table: "ZDETECTEDFACE", column: "ZASSETVISIBLE"))
        #expect(columns.contains(table: "zasset", column: "ZDerivedCameraCaptureDevice"))
        #expect(columns.contains(table: "ZASSET", column: "ZOTHER"))
        #expect(columns.contains(table: "ZF", column: "ZG") && columns.contains(table: "ZF", column: "ZH"))
        #expect(!columns.contains(table: "ZB", column: "ZC") && !columns.contains(table: "ZD", column: "ZE"))
        #expect(
            !columns.contains(table: "ZDETECTEDFACE", column: "ZASSETFORFACE")
                && !columns.contains(table: "ZF", column: "ZI"))
        #expect(columns.contains(table: "ZJ", column: "ZK") && columns.contains(table: "ZJ", column: "ZM"))
        #expect(!columns.contains(table: "ZJ", column: "ZL") && !columns.contains(table: "MAIN", column: "ZK"))
    }

    /// On a real Photos library every count attribute's column is among them.
    @Test(.enabled(if: RealStores.available)) func photosCountAttributesAreSetByTriggers() throws {
        let store = try HistoryStore.open(RealStores.photos15)
        let columns = try TriggerColumns.read(store)
        #expect(columns.contains(table: "ZDETECTEDFACE", column: "ZASSETVISIBLE"))
        #expect(columns.contains(table: "ZASSET", column: "ZDERIVEDCAMERACAPTUREDEVICE"))
    }
}
