//! What the terminals' hooks reported, pane by pane, and the inputs sent to each pane: the state
//! `wait_window` and `list_windows` read. One per tmux server (pane numbers start again with a
//! new server). See [`super::hook`] for the protocol and `docs/design/prompts.md` for why.
//!
//! Each input to a pane is numbered: before it is written to tmux, the pane's file says
//! `N N-1` (in flight); once tmux answered, `N N`. A prompt record covering `N` shows that
//! input `N` was read and what it ran finished. A pane is finished when its last prompt covers
//! its last input.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;

use super::hook::{HookDir, Inputs, Record, variables};
use super::transcript::MarkId;

/// How many inputs sent at a prompt are remembered with that prompt's mark.
const INPUTS_AT_PROMPT: usize = 16;

/// The most a terminal's record may hold; longer files are not rat's and are dropped.
const MAX_RECORD: usize = 4096;

/// The inotify instance, for tokio's readiness.
struct Watch(nix::sys::inotify::Inotify);

impl std::os::fd::AsRawFd for Watch {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsFd;
        self.0.as_fd().as_raw_fd()
    }
}

/// One pane's inputs and last prompt.
#[derive(Debug, Default, Clone)]
pub(crate) struct PaneState {
    /// The number of the last input started (written, or about to be, to tmux).
    pub started: u64,
    /// The number of the last input tmux answered.
    pub replied: u64,
    /// When the last input was sent, Unix seconds with a fraction.
    pub input_time: Option<f64>,
    /// The last prompt recorded.
    pub prompt: Option<Record>,
    /// Where the last input's rows start, noted when it was written (see [`Mark`]).
    pub mark: Option<Mark>,
    /// Where the last answer about a command still running left its rows.
    pub shown: Option<AnsweredUpTo>,
    /// What an answer found printed before the prompt, on its row, by an input's command (see
    /// [`super::output::tail`]): the next input's echo row starts with it, before the prompt.
    pub tail: Option<(u64, String)>,
    /// The prompt the last finished answer found its command sent at.
    pub last_prompt: Option<String>,
    /// The command line bash's line editor holds, typed at a prompt by inputs sent without
    /// Enter: its lines, and the start of its first line. The input that ends it (Enter) has
    /// its rows start with it.
    pub open: Option<(usize, String)>,
    /// The last input was text assigning or unsetting `PROMPT_COMMAND`, which takes rat's
    /// entry out of that shell (see [`assigns_prompt_command`]).
    pub sets_prompt_command: bool,
    /// The process group leading the pane's terminal when the last input was sent: a bash
    /// leading it now that did not then was started by that input.
    pub foreground_at_input: Option<u32>,
    /// The last inputs sent at a prompt whose record was read, with that prompt's mark: the
    /// command such an input runs is the one its marks name (docs/design/output.md).
    pub at_prompt: std::collections::VecDeque<(u64, MarkId)>,
    /// The last input that could set a variable of the shell (or whose text rat did not
    /// read: keys), and the words of the inputs after it that no prompt answered yet: the
    /// hook lists the shell's secret-named variables only after such an input, or when one
    /// of those words names a function or alias (see [`super::hook::variables`]).
    pub assigns: u64,
    /// See [`PaneState::assigns`]: `(input, word)`.
    pub words: Vec<(u64, String)>,
}

impl PaneState {
    /// What the hook is to read: `started` and `replied` as given, `assigns` at least
    /// `assigns`.
    fn inputs(&self, started: u64, replied: u64, assigns: u64) -> Inputs {
        Inputs {
            started,
            replied,
            assigns: self.assigns.max(assigns),
            words: self.words.iter().map(|(_, w)| w.clone()).collect(),
        }
    }
}

/// What an input does to the command line at bash's prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineEdit {
    /// Text sent without Enter: typed on the line, not run.
    Types,
    /// Enter (after text, or as a key), C-c or C-d: the line ends.
    Ends,
    /// Other keys: the line as it was.
    Keeps,
}

