//! The answers of the terminal tools once they ran: windows described, created and closed,
//! inputs sent or refused, screens read, waits ended. Part of [`super`], reached as
//! `texts::...`; ages come worded already (`3s`, `2m 5s`: see `texts::ago`).

use super::NewSessionCause;

// ---- list_windows ----

/// The start of a window's line in list_windows: `build: make in /src, active 3s ago`.
pub(crate) fn window_line(name: &str, command: &str, path: &str, active: &str) -> String {
    format!("{name}: {command} in {path}, active {active} ago")
}

/// Added to a window's line when its hook reported no prompt yet.
pub(crate) const NO_PROMPT_YET: &str =
    ", no prompt recorded yet: bash still starting, or its startup files replace PROMPT_COMMAND";

/// Added to a finished window's line when another program's hook ran before rat's.
pub(crate) fn last_status_unknown(age: &str) -> String {
    format!(
        ", last command's exit status unknown (another program's hook ran \
         before rat's) ({age} ago)"
    )
}

/// Added to the line of a window whose bash has shown no prompt since the last input, `age`
/// ago: a command started by it may run in bash itself (a loop, a pipeline's subshells), so
/// `bash` in the foreground does not say it is idle.
pub(crate) fn line_no_prompt_since(age: &str) -> String {
    format!(", no prompt since the last input ({age} ago)")
}

/// Added to the line of a window whose bash holds a line typed without Enter.
pub(crate) const LINE_TEXT_WAITS: &str =
    ", a line typed without Enter waits on its command line (send_keys Enter runs it)";

/// Added to a finished window's line, once, where the startup check found statuses lost.
pub(crate) const LINE_STATUS_NOT_RECORDED: &str = ", exit status not recorded in these terminals";

/// Added to the line of a window whose bash shows the alternate screen a program left on.
pub(crate) const FULL_SCREEN_LEFT_ON: &str =
    ", full-screen mode left on by a program that ended: `tput rmcup` leaves it";

/// Added to the line of a window under a full-screen program.
pub(crate) const FULL_SCREEN: &str = ", full-screen program";

/// Added to the line of a window with history.
pub(crate) fn rows_of_history(rows: u64) -> String {
    format!(", {rows} rows of history")
}

// ---- create_window and close_window ----

/// create_window's answer: the window created in `home`, and why the session had to be
/// created first when it was not [`NewSessionCause::New`].
pub(crate) fn window_created(name: &str, home: &str, origin: NewSessionCause) -> String {
    let created = format!("Window {name} created: bash is starting in {home}.");
    match origin {
        NewSessionCause::New => created,
        other => format!("{created} ({}.)", other.phrase()),
    }
}

/// create_window naming a window that exists: what it runs, and where.
pub(crate) fn window_exists(name: &str, command: &str, path: &str) -> String {
    format!("Window {name} already exists, not created: it runs {command} in {path}.")
}

/// How to see whether create_window took effect, after tmux did not answer.
pub(crate) const LOOK_CREATED: &str = "list_windows shows whether it was created";

/// close_window naming no window.
pub(crate) fn nothing_to_close(name: &str) -> String {
    format!("No window {name}: nothing to close.")
}

/// close_window's answer: `left` says what outlives the window; `last`, the session ended.
pub(crate) fn window_closed(name: &str, left: &str, last: bool) -> String {
    if last {
        format!(
            "Window {name} closed.{left} It was your last window: a fresh main will be \
             there on your next call."
        )
    } else {
        format!("Window {name} closed.{left}")
    }
}

/// How many processes left running close_window's answer names.
pub(crate) const NAMED_LEFT: usize = 10;

/// Added to close_window's answer: the processes started from the window that outlive it,
/// `(pid, name)` in pid order, the first [`NAMED_LEFT`] named, with the `kill` that ends them;
/// nothing when none is left.
pub(crate) fn left_running(left: &[(u32, &str)]) -> String {
    if left.is_empty() {
        return String::new();
    }
    let shown = &left[..left.len().min(NAMED_LEFT)];
    let named: Vec<String> = shown
        .iter()
        .map(|(pid, name)| format!("{pid} ({name})"))
        .collect();
    let more = if left.len() > NAMED_LEFT {
        format!(" and {} more", left.len() - NAMED_LEFT)
    } else {
        String::new()
    };
    let pids: Vec<String> = shown.iter().map(|(pid, _)| pid.to_string()).collect();
    format!(
        " Still running, detached from it: {}{more}. They outlive the window: kill {} ends {}.",
        named.join(", "),
        pids.join(" "),
        if pids.len() == 1 { "it" } else { "them" }
    )
}

