import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Limits the system sets on this process.
package enum ResourceLimits {
    /// The largest file this process may write (RLIMIT_FSIZE, `ulimit -f`), when limited.
    package static var fileSize: UInt64? {
        var limit = rlimit()
        #if canImport(Glibc)
            // glibc's <sys/resource.h> types the resource as the enum __rlimit_resource.
            let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
        #else
            // Darwin's <sys/resource.h>: `#define RLIMIT_FSIZE 1`, an int.
            let resource = RLIMIT_FSIZE
        #endif
        // RLIM_INFINITY is 2^64-1 on Linux, 2^63-1 on macOS.
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < rlim_t(Int64.max) else { return nil }
        return UInt64(limit.rlim_cur)
    }
}
