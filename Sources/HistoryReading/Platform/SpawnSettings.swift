import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

// posix_spawn's settings objects differ in type between the systems:
// - Darwin (Libc's include/spawn.h): `typedef void *posix_spawn_file_actions_t;` and
//   `typedef void *posix_spawnattr_t;`, Swift's `posix_spawn_file_actions_t?`, set by their `_init`.
// - glibc (<spawn.h>): structs, Swift's `posix_spawn_file_actions_t()`.

/// `posix_spawn_file_actions_t` made and destroyed the same way on both systems.
struct SpawnFileActions {
    #if canImport(Darwin)
        var raw: posix_spawn_file_actions_t? = nil
    #else
        var raw = posix_spawn_file_actions_t()
    #endif

    init() { posix_spawn_file_actions_init(&raw) }

    mutating func destroy() { posix_spawn_file_actions_destroy(&raw) }

    /// Closes every descriptor from `lowest` up in the child.
    mutating func closeDescriptors(from lowest: Int32) {
        #if canImport(Glibc)
            // glibc 2.34+ has posix_spawn_file_actions_addclosefrom_np, which its Swift module does
            // not export: looked up at run time.
            if let addCloseFrom = Self.addCloseFrom {
                _ = addCloseFrom(&raw, lowest)
                return
            }
        #endif
        // Elsewhere (macOS's <spawn.h> has no closefrom action), close what is open now.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/fd")) ?? []
        for fd in open.compactMap({ Int32($0) }) where fd >= lowest && fcntl(fd, F_GETFD) != -1 {
            posix_spawn_file_actions_addclose(&raw, fd)
        }
    }

    #if canImport(Glibc)
        private typealias AddCloseFrom =
            @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        private static let addCloseFrom: AddCloseFrom? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(symbol, to: AddCloseFrom.self)
        }()
    #endif
}

/// `posix_spawnattr_t` made and destroyed the same way on both systems.
struct SpawnAttributes {
    #if canImport(Darwin)
        var raw: posix_spawnattr_t? = nil
    #else
        var raw = posix_spawnattr_t()
    #endif

    init() { posix_spawnattr_init(&raw) }

    mutating func destroy() { posix_spawnattr_destroy(&raw) }

    /// The child starts with `signals` at their default action and no signal blocked.
    mutating func resetSignals(_ signals: [Int32]) {
        var defaulted = sigset_t()
        sigemptyset(&defaulted)
        for signal in signals { sigaddset(&defaulted, signal) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigdefault(&raw, &defaulted)
        posix_spawnattr_setsigmask(&raw, &unblocked)
        // Both systems declare the flags as a short.
        posix_spawnattr_setflags(&raw, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    }
}