/// How to see whether close_window took effect, after tmux did not answer.
pub(crate) const LOOK_CLOSED: &str = "list_windows shows whether it is still there";

// ---- send_text and send_keys ----

/// send_text refusing a text with a control character (`described`, on `line`).
pub(crate) fn control_char(described: &str, line: usize) -> String {
    format!(
        "Nothing was sent: the text holds a control character, {described}, on line {line}. To \
         press keys such as Escape, C-c or C-d, use send_keys; to put content with control \
         characters in a file, use write_file."
    )
}

/// send_text with nothing to send.
pub(crate) const NOTHING_TO_SEND: &str = "Nothing was sent: the text is empty and enter is false.";

/// How to see whether a text arrived, after tmux did not answer.
pub(crate) fn look_text(window: &str) -> String {
    format!("read_window {window} shows whether the text arrived")
}

/// send_text's answer: `chars` characters pasted, then Enter if `enter`.
pub(crate) fn text_sent(window: &str, chars: usize, enter: bool) -> String {
    match (chars, enter) {
        (0, _) => format!("Pressed Enter in {window}."),
        (n, true) => format!("Pasted {n} characters into {window}, then pressed Enter."),
        (n, false) => format!("Pasted {n} characters into {window}, without Enter."),
    }
}

/// send_text's answer when the text was typed as keys (one line into a program): `chars`
/// characters, then Enter if `enter`.
pub(crate) fn text_typed(window: &str, chars: usize, enter: bool) -> String {
    let characters = if chars == 1 {
        "character"
    } else {
        "characters"
    };
    if enter {
        format!("Typed {chars} {characters} into {window}, then pressed Enter.")
    } else {
        format!("Typed {chars} {characters} into {window}, without Enter.")
    }
}

/// Said after a paste into `program` (not bash), which had bracketed paste on: it took the text
/// as one paste (vim inserts it as text in any mode), and how to type commands instead.
pub(crate) fn pasted_bracketed(program: &str) -> String {
    format!(
        "{program} had bracketed paste on, so it took the text as one paste, not as typed keys: \
         to type commands into it, send one line at a time (a single line without tab is typed \
         as keys) or press keys with send_keys."
    )
}

/// Said after text with new lines was pasted without Enter into `program`, whose line editor
/// keeps a paste on its line (bracketed paste on, not a full-screen program).
pub(crate) fn pasted_waits_on_line(program: &str) -> String {
    format!("The text waits on {program}'s line, new lines included, until Enter.")
}

/// send_keys given no key; `names` are the key names.
pub(crate) fn no_keys(names: &str) -> String {
    format!("Nothing was sent: keys is empty. Give key names, one per key: {names}.")
}

/// send_keys given an unknown key (`quoted`), key `position` (from 1) of `count`.
pub(crate) fn unknown_key(quoted: &str, position: usize, count: usize, names: &str) -> String {
    format!(
        "Nothing was sent: unknown key {quoted} (key {position} of {count}). Key names, one per \
         key: {names}. To type text, use send_text."
    )
}

/// How to see whether keys arrived, after tmux did not answer.
pub(crate) fn keys_arrived_hint(window: &str) -> String {
    format!("read_window {window} shows whether the keys arrived")
}

/// send_keys's answer; `pressed` as [`super::keys_pressed`] repeats them.
pub(crate) fn keys_sent(window: &str, pressed: &str) -> String {
    format!("Pressed in {window}: {pressed}.")
}

// ---- read_window ----

/// read_window refusing a screen over the read budget.
pub(crate) fn screen_over_budget(
    window: &str,
    bytes: usize,
    budget: impl std::fmt::Display,
) -> String {
    format!(
        "The screen of {window} takes {bytes} bytes, over the read budget of {budget}: it \
         can not be read. Close the window (close_window) and start over in a new one."
    )
}

