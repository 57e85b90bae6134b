import Foundation

/// Human-readable byte counts.
enum ByteCount {
    private static let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]

    /// "401.9 KiB (411552 bytes)": the exact count beside the readable one.
    static func text(_ bytes: Int64) -> String {
        let (value, unit) = scaled(bytes)
        return unit == 0 ? "\(bytes) bytes" : String(format: "%.1f", value) + " \(units[unit]) (\(bytes) bytes)"
    }

    /// "402 KiB", "1.2 MiB": for a column of a listing.
    static func short(_ bytes: Int64) -> String {
        let (value, unit) = scaled(bytes)
        if unit == 0 { return "\(bytes) B" }
        return (value < 10 ? String(format: "%.1f", value) : String(format: "%.0f", value)) + " \(units[unit])"
    }

    private static func scaled(_ bytes: Int64) -> (value: Double, unit: Int) {
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return (value, unit)
    }
}
