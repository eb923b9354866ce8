//! Every text agents read from the terminal tools, in one place: the instructions' terminal
//! parts, the descriptions, and the result and error texts (`docs/design/tools.md` and
//! `docs/design/terminals.md`). Texts that depend on the startup check take
//! its [`TerminalCheck`]. Snapshot tests (`tests/catalog.rs`, `tests/terminals*.rs`) show any
//! change of wording in review.

mod answers;
mod arguments;
mod rows;
mod status;

pub(crate) use answers::*;
pub(crate) use arguments::*;
pub(crate) use rows::*;
pub(crate) use status::{ago, list_exit, wait_exit};

use super::check::{Degradation, TerminalCheck};
use super::keys::{EDIT_KEYS, SHOWN_KEYS};
use super::names::NAME_RULE;
use crate::result::ReadBudget;

/// The sentence added when bracketed paste does not hold (instructions and `send_text`).
pub(crate) const PASTE_WARNING: &str =
    "Multi-line text may run line by line even at a prompt: send one line at a time.";

/// How bash in the foreground reads where no status is reported.
const BASH_MEANS_INPUT: &str = "bash in the foreground means the terminal waits for input, unless it \
     runs a bash script or builtin";

/// What a degradation loses and its fix, one line (printed by `rat-tool check`).
pub fn degradation(lost: Degradation) -> &'static str {
    match lost {
        Degradation::WaitsLost => {
            "terminals: waits and exit statuses lost (the startup check found no prompt of \
             rat's hook recorded, or could not run): see ratd's log for PROMPT_COMMAND, and make \
             the bash startup files of ratd's user add to PROMPT_COMMAND rather than replace it \
             at each prompt, and not block"
        }
        Degradation::StatusesLost => {
            "terminals: exit statuses lost (a hook runs before rat's in PROMPT_COMMAND at every \
             prompt): see ratd's log for PROMPT_COMMAND, and make the bash startup files of \
             ratd's user stop moving their hook first at each prompt"
        }
        Degradation::PasteOverridden => {
            "terminals: bracketed paste overridden (multi-line text may run line by line): \
             remove 'set enable-bracketed-paste off' from the inputrc of ratd's user"
        }
    }
}

/// The MCP instructions (`docs/design/tools.md`, MCP instructions), for `host`, worded after what
/// the check found: statuses reported, or not; prompts recorded, or not (wait_window then says why it
/// can not wait); the paste warning added when bracketed paste does not hold.
pub fn instructions(host: &str, check: &TerminalCheck) -> String {
    let checking = if check.reports_statuses() {
        "wait_window waits until a command finished, 50 seconds at most per call, and tells how it \
         exited; list_windows shows the foreground command of each window, and how its last command \
         exited once bash is back at its prompt; read_window shows the screen."
            .to_string()
    } else if check.records_prompts() {
        format!(
            "wait_window waits until a command finished, 50 seconds at most per call; list_windows \
             shows the foreground command of each window ({BASH_MEANS_INPUT}); read_window shows \
             the screen."
        )
    } else {
        format!(
            "rat can not tell when a command finishes in these terminals (wait_window tells why); \
             list_windows shows the foreground command of each window ({BASH_MEANS_INPUT}); \
             read_window shows the screen."
        )
    };
    let short = if check.records_prompts() {
        "A short command is one call: send_text with wait_seconds answers once it finished, as \
         wait_window does, with what it printed; a long one is sent without it, left to run, and \
         waited for later."
    } else {
        ""
    };
    let mut text = format!(
        "rat gives you persistent terminals on {host}: commands run there, not where you run. It \
         is asynchronous by design: sending a command returns at once, without waiting for it to \
         finish, unless asked. {short} Start long running commands (builds, tests, deployments), carry on with other \
         work, and come back to check them: {checking} Run several commands in parallel in several \
         windows, each long running command in the foreground of a window of its own \
         (create_window): a single list_windows then tells which still run, and reading a window \
         shows its progress, with no need for a script to check jobs or their logs. A command run \
         in the background (&, nohup) looks finished at once: rat follows the foreground command \
         of a window. Each terminal is a window running bash, found by name: windows persist \
         across your restarts and context compactions, so call list_windows first, and close the \
         windows you are done with (close_window). A window named main exists when you start. To \
         copy a whole file to or from the machine, use write_file and read_file rather than the \
         terminal. For the exact output of a long command, run it as command 2>&1 | tee \
         /tmp/name.log: the screen still shows it, and read_file reads the file whole or a range \
         at a time, rather than reading the window over and over. If the terminals restart after a \
         failure, every window disappears and you find a fresh main."
    );
    if check.warns_paste() {
        text.push(' ');
        text.push_str(PASTE_WARNING);
    }
    text
}