// ---- wait_window ----

/// A wait whose window closed meanwhile.
pub(crate) fn closed_while_waiting(window: &str) -> String {
    format!("{window}: the window closed while waiting (its bash exited, or close_window).")
}

/// A wait the client cancelled.
pub(crate) const WAIT_CANCELLED: &str = "The wait was cancelled.";

/// Said before a finished command's rows when tmux had not read the prompt's mark within two
/// seconds.
pub(crate) const BEHIND: &str = "[tmux was still reading what the command printed 2s after it finished: \
     its last rows may be missing below; read_window shows them once tmux has read them]";

/// A wait answered by a prompt with no command run before it.
pub(crate) fn at_prompt(window: &str, age: &str) -> String {
    format!("{window}: bash is at its prompt ({age} ago), ready for input.")
}

/// A wait answered by a finished command, its exit as `status::wait_exit` words it.
pub(crate) fn finished_with(window: &str, age: &str, exit: &str) -> String {
    format!("{window}: the command finished {age} ago{exit}")
}

/// A wait answered by a finished command whose status is not reported: `why` says why
/// ([`super::STATUS_NOT_RECORDED`], [`super::STATUS_UNKNOWN`]).
pub(crate) fn finished_without_status(window: &str, age: &str, why: &str) -> String {
    format!("{window}: the command finished {age} ago. {why}")
}

/// A wait in a window whose hook never reported a prompt, with nothing sent.
pub(crate) fn no_prompt_recorded(window: &str) -> String {
    format!(
        "{window}: no prompt recorded: bash is still starting, or its startup files replace \
         PROMPT_COMMAND (changed since rat checked them at its start). Such a window loses \
         wait_window, the exit statuses and bracketed paste (multi-line text may run line by \
         line). If a startup file assigns PROMPT_COMMAND, make it add to it instead \
         (PROMPT_COMMAND=\"$PROMPT_COMMAND; ...\"), then use a new window."
    )
}

/// A wait that ran out with bash in the foreground and no prompt since the input, `since` ago.
pub(crate) fn nothing_finished(window: &str, since: &str) -> String {
    format!(
        "{window}: nothing finished since your last input, {since} ago: bash has shown no prompt \
         since. A bash script or builtin may still be running (a script shows as bash), a \
         text may wait on the command line (sent without Enter), or rat's hook was taken out \
         of PROMPT_COMMAND in this terminal (unset, it comes back after the next \
         command; assigned anew, as `source ~/.bashrc` may do, only a new window has it): \
         read_window shows which."
    )
}

/// How long a command runs, in a wait that ran out: since the last input.
pub(crate) fn since_input(since: &str) -> String {
    format!("{since} since your last input")
}

/// How long a command runs, in a wait that ran out: as long as the wait, no input known.
pub(crate) fn after_waiting(waited: &str) -> String {
    format!("after waiting {waited}")
}

/// A wait that ran out: `command` in the foreground, running `since`.
pub(crate) fn still_running(window: &str, since: &str, command: &str) -> String {
    format!("{window}: still running, {since}, {command} in the foreground.")
}

/// Added to a wait that ran out when nothing was displayed for `quiet`.
pub(crate) fn quiet_hint(quiet: &str) -> String {
    format!(
        " Nothing was displayed for {quiet}: normal for some commands; read_window shows whether it waits for input."
    )
}

// ---- the shell's own state: stopped jobs ----

/// A wait answered by a prompt after the command was stopped (C-z): job `number`, `name`.
pub(crate) fn stopped(window: &str, age: &str, number: u32, name: &str) -> String {
    format!(
        "{window}: the command was stopped {age} ago, not finished: it is job {number} \
         ({name}), stopped. `fg` resumes it in the foreground; `kill %{number}` ends it."
    )
}

/// Added to a finished command's answer when its status was 128 + a stop signal and bash's
/// current job, there before the command (`fg` then C-z), is stopped.
pub(crate) fn job_stopped(number: u32, name: &str) -> String {
    format!(
        " Job {number} ({name}) is stopped, not finished: `fg` resumes it in the foreground; \
         `kill %{number}` ends it."
    )
}

