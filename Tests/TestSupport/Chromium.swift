import Foundation

/// Headless Chromium (Debian's `chromium`, installed by `.ci/run`) to load a
/// page and take a screenshot or print it to PDF. Tests that need it are
/// skipped, with a printed notice, when it is not installed.
public enum Chromium {
    public static let path: String? = {
        if let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) {
            return found
        }
        print("NOTICE: chromium not found; report screenshot tests are skipped (.ci/run installs it)")
        return nil
    }()

    public static var available: Bool { path != nil }

    public struct Failed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Loads `page` (a local file) in a 1280-pixel-wide window and writes a
    /// screenshot (`.png`) or a print (`.pdf`) to `output`. Chromium gets its own
    /// profile and HOME in `scratch`, so it writes nothing anywhere else; it runs
    /// through ``Subprocess`` (its helpers may outlive it).
    public static func capture(_ page: String, to output: String, scratch: TemporaryDirectory, height: Int = 2000)
        throws
    {
        let what = output.hasSuffix(".pdf") ? "--print-to-pdf=\(output)" : "--screenshot=\(output)"
        _ = try run(page, what, scratch: scratch, height: height)
        guard FileManager.default.fileExists(atPath: output) else {
            throw Failed(description: "chromium wrote no \(output)")
        }
    }

    /// The page's elements wider than a 1280-pixel window, or with content wider than
    /// themselves (a table that scrolls sideways): their tag names, empty when none.
    /// Measured by a script added to a copy of the page, read back from the DOM Chromium dumps.
    public static func overflowing(_ page: String, scratch: TemporaryDirectory) throws -> [String] {
        let probe = scratch.file("probe.html")
        let script = #"""
            <script>var o = []; document.querySelectorAll("main, section, table, dl, pre, svg, figure, .scroll").forEach(function (e) {
            if (e.getBoundingClientRect().right > 1280.5 || e.scrollWidth > e.clientWidth + 1) o.push(e.tagName.toLowerCase()); });
            document.body.setAttribute("data-overflowing", o.join(" ") || "none");</script></body>
            """#
        try String(contentsOfFile: page, encoding: .utf8).replacingOccurrences(of: "</body>", with: script).write(
            toFile: probe, atomically: true, encoding: .utf8)
        let dom = String(decoding: try run(probe, "--dump-dom", scratch: scratch, height: 2000), as: UTF8.self)
        guard let range = dom.range(of: #"data-overflowing="[^"]*""#, options: .regularExpression) else {
            throw Failed(description: "the probe did not run: \(dom.prefix(200))")
        }
        let value = dom[range].dropFirst("data-overflowing=\"".count).dropLast()
        return value == "none" ? [] : value.split(separator: " ").map(String.init)
    }

    /// Runs headless Chromium on `page` with `what` (its output option); its standard output.
    private static func run(_ page: String, _ what: String, scratch: TemporaryDirectory, height: Int) throws -> Data {
        guard let path else { throw Failed(description: "chromium is not installed") }
        let profile = scratch.file("chromium-profile")
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        var env = ["HOME": profile, "PATH": "/usr/bin:/bin", "TMPDIR": scratch.path]
        if let lang = ProcessInfo.processInfo.environment["LANG"] { env["LANG"] = lang }
        let r = try Subprocess.run(
            path,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--hide-scrollbars",
                "--no-pdf-header-footer", "--user-data-dir=\(profile)", "--window-size=1280,\(height)", what,
                URL(fileURLWithPath: page).absoluteString,
            ], environment: env, timeout: 120)
        guard r.status == 0 else {
            throw Failed(
                description:
                    "chromium exited with \(r.status): \(String(decoding: r.stderr, as: UTF8.self).suffix(2000))")
        }
        return r.stdout
    }
}

/// What a PNG shows, decoded by python3's zlib (8-bit RGB or RGBA, not interlaced).
public struct PNGSummary: Sendable {
    public var width: Int
    public var height: Int
    /// Distinct colours.
    public var colours: Int
    /// Share of pixels that are not the most common colour (the background).
    public var foregroundShare: Double

    private static let script = #"""
        import sys, zlib, struct, collections
        d = open(sys.argv[1], 'rb').read()
        assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
        pos, idat = 8, b''
        while pos < len(d):
            n, = struct.unpack('>I', d[pos:pos + 4]); kind = d[pos + 4:pos + 8]; body = d[pos + 8:pos + 8 + n]; pos += 12 + n
            if kind == b'IHDR': w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            elif kind == b'IDAT': idat += body
        assert depth == 8 and ctype in (2, 6) and interlace == 0, 'unsupported PNG'
        bpp = 3 if ctype == 2 else 4
        raw, stride, prev, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0
        counts = collections.Counter()
        for _ in range(h):
            f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
                if f == 1: line[x] = (line[x] + a) & 255
                elif f == 2: line[x] = (line[x] + b) & 255
                elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
                elif f == 4:
                    p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            counts.update(bytes(line[x:x + 3]) for x in range(0, stride, bpp))
            prev = line
        print(w, h, len(counts), 1 - counts.most_common(1)[0][1] / (w * h))
        """#

    public static func of(_ path: String) throws -> PNGSummary {
        let r = try Subprocess.run(
            "/usr/bin/env", ["python3", "-c", script, path], environment: ProcessInfo.processInfo.environment)
        let fields = String(decoding: r.stdout, as: UTF8.self).split(separator: " ").map {
            String($0).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard r.status == 0, fields.count == 4, let w = Int(fields[0]), let h = Int(fields[1]), let c = Int(fields[2]),
            let share = Double(fields[3])
        else {
            throw Chromium.Failed(
                description: "\(path): cannot decode the PNG: \(String(decoding: r.stderr, as: UTF8.self))")
        }
        return PNGSummary(width: w, height: h, colours: c, foregroundShare: share)
    }
}