/// Where an input's rows start: the pane's cursor read by tmux in the same write as the input,
/// just before it (docs/design/output.md). Rows are counted from the top of the history, as
/// it was then: `history_size + cursor_y`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    /// The input's number.
    pub input: u64,
    /// The cursor's row, from the top of the history.
    pub row: u64,
    /// The cursor's column: where the echo of text sent at the prompt starts.
    pub x: u64,
    /// The rows of history then (a later count below it shows rows taken out of the history).
    pub history: u64,
    /// A full-screen program showed its own screen then: what it printed went there.
    pub alternate: bool,
    /// Sent at bash's prompt (the input before it answered): the lines its echo takes on the
    /// screen, which are not the command's rows, and the start of its first line (to check that
    /// the row still holds it). `None` when a command was running: every row is its output.
    pub echo: Option<(usize, String)>,
    /// Sent while a command ran (or after an input no prompt answered): its first line (4096
    /// characters at most), which bash's line editor shows again after the prompt it reads it
    /// at; the rows up to that one are not this command's. `None` for keys, and for text sent
    /// at the prompt.
    pub typed: Option<String>,
    /// Sent while the input before it was not yet echoed: its echo (lines, start of the first
    /// line), drawn at this input's row once bash's line editor takes it, is not this input's.
    pub before: Option<(usize, String)>,
    /// The echo may be made twice: the input was written before bash's line editor was seen
    /// reading the terminal, so the terminal's own line discipline may echo it first.
    pub twice: bool,
    /// The length of `PS1` at the prompt the input was sent at ([`Record::ps1_len`]).
    pub ps1_len: Option<u64>,
}

/// Where the last answer about a still running command left its rows: the cursor's row then
/// (shown again when the cursor stood after text on it), counted as in [`Mark`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AnsweredUpTo {
    /// The input whose command was running.
    pub input: u64,
    /// The cursor's row, from the top of the history.
    pub row: u64,
    /// The rows of history then.
    pub history: u64,
    /// Text typed while a command ran, not yet seen where bash's line editor shows it again
    /// after a prompt ([`Mark::typed`]): the rows up to that line, in the next answer, are still
    /// not this input's. `None` once seen, or with no such text.
    pub typed: Option<String>,
    /// The prompt the command was sent at, as its row showed it before the echo (see
    /// [`super::output::prompt_of`]).
    pub prompt: Option<String>,
}

impl PaneState {
    /// The mark of the prompt input `input` was sent at, when it was sent at one.
    pub(crate) fn input_at(&self, input: u64) -> Option<MarkId> {
        self.at_prompt
            .iter()
            .find(|(n, _)| *n == input)
            .map(|(_, id)| *id)
    }

    /// The last prompt, when it answers the last input (or no input was ever sent).
    pub(crate) fn finished_prompt(&self) -> Option<&Record> {
        self.prompt.as_ref().filter(|p| p.covers >= self.started)
    }
}

/// The shared state of a server's panes.
#[derive(Debug)]
pub(crate) struct Prompts {
    dir: HookDir,
    panes: Mutex<HashMap<u32, PaneState>>,
    /// Per pane, what serialises its inputs (their numbers and the file must go in order).
    locks: Mutex<HashMap<u32, Arc<tokio::sync::Mutex<()>>>>,
    /// Bumped at each record: waiters look again.
    changed: watch::Sender<u64>,
    /// Ends the FIFO's reader, when this state is dropped.
    stop: tokio_util::sync::CancellationToken,
}

impl Drop for Prompts {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Prompts {
    /// A new state over a new hook directory.
    pub(crate) fn new(dir: HookDir) -> Arc<Prompts> {
        Arc::new(Prompts {
            dir,
            panes: Mutex::new(HashMap::new()),
            locks: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
            stop: tokio_util::sync::CancellationToken::new(),
        })
    }