/// The tool that shows a new window's prompt: wait_window where prompts are recorded.
fn prompt_tool(check: &TerminalCheck) -> &'static str {
    if check.records_prompts() {
        "wait_window"
    } else {
        "read_window"
    }
}

/// Description of `list_windows`.
pub fn list_windows_description(check: &TerminalCheck) -> String {
    if check.reports_statuses() {
        "List your terminals: each window with its foreground command, working directory and last \
         activity, and how its last command exited once bash is back at its prompt. The cheap way \
         to check whether a command finished: an exit status shows it did (ssh shows as ssh even \
         when idle, and what runs within it shows no status). A pipeline exits with the status of \
         its last command: when commands before it failed, their statuses follow, by position."
            .to_string()
    } else {
        "List your terminals: each window with its foreground command, working directory and last \
         activity. The cheap way to check whether a command finished: bash in the foreground means \
         the terminal waits for input (bash scripts, builtins and loops show as bash too, and ssh \
         shows as ssh even when idle)."
            .to_string()
    }
}

/// Description of `create_window`.
pub fn create_window_description(check: &TerminalCheck) -> String {
    format!(
        "Create a terminal: a window running bash, in your home directory. Use one window per long \
         running command, in its foreground, and close the windows you are done with \
         (close_window). Windows persist across your restarts: call list_windows first, a window \
         named main already exists. Wait for the prompt of a new window ({}) before sending text \
         to it.",
        prompt_tool(check)
    )
}

/// Description of `close_window`: what it ends, what it does not (detached jobs), and which of
/// those it can not find (`detached`: they dropped the window's variables and left its session).
pub fn close_window_description() -> String {
    "Close a window you are done with, terminating what runs in it. Processes detached from it \
     ((command &) in a subshell, nohup, disown, setsid, daemons) outlive it: the result names \
     each one left running, found by the TMUX and TMUX_PANE variables every process started \
     from the window inherits. Not found: those that dropped them (env -i, sudo, another user) \
     and left the window's session."
        .to_string()
}

/// How to type a command into a full-screen program, given alike by `send_text` and `send_keys`
/// (`docs/design/terminals.md`, send_text: vim, once it asked for bracketed paste, inserts a paste
/// as text in every mode; a line send_text types runs as a command).
const FULL_SCREEN_COMMANDS: &str = "A full-screen program's command goes as one line by \
     send_text, which types it (\":wq\" with enter true in vim's normal mode: press Escape \
     first, as typed text is inserted in insert mode; \"q\" in less), or as keys by \
     send_keys, one name per character (\":\", \"w\", \"q\", \"Enter\"); text of several lines \
     is pasted, which vim inserts as text in any mode.";

/// What a running program does with send_text's text (`docs/design/terminals.md`, send_text:
/// measured): a single line typed, more pasted, kept on the line or taken line by line.
const RUNNING_PROGRAM: &str = "To a running program, a single line without tab is typed as \
     keys; more is pasted: a program whose line editor uses bracketed paste (bc, sqlite3, psql) \
     keeps the pasted lines on its line until Enter, a plain reader (python 3.11's or node's \
     REPL, a read, a new window before its prompt) takes each line as it comes, and bash runs \
     what is left line by line once back at its prompt.";

