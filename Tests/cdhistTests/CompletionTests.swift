import Foundation
import HistoryFixtures
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
                      _cdhist_typing_on cdhist "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; echo \
            "${COMPREPLY[*]}"; }
            words cdhist pu
            words cdhist purge store.sqlite --bef
            """
        let r = try CLI.run(["-c", probe, "bash", path], executable: bash)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.status) \(r.stderr)")
        #expect(lines == ["complete -o filenames -F _cdhist_typing_on cdhist", "purge", "--before"], "\(lines)")
    }

    /// A name with a space, typed escaped or in an open quote, completes past its folder; inside
    /// an archive a folder is typed on (bash; zsh by its script).
    @Test func namesWithSpacesAndInsideArchivesComplete() throws {
        let dir = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.file("My Folder"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Repository.fixtures + "/AppGroup/Tasks.sqlite", toPath: dir.file("My Folder/Tasks.sqlite"))
        let (_, planted) = try PlaceFixtures.write("archive", into: dir.file("places"))
        let inner = String(try #require(planted.first?.name).dropFirst(dir.path.count + 1))
        let library = inner.components(separatedBy: "/Application Support/")[0] + "/"
        let bashScript = try script("bash", in: dir)
        let bash = try #require(shell("bash"))
        let probe = """
            cd "$2" || exit 4
            export PATH="\(CLI.products.path):$PATH"
            source "$1" || exit 3
            words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
                      _cdhist_typing_on cdhist "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"; printf '%s|' \
            "${COMPREPLY[@]}"; echo; }
            words cdhist info 'My\\ Fo'
            words cdhist info "'My Fo"
            words cdhist info 'My\\ Folder/'
            words cdhist info '\(library)App'
            """
        let r = try CLI.run(["-c", probe, "bash", bashScript, dir.path], executable: bash)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(r.status == 0, "\(r.stderr)")
        // bash adds a folder's / itself (after a closing quote too), and escapes what it inserts.
        #expect(
            lines == ["My Folder|", "My Folder|", "My Folder/Tasks.sqlite|", library + "Application Support/|"],
            "\(lines)")
        // zsh adds a name ending in / (a folder, also in an archive) without a space after it;
        // fish types on by itself (its completion runs only in an interactive shell).
        let zsh = try CLI.run(["--generate-completion-script", "zsh"]).stdout
        #expect(
            zsh.contains("compadd -S '' -- \"${folders[@]}\"")
                && !zsh.contains("_describe -V '' non_empty_completions -- empty_completions -P $'\\'\\''\n}"))
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
            let probe =
                "source $argv[1]; and complete -C 'cdhist pu'; and complete -C 'cdhist purge store.sqlite --bef'"
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