    /// Starts watching the hooks' records (inotify on `out/`), until this state is dropped:
    /// a file closed after writing is read at once. A record read while bash writes the next
    /// one is incomplete (no final `E`) and dropped: that write's close is seen next.
    pub(crate) fn start_reading(self: &Arc<Self>) -> std::io::Result<()> {
        use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify};
        let inotify = Inotify::init(InitFlags::IN_NONBLOCK | InitFlags::IN_CLOEXEC)
            .map_err(std::io::Error::from)?;
        let out = self.dir.out_path();
        inotify
            .add_watch(
                &out,
                AddWatchFlags::IN_CLOSE_WRITE | AddWatchFlags::IN_MOVED_TO,
            )
            .map_err(std::io::Error::from)?;
        // Deprecated for wrappers that could close the fd while registered; Watch owns the
        // inotify instance for the AsyncFd's whole life (the safe alternative is unsafe).
        #[allow(deprecated)]
        let fd = tokio::io::unix::AsyncFd::new(Watch(inotify))?;
        let prompts = Arc::downgrade(self);
        let stop = self.stop.clone();
        tokio::spawn(async move {
            loop {
                let ready = tokio::select! {
                    _ = stop.cancelled() => return,
                    ready = fd.readable() => ready,
                };
                let Ok(mut guard) = ready else { return };
                let events = match guard.get_inner().0.read_events() {
                    Ok(events) => events,
                    Err(nix::errno::Errno::EAGAIN) => {
                        guard.clear_ready();
                        continue;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "reading the prompt hook's records failed");
                        return;
                    }
                };
                let Some(prompts) = prompts.upgrade() else {
                    return;
                };
                let overflow = events
                    .iter()
                    .any(|e| e.mask.contains(AddWatchFlags::IN_Q_OVERFLOW));
                let names: Vec<std::ffi::OsString> = if overflow {
                    std::fs::read_dir(&out)
                        .map(|d| d.flatten().map(|e| e.file_name()).collect())
                        .unwrap_or_default()
                } else {
                    events.into_iter().filter_map(|e| e.name).collect()
                };
                for name in names {
                    prompts.read_record(&out.join(name));
                }
            }
        });
        Ok(())
    }

    /// Reads one pane's record file.
    fn read_record(&self, path: &std::path::Path) {
        let Ok(bytes) = std::fs::read(path) else {
            return;
        };
        if bytes.len() > MAX_RECORD {
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        match Record::parse(text.trim_end_matches('\n')) {
            Some(record) => self.record(record),
            None => tracing::trace!(line = %text.trim_end(), "not a whole prompt record"),
        }
    }

    /// Takes a record in. A record whose hook gave up waiting for an input in flight (`seen`
    /// one more than `covers`) answers that input too when a command ran since a prompt that
    /// already answered every input before it: the bytes of that input are the only ones bash
    /// can have read since.
    pub(crate) fn record(&self, mut record: Record) {
        {
            let mut panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
            let pane = panes.entry(record.pane).or_default();
            if record.seen == record.covers + 1
                && record.ran
                && pane
                    .prompt
                    .as_ref()
                    .is_some_and(|p| p.covers == record.covers)
            {
                record.covers = record.seen;
            }
            // Records of one pane come in order; a record answering fewer inputs than one
            // already seen is from before it (never the case from one bash, kept safe).
            if pane
                .prompt
                .as_ref()
                .is_some_and(|p| p.covers > record.covers || *p == record)
            {
                return;
            }
            pane.words.retain(|(input, _)| *input > record.covers);
            pane.prompt = Some(record);
        }
        self.changed.send_modify(|n| *n += 1);
    }

    /// Where pane `pane`'s hook hands over the values of its secret-named variables.
    pub(crate) fn secrets_path(&self, pane: u32) -> std::path::PathBuf {
        self.dir.secrets_path(pane)
    }

    /// A receiver bumped at each record.
    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Pane `pane`'s state (the default when nothing was sent or recorded).
    pub(crate) fn pane(&self, pane: u32) -> PaneState {
        self.panes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&pane)
            .cloned()
            .unwrap_or_default()
    }

    /// Notes where the last answer about a running command left `pane`'s rows.
    pub(crate) fn note_answered_up_to(&self, pane: u32, shown: AnsweredUpTo) {
        let mut panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
        panes.entry(pane).or_default().shown = Some(shown);
    }

    /// Notes what an answer found printed before the prompt by input `input`'s command, and
    /// the prompt it found that command sent at.
    pub(crate) fn note_tail(
        &self,
        pane: u32,
        input: u64,
        tail: Option<String>,
        prompt: Option<String>,
    ) {
        let mut panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
        let state = panes.entry(pane).or_default();
        state.tail = tail.map(|t| (input, t));
        if prompt.is_some() {
            state.last_prompt = prompt;
        }
    }

    /// Forgets the prompt last seen in `pane`: `PS1` changed.
    pub(crate) fn forget_prompt(&self, pane: u32) {
        let mut panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
        let state = panes.entry(pane).or_default();
        state.last_prompt = None;
        state.tail = None;
    }

    /// Starts an input to `pane`: takes its turn (inputs of a pane go one at a time), numbers
    /// it, and writes `N N-1` to its file. The returned [`PendingInput`] ends it: answered
    /// ([`PendingInput::answered`]: `N N`), or left in flight when tmux did not answer.
    pub(crate) async fn start_input(self: &Arc<Self>, pane: u32) -> std::io::Result<PendingInput> {
        let lock = Arc::clone(
            self.locks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(pane)
                .or_default(),
        );
        let guard = lock.lock_owned().await;
        let (number, inputs) = {
            let mut panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
            let state = panes.entry(pane).or_default();
            // The last prompt answers every input before this one: bash reads it there.
            let at = state
                .prompt
                .as_ref()
                .filter(|p| p.covers >= state.started)
                .and_then(|p| {
                    Some(MarkId {
                        shell: p.shell?,
                        prompt: p.mark?,
                    })
                });
            state.started += 1;
            if let Some(at) = at {
                state.at_prompt.push_back((state.started, at));
                if state.at_prompt.len() > INPUTS_AT_PROMPT {
                    state.at_prompt.pop_front();
                }
            }
            state.input_time = Some(now_f64());
            state.sets_prompt_command = false;
            // Until its text is known, the input could set a variable.
            let inputs = state.inputs(state.started, state.replied, state.started);
            (state.started, inputs)
        };
        self.dir.write_inputs(pane, &inputs)?;
        self.changed.send_modify(|n| *n += 1);
        Ok(PendingInput {
            prompts: Arc::clone(self),
            pane,
            number,
            _guard: guard,
            editor_reads: false,
            tty_echoes: false,
            words: None,
        })
    }
}

