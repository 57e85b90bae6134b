import Foundation

/// Test hook: when the environment variable `CDHIST_FAULT` names a stage, the
/// process kills itself there with SIGKILL, so tests can prove a crash at that
/// point leaves a consistent store and a usable backup.
enum FaultInjection {
    static func point(_ stage: String) {
        #if canImport(Glibc) || canImport(Darwin)
        if let wanted = getenv("CDHIST_FAULT").map({ String(cString: $0) }), wanted == stage {
            kill(getpid(), SIGKILL)
        }
        #endif
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
