import CSystemZlib

/// Raw DEFLATE (RFC 1951, no zlib header), as `Z_MODELCACHE` stores the model.
public enum RawDeflate {
    /// Why DEFLATE data could not be inflated.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case corrupt(String)
        case truncated
        case tooLarge(limit: Int)

        public var description: String {
            switch self {
            case .corrupt(let why): return "corrupt DEFLATE data (\(why))"
            case .truncated: return "DEFLATE data ends before its last block"
            case .tooLarge(let limit):
                return limit >= 1 << 20
                    ? "inflates to more than \(limit >> 20) MiB" : "inflates to more than \(limit) bytes"
            }
        }
    }

    /// Inflates raw DEFLATE `input`, refusing output above `limit` bytes.
    public static func inflate(_ input: [UInt8], limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure.corrupt("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            stream.next_in = inBuf.baseAddress
            stream.avail_in = UInt32(inBuf.count)
            while true {
                let rc: Int32 = chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = UInt32(outBuf.count)
                    return CSystemZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output += chunk[0..<produced]
                if output.count > limit { return Z_MEM_ERROR }
                if rc == Z_STREAM_END { return rc }
                if rc != Z_OK { return rc }
                if produced == 0 && stream.avail_in == 0 { return Z_BUF_ERROR }
            }
        }
        switch status {
        case Z_STREAM_END: return output
        case Z_BUF_ERROR: throw Failure.truncated
        case Z_MEM_ERROR: throw Failure.tooLarge(limit: limit)
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw Failure.corrupt(message)
        }
    }

    /// Compresses `input` as raw DEFLATE at the best compression level.
    public static func deflate(_ input: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 16)
        var input = input
        let written: Int = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = UInt32(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = UInt32(outBuf.count)
                let rc = CSystemZlib.deflate(&stream, Z_FINISH)
                return rc == Z_STREAM_END ? outBuf.count - Int(stream.avail_out) : 0
            }
        }
        return Array(output.prefix(written))
    }
}