/// An input in flight to a pane (see [`Prompts::start_input`]).
pub(crate) struct PendingInput {
    prompts: Arc<Prompts>,
    pane: u32,
    number: u64,
    _guard: tokio::sync::OwnedMutexGuard<()>,
    /// bash's line editor was seen reading the terminal before the input was written: its
    /// echo is the editor's alone (see [`Mark::twice`]).
    pub(crate) editor_reads: bool,
    /// The pane's terminal echoes what is typed (its `ECHO` flag), looked at when the input is
    /// sent while a command runs.
    pub(crate) tty_echoes: bool,
    /// The words of its text when it cannot set a variable of the shell (see
    /// [`PaneState::assigns`]); `None` when it could, or its text is not known (keys).
    words: Option<Vec<String>>,
}

impl PendingInput {
    /// The input's number.
    pub(crate) fn number(&self) -> u64 {
        self.number
    }

    /// The pane the input goes to.
    pub(crate) fn pane(&self) -> u32 {
        self.pane
    }

    /// Whether the input is sent at a prompt whose record was read (see
    /// [`PaneState::input_at`]).
    pub(crate) fn at_prompt(&self) -> bool {
        self.prompts.pane(self.pane).input_at(self.number).is_some()
    }

    /// Notes where this input's rows start: the cursor's `row` from the top of the `history`,
    /// read just before the input was written; `echo` the lines of its echo and the start of
    /// its first line, kept only when the input before it had been answered (bash at its
    /// prompt, echoing the line it reads); `whole` its first line, kept otherwise (text typed
    /// ahead, which bash's line editor shows again after a prompt); `alternate`: a full-screen
    /// program showed its screen.
    pub(crate) fn mark(
        &self,
        (row, x): (u64, u64),
        history: u64,
        alternate: bool,
        echo: (usize, String),
        whole: String,
        edit: LineEdit,
    ) {
        let mut panes = self.prompts.panes.lock().unwrap_or_else(|e| e.into_inner());
        let state = panes.entry(self.pane).or_default();
        let at_prompt = state
            .prompt
            .as_ref()
            .is_some_and(|p| p.covers + 1 >= self.number);
        // The input before, sent at the prompt, and the cursor still on the row of its own mark:
        // its echo is drawn there, or still to come.
        let before = state
            .mark
            .as_ref()
            .filter(|m| {
                !at_prompt
                    && m.input + 1 == self.number
                    && (m.row, m.history, m.alternate) == (row, history, alternate)
            })
            .and_then(|m| m.echo.clone());
        // Inputs typed at the prompt without Enter, the line this input ends.
        let open = state.open.take();
        let before = before.or(match edit {
            LineEdit::Ends => open.clone(),
            _ => None,
        });
        state.open = match edit {
            LineEdit::Types if at_prompt || open.is_some() => Some(match open {
                Some((lines, first)) => (lines + echo.0 - 1, first),
                None => echo.clone(),
            }),
            // Keys typed at the prompt: the line starts on the prompt's row (its text unknown).
            LineEdit::Keeps if at_prompt && open.is_none() => Some((1, String::new())),
            LineEdit::Keeps => open,
            _ => None,
        };
        state.mark = Some(Mark {
            input: self.number,
            row,
            x,
            history,
            alternate,
            typed: (!at_prompt && !whole.is_empty()).then_some(whole),
            echo: at_prompt.then_some(echo),
            before,
            twice: !self.editor_reads,
            ps1_len: state.prompt.as_ref().and_then(|p| p.ps1_len),
        });
    }