/// Added to a window's line when its last command was stopped (C-z) and still is.
pub(crate) fn line_stopped(number: u32, name: &str, age: &str) -> String {
    format!(
        ", last command stopped: job {number} ({name}), `fg` resumes it, `kill %{number}` \
         ends it ({age} ago)"
    )
}

// ---- the shell's own state: a shell that ended ----

/// How a window's shell ended, `age` ago: `ended 2m ago, exit status 3`.
pub(crate) fn shell_ended(age: &str, status: Option<i32>, signal: Option<&str>) -> String {
    match (status, signal) {
        (Some(status), _) => format!("ended {age} ago, exit status {status}"),
        (None, Some(signal)) => format!("ended {age} ago, killed by signal {signal}"),
        (None, None) => {
            format!("ended {age} ago, killed by a signal (this tmux does not tell which)")
        }
    }
}

/// The answer about a window whose shell ended (`how` from [`shell_ended`]): the window is
/// closed once this is reported.
pub(crate) fn window_ended(window: &str, how: &str) -> String {
    format!("{window}: its bash {how}: the window is closed now (create_window makes a new one).")
}

/// The line of list_windows of a window whose shell ended (`how` from [`shell_ended`]): the
/// window stays until a wait, an input or create_window of its name reports its end with its
/// rows.
pub(crate) fn line_ended(window: &str, how: &str) -> String {
    format!(
        "{window}: {how}; wait_window {window} shows the rows it printed since the last answer \
         and closes the window"
    )
}

/// An input to a window whose shell ended: nothing sent.
pub(crate) fn sent_to_ended(window: &str, how: &str) -> String {
    format!(
        "Nothing was sent: the bash of {window} {how}. The window is closed now; \
         create_window makes a new one."
    )
}

/// create_window naming a window whose shell ended: reported, then made anew.
pub(crate) fn created_after_end(created: &str, window: &str, how: &str) -> String {
    format!("The bash of the old {window} {how}. {created}")
}

// ---- the shell's own state: why no prompt came ----

/// A wait on a window whose command line holds a line typed without Enter (a text sent
/// without it, or keys such as Tab): nothing runs.
pub(crate) fn line_waits(window: &str) -> String {
    format!(
        "{window}: nothing runs: the line you typed waits on bash's command line, not run \
         (sent without Enter). send_keys Enter runs it; C-c drops it."
    )
}

/// A wait that ran out with bash's `read` builtin waiting for a line, `since` ago.
pub(crate) fn reads_line(window: &str, since: &str) -> String {
    format!(
        "{window}: waiting for input, {since} since your last input: bash's read builtin waits \
         for a line (as read -p does). read_window shows its question; send_text answers it."
    )
}

/// A wait that ran out at bash's continuation prompt (PS2), `since` ago.
pub(crate) fn continuation(window: &str, since: &str) -> String {
    format!(
        "{window}: nothing finished since your last input, {since} ago: bash waits for the \
         rest of the command at its continuation prompt (PS2: an open quote, a trailing \\, \
         an unfinished if or loop). Send the rest, or C-c to drop it."
    )
}

/// A wait that ran out after the last input assigned or unset PROMPT_COMMAND, `since` ago.
pub(crate) fn hook_taken_out(window: &str, since: &str) -> String {
    format!(
        "{window}: no prompt recorded since your last input, {since} ago: it assigned or unset \
         PROMPT_COMMAND, which took rat's hook out of this shell. The next command puts it back \
         if PROMPT_COMMAND is now empty or unset; assigned something else, only a new window \
         has it (add to PROMPT_COMMAND rather than replace it)."
    )
}

/// A wait answered by a bash started inside the window's shell, at its first prompt.
pub(crate) fn inner_bash_at_prompt(window: &str, pid: u32) -> String {
    format!(
        "{window}: a bash started inside this one (process {pid}) is at its prompt, ready for \
         input; waits tell its commands as the outer shell's."
    )
}

/// A wait that ran out with the window's shell replaced (`exec bash -l`) at its first prompt.
pub(crate) fn shell_replaced(window: &str, since: &str) -> String {
    format!(
        "{window}: the shell was replaced {since} ago (exec) and waits at its prompt: its first \
         prompt is not recorded, its commands' are."
    )
}