/// Description of `send_text`: what the text meets (the paste warning in place of what it meets
/// at a prompt where bracketed paste does not hold), how a full-screen program's commands are
/// typed, and a window of its own for each long running command rather than the background.
pub fn send_text_description(check: &TerminalCheck) -> String {
    let meets = if check.warns_paste() {
        // In place of what text meets at a prompt (`docs/design/tools.md`, MCP instructions);
        // what it meets otherwise holds all the same.
        format!(
            "{PASTE_WARNING} {RUNNING_PROGRAM} So before sending several lines, wait for the \
             prompt ({}). {FULL_SCREEN_COMMANDS}",
            prompt_tool(check)
        )
    } else {
        format!(
            "At a bash prompt, the text is pasted: it waits on the command line, new lines \
             included, and nothing runs until Enter. {RUNNING_PROGRAM} So before sending \
             several lines, wait for the prompt ({}). {FULL_SCREEN_COMMANDS}",
            prompt_tool(check)
        )
    };
    let follow = if check.records_prompts() {
        "wait_window then waits for it, list_windows and read_window follow it, with no script \
         checking jobs or their logs"
    } else {
        "list_windows and read_window then follow it, with no script checking jobs or their logs"
    };
    let wait = if check.records_prompts() {
        ", unless wait_seconds asks (0 to 50; 0 or absent returns at once): then it answers as \
         wait_window does once the command \
         finished, with what it printed (a short command is one call; send a long one without \
         it, and wait for it later)"
    } else {
        ""
    };
    format!(
        "Send text into a window, pasted as a human pastes or typed as keys, then press Enter if \
         enter is true. Returns at once, without waiting for the command{wait}. {meets} Run each \
         long running command in the foreground of a window of its own (create_window) rather \
         than in the background (&, nohup): {follow}."
    )
}

/// The key names `send_keys` accepts, as listed in its description and its refusals (aliases not
/// shown): the keys, then which modifiers go with which (keys.rs has the rules, from tmux 3.3a).
pub fn key_names() -> String {
    let edit = format!("{} to {}", EDIT_KEYS[0], EDIT_KEYS[EDIT_KEYS.len() - 1]);
    format!(
        "a printable character, {}, F1 to F12, with the modifiers M- (any key), C- (a letter, \
         Space, @ [ \\ ] ^ _ ?, - / 2 6 without M-, and {edit}, F1 to F12) and S- (only {edit}, \
         F1 to F12), combinable (C-c, M-x, S-Up, C-M-Left)",
        SHOWN_KEYS.join(", "),
    )
}

/// Description of `send_keys`: the names accepted (aliases not shown).
pub fn send_keys_description(check: &TerminalCheck) -> String {
    let returns = if check.records_prompts() {
        "Returns at once, unless wait_seconds asks (0 to 50; 0 or absent returns at once): then \
         it answers as wait_window does, with \
         what followed (Enter, C-c)."
    } else {
        "Returns at once."
    };
    format!(
        "Press keys in a window, in order, one name per key: {}. C-c interrupts, C-d ends input. \
         To type text at a prompt or into a program's input, use send_text. \
         {FULL_SCREEN_COMMANDS} {returns}",
        key_names()
    )
}

/// Description of `read_window`, stating the read budget.
pub fn read_window_description(budget: ReadBudget) -> String {
    format!(
        "Read the screen of a window (200x24), preceded by up to scrollback_rows rows of history \
         (none by default). Under a full-screen program, the screen as displayed, with its cursor, \
         and never history. A result holds at most {budget}: history beyond is cut from its start. \
         With output_rows, rows of the last command's output by number instead (as the hint of \
         an answer showing only its last rows names them)."
    )
}

/// Description of `wait_window`.
pub fn wait_window_description(check: &TerminalCheck) -> String {
    if !check.records_prompts() {
        return format!(
            "Wait until the command sent last to a window finished. In these terminals it can not: \
             {}, and it answers so at once. Use list_windows instead ({BASH_MEANS_INPUT}), and \
             read_window.",
            no_prompts_because(check)
        );
    }
    let exited = if check.reports_statuses() {
        ", then tell how it exited. A pipeline exits with the status of its last command: when \
         commands before it failed, they are told first, by position"
    } else {
        ""
    };
    format!(
        "Wait until the command sent last to a window finished (bash back at its prompt){exited}. \
         Its answer carries the last rows the command printed (since the last answer while it runs), \
         with their count and the read_window call showing the others. After max_seconds (1 to \
         50, 20 by default), tells what still runs and since when: to wait longer, call it again once it returns; several calls at once on a window wait \
         together, no longer than one. Not seen as finished: a program waiting for input, and \
         what runs within ssh or an interpreter. Seen as finished at once: a command run in the \
         background (&)."
    )
}

