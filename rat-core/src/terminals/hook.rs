//! rat's `PROMPT_COMMAND` hook and the bash it runs in (plan.md, "The hook and prompts").
//!
//! At each prompt the hook:
//! 1. reads `${PIPESTATUS[@]}` first, before anything else changes it;
//! 2. turns bracketed paste on (`bind 'set enable-bracketed-paste on'`): bash 4.4 and 5.0 have it
//!    off by default, and an inputrc can turn it off; `PROMPT_COMMAND` runs after the startup
//!    files, so the setting holds whatever they say;
//! 3. tells the terminal at once that bracketed paste is on (`ESC[?2004h`, which readline sends
//!    again when it starts reading the line): the prompt is recorded from a tmux client that
//!    may reach tmux before readline has started, and a paste sent then must still be
//!    bracketed, or its lines would run one by one;
//! 4. unless a line already waits to be read (`read -t 0`: a text sent while the command ran,
//!    which bash runs right after this prompt), records the prompt in the pane user option `@rat_prompt` as `TIME:STATUSES` (`-` at the
//!    first prompt of a bash, which follows its startup files, not a command), and unsets
//!    `@rat_input`, the option each input sets to its own time: "finished" is then a prompt
//!    recorded since the last input, with no state in rat.
//!
//! It reaches tmux through the client of the terminal (`TMUX`, `TMUX_PANE`), by the absolute
//! path of the tmux running the server: the agent's `PATH` may hold another one, or none. The
//! tmux client runs in the background of a subshell (`( tmux ... & )`), with job control off
//! meanwhile (`set +m`, restored if it was on): in the foreground, or in a subshell given its own
//! process group by job control, it would show as the window's command (`tmux` rather than
//! `bash`, measured) for the millisecond or two it takes, which `list_windows` would tell and
//! `wait_window` would take for a command running. A subshell rather than a job of bash's own,
//! so that bash announces nothing and `$!` stays the agent's. The cost, measured in
//! `benches/benches/wait.rs`, is in `rat-core/README.md`. The time comes from `printf '%(%s)T'`,
//! without a process. Nothing is printed. `${VAR-}` everywhere, so that `set -u` in a startup
//! file breaks nothing.

use std::path::Path;

/// The user option holding the last prompt recorded: `TIME:STATUSES`.
pub(crate) const PROMPT_OPTION: &str = "@rat_prompt";
/// The user option each input sets to its own time (Unix seconds); the hook unsets it.
pub(crate) const INPUT_OPTION: &str = "@rat_input";

/// The value of `PROMPT_COMMAND` in the terminals, for the tmux program at `tmux`.
pub(crate) fn prompt_command(tmux: &Path) -> String {
    let tmux = shell_quote(&tmux.to_string_lossy());
    format!(
        "__rat_s=(\"${{PIPESTATUS[@]}}\"); \
         bind 'set enable-bracketed-paste on' >/dev/null 2>&1; \
         [ -t 1 ] && printf '\\e[?2004h'; \
         if [ -n \"${{TMUX-}}\" ] && [ -n \"${{TMUX_PANE-}}\" ]; then \
         if [ -z \"${{__rat_up-}}\" ]; then __rat_up=1; __rat_p=-; \
         else printf -v __rat_p '%s,' \"${{__rat_s[@]}}\"; __rat_p=${{__rat_p%,}}; fi; \
         printf -v __rat_t '%(%s)T' -1; \
         if ! read -t 0 2>/dev/null; then \
         __rat_m=${{-//[^m]/}}; set +m; \
         ({tmux} set-option -p -t \"$TMUX_PANE\" {PROMPT_OPTION} \"$__rat_t:$__rat_p\" \\; \
         set-option -p -u -t \"$TMUX_PANE\" {INPUT_OPTION} >/dev/null 2>&1 &); \
         if [ -n \"$__rat_m\" ]; then set -m; fi; fi; fi"
    )
}

/// `s` in single quotes for bash.
pub(crate) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The version `bash --version` states on its first line (`GNU bash, version 5.2.15(1)-release
/// ...`): `(major, minor)` and the version as written. Read from `--version` rather than from a
/// script printing `BASH_VERSINFO`, which would run the file named by `BASH_ENV`.
pub(crate) fn parse_bash_version(said: &str) -> Option<((u32, u32), String)> {
    let first = said.lines().next()?;
    let rest = &first[first.find("version ")? + "version ".len()..];
    let version: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    let mut numbers = version.split(|c: char| !c.is_ascii_digit());
    let major = numbers.next()?.parse().ok()?;
    let minor = numbers.next()?.parse().ok()?;
    Some(((major, minor), version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_versions() {
        let v = parse_bash_version(
            "GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\nCopyright",
        );
        assert_eq!(v, Some(((5, 2), "5.2.15(1)-release".to_string())));
        let v = parse_bash_version("GNU bash, version 3.2.57(1)-release (arm64-apple-darwin23)");
        assert_eq!(v.unwrap().0, (3, 2));
        assert_eq!(parse_bash_version("zsh 5.9"), None);
    }

    #[test]
    fn hook() {
        insta::assert_snapshot!(prompt_command(Path::new("/usr/bin/tmux")));
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
    }
}
