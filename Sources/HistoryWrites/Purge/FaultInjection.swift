import Foundation

/// Test hook: when the environment variable `CDHIST_FAULT` names a stage, the
/// process kills itself there with SIGKILL, so tests can prove a crash at that
/// point leaves a consistent store and a usable backup; `term:STAGE` sends it
/// SIGTERM there instead (which a purge handles), and waits for the handler. Only a debug build
/// (the one the tests run) has the hook: in a release build a stage is no call at all.
enum FaultInjection {
    static func point(_ stage: String) {
        #if DEBUG && (canImport(Glibc) || canImport(Darwin))
            guard let wanted = getenv("CDHIST_FAULT").map({ String(cString: $0) }) else { return }
            if wanted == stage { kill(getpid(), SIGKILL) }
            if wanted == "term:" + stage {
                kill(getpid(), SIGTERM)
                // The watch's handler runs on a queue of its own: give it the moment it needs.
                usleep(200_000)
            }
        #endif
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