/// Why wait_window can not wait where prompts are not recorded: the check found the startup
/// files replacing `PROMPT_COMMAND`, or could not run (a check that can not run is taken as
/// nothing holding: `docs/design/terminals.md`, The startup check).
fn no_prompts_because(check: &TerminalCheck) -> &'static str {
    if check.ran {
        "their bash startup files replace PROMPT_COMMAND, so no prompt is recorded"
    } else {
        "rat could not check them at its start (bash startup files blocking or too slow), so it \
         does not rely on recorded prompts"
    }
}

// ---- results and errors ----

/// The answer of wait_window where prompts are not recorded (refused at once).
pub(crate) fn can_not_wait(window: &str, check: &TerminalCheck) -> String {
    format!(
        "{window}: rat can not wait in these terminals, as it can not tell when a command \
         finishes: {}. Check with list_windows instead ({BASH_MEANS_INPUT}), and read_window.",
        no_prompts_because(check)
    )
}

/// Why a call found no session of the client's, and created one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewSessionCause {
    /// It never existed (on this machine, for this tenant).
    New,
    /// Its last window closed (its bash exited, or close_window): the session ended with it.
    LastClosed,
    /// The terminals were restarted (ratd restarted, or tmux after a failure).
    Restarted,
}

impl NewSessionCause {
    /// What happened to the client's terminals, as the results show it.
    pub fn phrase(self) -> &'static str {
        match self {
            NewSessionCause::New => "your terminals did not exist",
            NewSessionCause::LastClosed => {
                "your last window had closed, its directory and environment gone"
            }
            NewSessionCause::Restarted => {
                "your terminals were restarted, every window and what ran in it gone"
            }
        }
    }
}

/// Header of a result whose call created the session (list_windows, wait_window).
pub(crate) fn created_header(origin: NewSessionCause) -> String {
    format!("{}: a fresh main was just created", origin.phrase())
}

/// The same, short, for read_window, whose headers must fit the smallest read budget with a
/// full screen.
pub(crate) fn created_header_short(origin: NewSessionCause) -> &'static str {
    match origin {
        NewSessionCause::New => "your terminals did not exist: a fresh main was just created",
        NewSessionCause::LastClosed => "your last window had closed: a fresh main was just created",
        NewSessionCause::Restarted => {
            "your terminals were restarted: a fresh main was just created"
        }
    }
}

/// The error of a tool naming an invalid window name.
pub(crate) fn invalid_name(name: &str) -> String {
    format!("Invalid window name {}: {NAME_RULE}.", quoted_cut(name))
}

/// How much of a refused value is repeated to the agent, in characters.
pub(crate) const ECHOED: usize = 64;

/// `value` quoted (Rust's escapes), cut after [`ECHOED`] characters with the length reported: a
/// refusal repeats what it refuses without sending a huge value back into the agent's context.
pub(crate) fn quoted_cut(value: &str) -> String {
    let count = value.chars().count();
    if count <= ECHOED {
        return format!("{value:?}");
    }
    let start: String = value.chars().take(ECHOED).collect();
    format!("{start:?}... ({count} characters)")
}

/// How many keys the result of send_keys repeats.
const KEYS_REPEATED: usize = 20;

/// The keys send_keys pressed, as its result repeats them: all of them up to
/// [`KEYS_REPEATED`], else the first ones and the count (`a b ... and 11980 more (12000
/// keys)`): a long list sent back whole would fill the agent's context.
pub(crate) fn keys_pressed(keys: &[String]) -> String {
    if keys.len() <= KEYS_REPEATED {
        return keys.join(" ");
    }
    format!(
        "{} ... and {} more ({} keys)",
        keys[..KEYS_REPEATED].join(" "),
        keys.len() - KEYS_REPEATED,
        keys.len()
    )
}

/// wait_window given a `max_seconds` out of 1 to 50 (`asked`): refused, nothing waited for.
pub(crate) fn max_seconds_out_of_range(asked: u32) -> String {
    format!(
        "Nothing was waited for: max_seconds is {asked}, and must be from 1 to {max} ({} by \
         default). Call wait_window again with max_seconds from 1 to {max}, or without it.",
        super::input::DEFAULT_WAIT_SECONDS,
        max = super::input::MAX_WAIT_SECONDS,
    )
}

