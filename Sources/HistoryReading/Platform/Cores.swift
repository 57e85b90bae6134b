import Foundation

/// The cores this process may run on, for reads split over them, at most 16 (past that,
/// parts gain little and each holds a connection):
/// - Linux: the active processors, fewer when the process is bound to some (`taskset`, a
///   container's cpuset: its affinity mask, as `Cpus_allowed_list` in `/proc/self/status`
///   gives it; Foundation's count ignores it).
/// - macOS: the active processors (`hw.activecpu`, Foundation's count): it has no affinity
///   mask to bind a process to fewer.
public enum Cores {
    public static let usable: Int = {
        var count = ProcessInfo.processInfo.activeProcessorCount
        #if os(Linux)
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let allowed = allowedCount(status)
            {
                count = min(count, allowed)
            }
        #endif
        return max(1, min(count, 16))
    }()

    /// The processors Linux's `Cpus_allowed_list` in `status` (`/proc/self/status`) names
    /// (`0-3,6`); nil without one or when it cannot be read.
    static func allowedCount(_ status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else {
            return nil
        }
        var total = 0
        for part in line.dropFirst("Cpus_allowed_list:".count).split(separator: ",") {
            let bounds = part.split(separator: "-").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            switch bounds.count {
            case 1:
                guard bounds[0] != nil else { return nil }
                total += 1
            case 2:
                guard let low = bounds[0], let high = bounds[1], high >= low else { return nil }
                total += high - low + 1
            default: return nil
            }
        }
        return total > 0 ? total : nil
    }
}
