//! Whether text sent to a shell could set one of its variables: the prompt hook lists the
//! shell's secret-named variables (one `compgen` over every variable, 100 to 300 µs) only after
//! a command line that could have set one (docs/design/secrets.md, "The shell's variables").
//!
//! The test is conservative: an input passes only when nothing in it can assign a variable in
//! the shell that reads it. It cannot when it has no `=` (assignments, `${X:=...}`), no `$`
//! (a command word from an expansion, `$((...))`), no `!` (history expansion re-runs earlier
//! lines), no `((` (arithmetic), no word among the builtins and keywords that assign (`read`,
//! `source`, `.`, `export`, `declare`, `eval`, `for`, ...), no character outside the plain ones
//! of paths and options, and none of its words names a shell function or alias, which the hook
//! checks (ratd cannot see them): the words come back for that check.

/// Builtins and keywords that assign variables, run other lines in the shell, or change what
/// later lines do (any word of the text, wherever it stands).
const ASSIGNING: &[&str] = &[
    ".",
    "alias",
    "builtin",
    "cd",
    "command",
    "coproc",
    "declare",
    "enable",
    "eval",
    "exec",
    "bind",
    "export",
    "fc",
    "for",
    "getopts",
    "let",
    "local",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "read",
    "readarray",
    "readonly",
    "select",
    "set",
    "shopt",
    "source",
    "trap",
    "typeset",
    "unalias",
    "unset",
    "wait",
];

/// At most this many words go back to the hook, which checks each for a function or alias
/// (about 3 µs a word); a longer text is treated as one that could assign.
pub(crate) const MAX_WORDS: usize = 12;

/// The words of `text` the hook must check for functions and aliases when `text` cannot set
/// a variable by itself; `None` when it could (or is too long or unusual to judge).
pub(crate) fn words_to_check(text: &str) -> Option<Vec<String>> {
    // `((` arithmetic; a backquote runs a command whose output becomes words of the line
    // (`` `rev <<< daer` X `` runs `read X`); a brace expands into words (`{re,}ad X`).
    if text.contains("((") || text.contains(['`', '{', '}']) {
        return None;
    }
    // Quotes and backslashes go as bash removes them, joining what they split (`re"ad"` is
    // `read`); a quoted space then splits a word in two, which only adds words to check.
    let unquoted: String = text
        .chars()
        .filter(|c| !matches!(c, '\'' | '"' | '\\'))
        .collect();
    let mut words: Vec<String> = Vec::new();
    for word in unquoted.split(|c: char| {
        c.is_ascii_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '<' | '>')
    }) {
        if word.is_empty() {
            continue;
        }
        if !word.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'.' | b'/' | b':' | b',' | b'@' | b'%' | b'+' | b'-' | b'~'
                )
        }) {
            return None;
        }
        if ASSIGNING.contains(&word) {
            return None;
        }
        if !words.iter().any(|w| w == word) {
            if words.len() == MAX_WORDS {
                return None;
            }
            words.push(word.to_string());
        }
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Option<Vec<String>> {
        words_to_check(text)
    }

    fn words(list: &[&str]) -> Option<Vec<String>> {
        Some(list.iter().map(|w| w.to_string()).collect())
    }

    #[test]
    fn plain_commands_pass_with_their_words() {
        assert_eq!(check("true"), words(&["true"]));
        assert_eq!(
            check("cargo test -p rat-core --test wire"),
            words(&["cargo", "test", "-p", "rat-core", "--test", "wire"])
        );
        assert_eq!(
            check("ls -la /tmp && git status | head -5"),
            words(&["ls", "-la", "/tmp", "git", "status", "head", "-5"])
        );
        assert_eq!(
            check("echo 'hello world'; sleep 0.3"),
            words(&["echo", "hello", "world", "sleep", "0.3"])
        );
        assert_eq!(check(""), words(&[]));
        assert_eq!(check("\n"), words(&[]));
    }

    #[test]
    fn what_could_assign_does_not_pass() {
        for text in [
            "GITHUB_TOKEN=abc",
            "export API_KEY",
            "source .env",
            ". ./.env",
            "set -a; . .env",
            "read -r DB_PASSWORD",
            "read DB_PASSWORD < /tmp/p",
            "eval \"$(ssh-agent)\"",
            "echo ${X:=1}",
            "$cmd",
            "echo $HOME",
            "!!",
            "!ls",
            "((x++))",
            "for f in a b; do :; done",
            "printf -v SECRET %s x",
            "mapfile -t lines < f",
            "declare -x A_TOKEN",
            "builtin read x",
            "cd /tmp",
            "fc -s",
            "alias ll=ls",
            "echo é",
            "ls *.txt",
            "a b c d e f g h i j k l m",
            "`rev <<< daer` X",
            "{re,}ad X",
            "{a..b}",
            "^ls^read X",
            "wait -p X",
            "bind -x ls",
        ] {
            assert_eq!(words_to_check(text), None, "{text}");
        }
    }

    #[test]
    fn quotes_and_backslashes_do_not_hide_a_word() {
        assert_eq!(words_to_check("\"read\" x"), None);
        assert_eq!(words_to_check("'source' f"), None);
        assert_eq!(words_to_check("r\\ead x"), None);
        assert_eq!(words_to_check("re\"ad\" x"), None);
        assert_eq!(words_to_check("so'urce' f"), None);
        assert_eq!(check("\\myfunc arg"), words(&["myfunc", "arg"]));
        assert_eq!(words_to_check("`myfunc`"), None);
    }
}
