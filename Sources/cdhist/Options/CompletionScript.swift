import ArgumentParser

/// The shells' completion scripts: ArgumentParser's, with what a name inside a backup or an
/// archive needs. A shell adds a space after a completed word unless it names a folder on disk;
/// a folder inside a zip (or a backup) is none, so the word would end there (`…/Library/ ` and
/// the next Tab gives ` -`). bash's function is wrapped, and zsh's adds names ending in `/`
/// without a space, so that the name is typed on after its `/`; fish types on by itself.
enum CompletionScript {
    /// The script for the shell named `argument`, or nil for a shell left to ArgumentParser.
    static func text(_ argument: String) -> String? {
        switch argument {
        case "bash":
            return CDHist.completionScript(for: .bash) + """

                # A folder inside a backup or a zip ends in / and is typed on, as a folder on disk is.
                _cdhist_typing_on() {
                    _cdhist "$@"
                    if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]]; then compopt -o nospace 2>/dev/null; fi
                }
                complete -o filenames -F _cdhist_typing_on cdhist

                """
        case "zsh":
            let script = CDHist.completionScript(for: .zsh)
            guard script.contains(zshDescribe) else { return nil }
            return script.replacingOccurrences(of: zshDescribe, with: zshTypingOn)
        default:
            return nil
        }
    }

    /// ArgumentParser's zsh function that offers a list of values.
    static let zshDescribe = """
        __cdhist_complete() {
            local -ar non_empty_completions=("${@:#(|:*)}")
            local -ar empty_completions=("${(M)@:#(|:*)}")
            _describe -V '' non_empty_completions -- empty_completions -P $'\\'\\''
        }
        """

    /// The same, with the values ending in `/` (folders, also inside a backup or a zip) added
    /// without the space after them.
    static let zshTypingOn = """
        __cdhist_complete() {
            local -a folders=("${(M)@:#*/}")
            local -a rest=("${@:#*/}")
            local -ar non_empty_completions=("${rest[@]:#(|:*)}")
            local -ar empty_completions=("${(M)rest[@]:#(|:*)}")
            local ret=1
            (( ${#folders} )) && compadd -S '' -- "${folders[@]}" && ret=0
            (( ${#rest} )) && _describe -V '' non_empty_completions -- empty_completions -P $'\\'\\'' && ret=0
            return ret
        }
        """
}