/// send_text or send_keys given a `wait_seconds` over 50 (`asked`): refused, nothing sent.
pub(crate) fn wait_seconds_out_of_range(tool: &str, asked: u32) -> String {
    format!(
        "Nothing was sent: wait_seconds is {asked}, and must be from 0 to {max} (0 by default). \
         Call {tool} again with wait_seconds from 0 to {max}, or without it.",
        max = super::input::MAX_WAIT_SECONDS,
    )
}

/// The error of a tool naming a missing window.
pub(crate) fn no_window(name: &str) -> String {
    format!("No window {name}: list_windows shows your windows, create_window creates one.")
}

/// send_text or send_keys to a session the call just created (Plumbing).
pub(crate) fn sent_to_new_session(
    window: &str,
    tool_for_prompt: &str,
    origin: NewSessionCause,
) -> String {
    let what = origin.phrase();
    if window == "main" {
        format!(
            "Nothing was sent: {what}, and a fresh main was just created, where bash is still \
             starting. Wait for its prompt ({tool_for_prompt}), then send again."
        )
    } else {
        format!(
            "Nothing was sent: {what}, and a fresh main was just created, with no window \
             {window}: create_window creates it."
        )
    }
}

/// read_window (or wait_window) naming another window than main in a session just created.
pub(crate) fn other_window_in_new_session(window: &str, origin: NewSessionCause) -> String {
    format!(
        "No window {window}: {}, and a fresh main was just created. create_window creates \
         {window}.",
        origin.phrase()
    )
}

/// The terminals restarting after a death of the tmux server (`docs/design/terminals.md`,
/// Restarts).
pub const RESTARTING: &str = "The terminals are restarting after a failure, and every window \
     was lost: retry in a few seconds to find a fresh main.";

/// tmux not answering within the deadline, for a call that only reads.
pub const NOT_ANSWERING: &str = "The terminals did not answer in time: retrying may work.";

/// tmux not answering within the deadline, for a call whose commands were written to tmux:
/// tmux reads them when it answers again, so they may still take effect; `look` says how to
/// see whether they did.
pub(crate) fn not_answering_sent(look: &str) -> String {
    format!(
        "The terminals did not answer in time (tmux stopped or overloaded): this call did not \
         complete, but what it sent may still take effect once tmux answers. Before retrying, \
         {look}."
    )
}

/// The exit status of a finished command is unknown: another program's hook ran first.
pub(crate) const STATUS_UNKNOWN: &str = "Its exit status is unknown: a hook of another program \
     ran before rat's in PROMPT_COMMAND at that prompt (rat's moves back first for the next \
     command).";

/// Where the startup check found statuses lost: said where a status would be.
pub(crate) const STATUS_NOT_RECORDED: &str = "Its exit status is not recorded in these \
     terminals: a bash startup file runs a command before rat's hook in PROMPT_COMMAND.";

/// Anything else: logged.
pub const INTERNAL: &str = "Internal error, logged: retrying may work.";

/// ratd stopping while a call waits.
pub(crate) fn stopping(window: &str) -> String {
    format!(
        "{window}: rat is stopping, so the wait ended early; what runs in the window stops with it."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_header_is_short() {
        // The longest header must leave a screen of 4-byte characters under the minimum budget.
        for origin in [
            NewSessionCause::New,
            NewSessionCause::LastClosed,
            NewSessionCause::Restarted,
        ] {
            assert!(created_header(origin).len() < 120, "{origin:?}");
            assert!(created_header_short(origin).len() <= 60, "{origin:?}");
        }
    }

    #[test]
    fn refused_values_are_repeated_cut() {
        assert_eq!(
            invalid_name("a b"),
            format!("Invalid window name \"a b\": {NAME_RULE}.")
        );
        let long = "é".repeat(100_000);
        assert_eq!(
            invalid_name(&long),
            format!(
                "Invalid window name \"{}\"... (100000 characters): {NAME_RULE}.",
                "é".repeat(64)
            )
        );
        assert_eq!(
            quoted_cut(&"x".repeat(64)),
            format!("\"{}\"", "x".repeat(64))
        );
        assert_eq!(quoted_cut("a\nb"), r#""a\nb""#);
    }
}