    /// Notes that this input is text that assigns or unsets `PROMPT_COMMAND` (see
    /// [`assigns_prompt_command`]).
    pub(crate) fn note_text(&mut self, text: &str) {
        self.words = super::hook::variables::words_to_check(text);
        let mut panes = self.prompts.panes.lock().unwrap_or_else(|e| e.into_inner());
        panes.entry(self.pane).or_default().sets_prompt_command = assigns_prompt_command(text);
    }

    /// Notes the process group leading the pane's terminal as the input is sent (see
    /// [`PaneState::foreground_at_input`]).
    pub(crate) fn note_foreground(&self, group: Option<u32>) {
        let mut panes = self.prompts.panes.lock().unwrap_or_else(|e| e.into_inner());
        panes.entry(self.pane).or_default().foreground_at_input = group;
    }

    /// tmux answered the input: its bytes are written to the pane.
    pub(crate) fn answered(self) -> std::io::Result<()> {
        let inputs = {
            let mut panes = self.prompts.panes.lock().unwrap_or_else(|e| e.into_inner());
            let state = panes.entry(self.pane).or_default();
            state.replied = state.replied.max(self.number);
            match self.words {
                Some(words) if state.words.len() + words.len() <= variables::MAX_WORDS => state
                    .words
                    .extend(words.into_iter().map(|word| (self.number, word))),
                // Too many words waiting: one listing costs less than checking them all.
                _ => {
                    state.assigns = state.assigns.max(self.number);
                    state.words.clear();
                }
            }
            state.inputs(self.number, self.number, 0)
        };
        self.prompts.dir.write_inputs(self.pane, &inputs)
    }

    /// tmux refused the input (nothing of it reached the pane): its number is taken back, so
    /// that the prompt already shown still answers the inputs sent.
    pub(crate) fn refused(self) -> std::io::Result<()> {
        let inputs = {
            let mut panes = self.prompts.panes.lock().unwrap_or_else(|e| e.into_inner());
            let state = panes.entry(self.pane).or_default();
            if state.started == self.number {
                state.started -= 1;
            }
            state.replied = state.replied.min(state.started);
            state.inputs(self.number - 1, state.replied, 0)
        };
        self.prompts.dir.write_inputs(self.pane, &inputs)
    }
}

/// Whether `text` assigns `PROMPT_COMMAND` anew (`PROMPT_COMMAND=...`, not `+=`) or unsets it:
/// rat's entry is then out of that shell until the next command (empty or unset) or for good
/// (assigned something else).
pub(crate) fn assigns_prompt_command(text: &str) -> bool {
    text.match_indices("PROMPT_COMMAND").any(|(i, _)| {
        let before = text[..i].trim_end();
        let after = &text[i + "PROMPT_COMMAND".len()..];
        let word_start = text[..i]
            .chars()
            .last()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        word_start
            && (after.starts_with('=')
                || after.starts_with("[0]=")
                || ((before.ends_with("unset") || before.ends_with("unset -v"))
                    && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')))
    })
}

/// Now, Unix seconds with a fraction.
pub(crate) fn now_f64() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests;