/// Added to a wait that ran out with `command` in the foreground, a program with prompts of
/// its own (su, ssh, a REPL).
pub(crate) fn prompts_inside(command: &str) -> String {
    format!(" Waits cannot see the prompts of what runs inside {command}; read_window shows them.")
}

/// Added to an answer about a program with prompts of its own (a REPL, su, ssh) still
/// running: the line its cursor is on, left out of the rows printed.
pub(crate) fn likely_prompt(line: &str) -> String {
    format!(" The line its cursor is on, likely its prompt: {line}")
}

/// Added to the line of a window whose foreground program shows prompts of its own.
pub(crate) const LINE_PROMPTS_INSIDE: &str =
    ", waits cannot see the prompts inside it (read_window shows them)";

// ---- a command's rows, from its marks (docs/design/output.md) ----

/// A command that printed nothing (since the last answer about it).
pub(crate) fn nothing_printed(since: bool) -> String {
    if since {
        "Nothing printed since the last answer.".to_string()
    } else {
        "Nothing printed.".to_string()
    }
}

/// The start of the header of a command's rows: how many (lines, wrapped rows joined), and
/// whether rows went past the history's limit before they could be reported.
pub(crate) fn rows_printed(total: usize, since: bool, gone: u64) -> String {
    let rows = if total == 1 { "row" } else { "rows" };
    if gone > 0 {
        let went = if gone == 1 { "row" } else { "rows" };
        return format!(
            "[its first {gone} {went} went past the history's {} rows before they could be told: \
             {total} {rows} left",
            crate::terminals::transcript::HISTORY_LIMIT
        );
    }
    let since = if since { " since the last answer" } else { "" };
    format!("[{total} {rows} printed{since}")
}

/// The rows of a command read from the screen when none of them is left there.
pub(crate) const ROWS_GONE: &str = "[Its rows are gone: scrolled out of the history or cleared]";

/// The start of the header of a command's rows read from the screen when its first rows are
/// no longer there.
pub(crate) fn first_rows_gone(total: usize) -> String {
    let rows = if total == 1 { "row" } else { "rows" };
    format!(
        "[its first rows are gone (scrolled out of the history, or cleared): {total} {rows} left"
    )
}

/// Added to the header when only the last rows are shown.
pub(crate) fn last_below(kept: usize) -> String {
    format!(", the last {kept} below")
}

/// Added to the header when one line longer than an answer holds is shown by its end.
pub(crate) const END_OF_LAST_BELOW: &str = ", the end of the last one below";

/// Added to the header when the rows take more than a read_window shows at once.
pub(crate) fn over_read_budget(all: usize, budget: &crate::result::ReadBudget) -> String {
    format!(
        "; all of them take {all} bytes, more than read_window shows at once (its read \
         budget, {budget}): send the command again with its output to a file, to read it in \
         parts"
    )
}

/// Added to the header: the read_window call reaching the first row.
pub(crate) fn reach_first(window: &str, scrollback: u64) -> String {
    if scrollback > 0 {
        format!(
            "; read_window {window} with scrollback_rows {scrollback} shows them from the first"
        )
    } else {
        format!("; read_window {window} shows them from the first")
    }
}

/// A command still running under a full-screen program (the alternate screen on).
pub(crate) const FULL_SCREEN_HOLDS: &str =
    "A full-screen program holds the screen: read_window shows it.";

/// Reported once, after the rows of a command that ended with the alternate screen still on.
pub(crate) const ALTERNATE_LEFT_ON: &str = "[It left full-screen mode on (a program killed in it, \
     or `tput smcup`): read_window shows that screen, not the prompt's, until `tput rmcup` leaves \
     it; the rows of later commands are told all the same]";

/// Before rows read from the screen: the command's marks were missing (bytes lost, stderr not
/// the terminal, a shell without rat's hook).
pub(crate) const ROWS_FROM_SCREEN: &str = "(rows read from the screen)";

/// A wait whose input's command ended before later inputs' commands: its own end, and that a
/// later input ran after it.
pub(crate) fn superseded(window: &str, exit: &str) -> String {
    format!(
        "{window}: the command finished{exit} A later input ran after it (another client's, or \
         typed ahead): wait_window {window} tells the last one."
    )
}
