import Foundation
import TestSupport
import Testing

/// The completion scripts scripts/install installs, generated from the command
/// definitions, load in their shells and complete cdhist's subcommands and options.
@Suite struct CompletionTests {
    /// Writes `cdhist --generate-completion-script shell` to a file in `dir`.
    private func script(_ shell: String, in dir: TemporaryDirectory) throws -> String {
        let r = try CLI.run(["--generate-completion-script", shell])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(shell): \(r.stderr)")
        let path = dir.file("cdhist.\(shell)")
        try r.stdout.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    private func shell(_ name: String) -> String? {
        ["/usr/bin/\(name)", "/bin/\(name)", "/usr/local/bin/\(name)", "/opt/homebrew/bin/\(name)"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func bashLoadsTheScriptAndCompletesSubcommandsAndOptions() throws {
        let dir = try TemporaryDirectory()
        let path = try script("bash", in: dir)
        let bash = try #require(shell("bash"))
        // What bash does on Tab after `cdhist pu` and after `cdhist purge STORE --bef`.
        // The script calls cdhist back for the store's names: cdhist is on the PATH, as for a user.
        let probe = """
            export PATH="\(CLI.products.path):$PATH"
            source "$1" || exit 3
            complete -p cdhist
            words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
                      _cdhist cdhist "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; echo "${COMPREPLY[*]}"; }
            words cdhist pu
            words cdhist purge store.sqlite --bef
            """
        let r = try CLI.run(["-c", probe, "bash", path], executable: bash)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.status) \(r.stderr)")
        #expect(lines == ["complete -o filenames -F _cdhist cdhist", "purge", "--before"], "\(lines)")
    }

    @Test func zshAndFishLoadTheirScripts() throws {
        let dir = try TemporaryDirectory()
        var tried = 0
        if let zsh = shell("zsh") {
            let path = try script("zsh", in: dir)
            // compinit registers the #compdef function; $_comps maps the command to it.
            let probe = "autoload -U compinit && compinit -u -D && source \"$1\" && print -r -- ${_comps[cdhist]}"
            let r = try CLI.run(["-f", "-c", probe, "zsh", path], executable: zsh, environment: ["HOME": dir.path])
            #expect(r.status == 0 && r.stdout == "_cdhist\n", "zsh: \(r.status) \(r.stdout) \(r.stderr)")
            tried += 1
        }
        if let fish = shell("fish") {
            let path = try script("fish", in: dir)
            let probe = "source $argv[1]; and complete -C 'cdhist pu'; and complete -C 'cdhist purge store.sqlite --bef'"
            let r = try CLI.run(["--no-config", "-c", probe, path], executable: fish, environment: ["HOME": dir.path])
            let words = r.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
            #expect(r.status == 0 && words == ["purge", "--before"], "fish: \(r.status) \(r.stdout) \(r.stderr)")
            tried += 1
        }
        if tried < 2 {
            print("NOTICE: zsh or fish not installed; only the installed shells' completion scripts are loaded")
        }
    }
}
