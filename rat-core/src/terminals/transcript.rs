//! A window's transcript: what each command printed, taken from the marks rat's hook prints
//! around it (docs/design/output.md), not from positions on tmux's screen.
//!
//! Sans-IO: the pane's bytes go in as tmux delivers them ([`Transcript::feed`], marks
//! included), with word of bytes lost on the way ([`Transcript::lost`]); out come, for a
//! command named by the prompt it was typed at, the rows it printed that were not reported yet
//! ([`Transcript::report`]). No tmux, no clock, no I/O: the tools do that around it.
//!
//! - A command's output is the bytes between its output mark (OSC 133 C, printed by `PS0`
//!   when bash starts it) and its end mark (OSC 133 D, printed by the hook at the next
//!   prompt), rendered by a terminal emulator at the pane's width from an empty screen.
//!   Rows it erased itself (`\r` progress, cursor-up redraws, `clear`) are not its rows; a
//!   full-screen program's alternate screen is not either.
//! - Marks carry the shell's process id: a shell started inside another has its own
//!   commands, framed inside the outer shell's command that started it.
//! - A command whose marks are not all there (bytes lost while it ran, stderr not the
//!   terminal so no output mark, stdout not the terminal so no end mark) is reported as
//!   unframed: its rows are to be read from the screen, as before marks.

// Public with the feature `test-support`, for the differential test
// (rat-core/tests/terminals/transcript.rs); crate-private otherwise.
#![cfg_attr(
    not(feature = "test-support"),
    allow(unreachable_pub, unused_imports, dead_code)
)]

mod echo;
mod marks;
mod paste_mode;
mod render;
mod source;
mod sync_mark;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};

use echo::{Echoes, Fed};
pub use marks::{Mark, MarkId};
use marks::{MarkScanner, Piece};
pub use paste_mode::PasteMode;
pub use render::{Lines, Render};
pub use source::Follow;

/// What readline prints once it has read a line (bracketed paste off again).
const LINE_READ: &[u8] = b"\x1b[?2004l";

/// How many ended commands are kept until reported (the oldest goes first).
const KEPT: usize = 64;

/// The most rows the ended commands not yet reported keep together (the oldest goes first): a
/// pasted script's commands, each reported to the wait of its input.
const KEPT_ROWS: usize = 2 * HISTORY_LIMIT;

/// The rows kept of a command's history, as tmux's `history-limit` of rat's windows.
pub const HISTORY_LIMIT: usize = 10_000;

/// One command, from its output mark (or its end mark alone).
struct Command {
    id: MarkId,
    /// Its rendering; `None` when its output mark was not seen.
    render: Option<Render>,
    /// Its end: `Some(status)` once its end mark came (`status` `None` when the mark gave
    /// none).
    end: Option<Option<i32>>,
    /// Bytes were lost while it ran, or a mark of its is missing.
    unframed: bool,
    /// It left the alternate screen on (a full-screen program that ended without leaving
    /// it): not yet reported.
    alternate_left_on: bool,
    /// A line editor finished reading a line since its output mark (`ESC[?2004l`, readline
    /// leaving bracketed paste): an output mark of the same prompt after it starts another
    /// command line, not the next command of the same line.
    line_read: bool,
}

/// What a command printed and how it ended, as far as its marks show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report {
    /// Its marks framed it: the rows not reported before.
    Framed {
        /// The rows, as lines.
        lines: Lines,
        /// `Some(status)` once it ended (the status its end mark carries).
        ended: Option<Option<i32>>,
        /// A full-screen program holds the screen now (the command still runs).
        full_screen: bool,
        /// It ended with the alternate screen still on: reported once.
        alternate_left_on: bool,
    },
    /// Its marks do not frame it (lost bytes, stderr or stdout not the terminal): its rows are
    /// to be read from the screen. `Some(status)` once its end mark came.
    Unframed {
        /// Its end, when its end mark came.
        ended: Option<Option<i32>>,
    },
}

/// A window's transcript (see the module's doc).
pub struct Transcript {
    width: u16,
    height: u16,
    scanner: MarkScanner,
    /// Commands whose output mark came and whose end did not, the innermost shell's last.
    open: Vec<Command>,
    /// Commands ended, not yet reported in full, oldest first.
    ended: VecDeque<Command>,
    /// The last prompt's mark.
    prompt: Option<MarkId>,
    /// Each shell's last prompt seen.
    prompts: HashMap<u32, u64>,
    /// The ended commands reported in full, newest last (a few).
    reported: VecDeque<MarkId>,
    /// The echoes of inputs typed while a command runs, left out of its rows.
    echoes: Echoes,
    /// The pane's bracketed-paste mode, as its programs set it.
    paste: PasteMode,
    /// The command whose output or end mark came last.
    latest: Option<MarkId>,
    /// The ended command reported last in full, kept for read_window's `output_rows`.
    last_reported: Option<Command>,
}

/// Every row the transcript keeps of a window's last command (or the one running), numbered
/// as its answers number them: what read_window's `output_rows` reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Numbered {
    /// Its lines, from the one numbered `first` (1 unless the first ones went past the
    /// history's limit).
    Rows {
        /// The number of the first line.
        first: u64,
        /// The lines, wrapped rows joined.
        lines: Vec<String>,
        /// It ended.
        ended: bool,
    },
    /// It runs a full-screen program, which holds the screen.
    FullScreen,
    /// Its marks do not frame it: its rows are not known from them.
    Unframed,
}

impl Transcript {
    /// The transcript of a pane of `width` columns and `height` rows, from now on.
    pub fn new(width: u16, height: u16) -> Transcript {
        Transcript {
            width,
            height,
            scanner: MarkScanner::default(),
            open: Vec::new(),
            ended: VecDeque::new(),
            prompt: None,
            prompts: HashMap::new(),
            reported: VecDeque::new(),
            echoes: Echoes::default(),
            paste: PasteMode::default(),
            latest: None,
            last_reported: None,
        }
    }

    /// The pane's new size: commands started after are rendered at it.
    pub fn resize(&mut self, width: u16, height: u16) {
        self.width = width;
        self.height = height;
    }

    /// Whether the pane's program asked for bracketed paste, as the bytes fed so far show
    /// ([`PasteMode::bracketed`]): `None` when none of them showed it yet, or bytes were lost.
    pub fn bracketed_paste(&self) -> Option<bool> {
        self.paste.bracketed()
    }

    /// The last prompt's mark: the prompt a command typed now is typed at.
    pub fn prompt(&self) -> Option<MarkId> {
        self.prompt
    }

    /// The pane's output, following what was fed before.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.paste.feed(bytes);
        let mut scanner = std::mem::take(&mut self.scanner);
        scanner.feed(bytes, &mut |piece| self.piece(piece));
        self.scanner = scanner;
    }

    /// An input is about to be typed while a command runs: `echo`, the terminal's echo of it
    /// (new lines as CR LF), is left out of the command's rows where it starts a row, and
    /// after text on the row too when `sure` (the terminal's `ECHO` seen on: a program reading
    /// lines, not a line editor of its own). For text typed while no command runs yet (its
    /// output mark still on the way), too; what is expected goes at the next end or prompt
    /// mark.
    pub fn typed(&mut self, echo: Vec<u8>, sure: bool) {
        self.echoes.expect(echo, sure);
    }

    /// Bytes were lost between what was fed and what comes next (a paused stream): every
    /// command running is unframed.
    pub fn lost(&mut self) {
        self.paste.lost();
        let mut scanner = std::mem::take(&mut self.scanner);
        scanner.flush(&mut |piece| self.piece(piece));
        self.scanner = scanner;
        for command in &mut self.open {
            command.unframed = true;
            command.render = None;
        }
    }

    fn piece(&mut self, piece: Piece<'_>) {
        match piece {
            Piece::Bytes(bytes) => {
                if let Some(command) = self.open.last_mut()
                    && memchr::memmem::find(bytes, LINE_READ).is_some()
                {
                    command.line_read = true;
                }
                let open = &mut self.open;
                self.echoes.filter(bytes, &mut |fed| feed(open, fed));
            }
            Piece::Erased { history } => {
                let open = &mut self.open;
                self.echoes.release(&mut |fed| feed(open, fed));
                for command in &mut self.open {
                    if let Some(render) = &mut command.render {
                        render.erased(history);
                    }
                }
            }
            Piece::Mark(mark) => self.mark(mark),
        }
    }

    fn mark(&mut self, mark: Mark) {
        // A mark of a shell started inside an open command (`bash` typed in a window), after
        // that shell's first prompt: what the open command printed until now is that shell's
        // prompts and its commands' rows, each reported by the answers about those commands;
        // the open command's own rows start here (`exit` typed in it, bash's `exit` after it).
        // Its prompt line is not the open command's either, until it runs a command.
        let (Mark::Prompt(id) | Mark::Output(id) | Mark::End(id, _)) = mark;
        let started = self.prompts.contains_key(&id.shell);
        for command in self.open.iter_mut().filter(|c| c.id.shell != id.shell) {
            if let Some(render) = &mut command.render {
                if started {
                    render.skip_to_cursor();
                }
                if matches!(mark, Mark::Prompt(_)) {
                    render.hold_from_cursor();
                }
            }
        }
        // The command an input was typed into ended: its echo, if any is still to come, is the
        // line editor's, outside any command's frame. (An output mark keeps them: text typed
        // just after a command line was read is echoed by the terminal in that command's frame.)
        if !matches!(mark, Mark::Output(_)) {
            let open = &mut self.open;
            self.echoes.forget(&mut |fed| feed(open, fed));
        }
        match mark {
            // bash prints PS0 before each command of a line: a line of several (a pasted
            // script) is one command, from its first output mark to its end mark.
            Mark::Output(id) if self.open.last().is_some_and(|c| c.id == id && !c.line_read) => {}
            Mark::Output(id) => {
                // A command of this shell still open lost its end mark (stdout not the
                // terminal).
                self.close_before(id, true);
                self.latest = Some(id);
                self.open.push(Command {
                    id,
                    render: Some(Render::new(self.width, self.height, HISTORY_LIMIT)),
                    end: None,
                    unframed: false,
                    alternate_left_on: false,
                    line_read: false,
                });
            }
            Mark::End(id, status) => {
                self.close_before(id, false);
                if let Some(i) = self.open.iter().rposition(|c| c.id == id) {
                    let mut command = self.open.remove(i);
                    self.latest = Some(id);
                    command.end = Some(status);
                    if let Some(render) = command.render.as_mut().filter(|r| r.alternate()) {
                        render.leave_alternate();
                        command.alternate_left_on = true;
                    }
                    self.keep(command);
                } else if status.is_some() {
                    // A command ran without its output mark (stderr not the terminal).
                    self.latest = Some(id);
                    self.keep(Command {
                        id,
                        render: None,
                        end: Some(status),
                        unframed: true,
                        alternate_left_on: false,
                        line_read: false,
                    });
                }
            }
            Mark::Prompt(id) => {
                self.close_before(id, true);
                self.prompt = Some(id);
                if self.prompts.len() >= KEPT && !self.prompts.contains_key(&id.shell) {
                    self.prompts.clear();
                }
                self.prompts.insert(id.shell, id.prompt);
            }
        }
    }

    /// Ends, unframed, the open commands of `id`'s shell typed before prompt `id.prompt` (or
    /// at it too, when `at_too`): their end mark never came.
    fn close_before(&mut self, id: MarkId, at_too: bool) {
        let mut i = 0;
        while i < self.open.len() {
            let c = &self.open[i];
            if c.id.shell == id.shell
                && (c.id.prompt < id.prompt || (at_too && c.id.prompt == id.prompt))
            {
                let mut command = self.open.remove(i);
                command.unframed = true;
                command.render = None;
                self.keep(command);
            } else {
                i += 1;
            }
        }
    }

    fn keep(&mut self, command: Command) {
        self.ended.retain(|c| c.id != command.id);
        self.ended.push_back(command);
        let rows = |c: &Command| c.render.as_ref().map_or(0, Render::rows_kept);
        let mut kept: usize = self.ended.iter().map(rows).sum();
        while self.ended.len() > KEPT || (kept > KEPT_ROWS && self.ended.len() > 1) {
            if let Some(c) = self.ended.pop_front() {
                kept -= rows(&c);
            }
        }
    }

    /// The command typed at prompt `id`, when its output or end mark came: the rows it printed
    /// not reported before, which are reported now. An ended command once reported in full is forgotten.
    pub fn report(&mut self, id: MarkId) -> Option<Report> {
        if let Some(command) = self.open.iter_mut().rev().find(|c| c.id == id) {
            return Some(take_report(command));
        }
        let i = self.ended.iter().position(|c| c.id == id)?;
        let report = take_report(&mut self.ended[i]);
        self.last_reported = self.ended.remove(i);
        self.reported.push_back(id);
        if self.reported.len() > KEPT {
            self.reported.pop_front();
        }
        Some(report)
    }

    /// Whether prompt `id` (or a later one of its shell) was seen: every byte its shell
    /// printed before it was fed.
    pub fn seen_prompt(&self, id: MarkId) -> bool {
        self.prompts.get(&id.shell).is_some_and(|&k| k >= id.prompt)
    }

    /// The command running in the innermost shell, when its output mark came.
    pub fn running(&self) -> Option<MarkId> {
        self.open.last().map(|c| c.id)
    }

    /// The window's current command: the one running in the innermost shell, else the one
    /// whose output or end mark came last. read_window's `output_rows` reads its rows.
    pub fn current(&self) -> Option<MarkId> {
        self.open.last().map(|c| c.id).or(self.latest)
    }

    /// Every row kept of the current command ([`Transcript::current`]), reported or not; `None`
    /// when no command's mark came, or the command is no longer kept.
    pub fn numbered(&self) -> Option<Numbered> {
        let id = self.current()?;
        let command = self
            .open
            .iter()
            .rev()
            .chain(self.ended.iter().rev())
            .chain(self.last_reported.iter())
            .find(|c| c.id == id)?;
        Some(match (&command.render, command.unframed) {
            (Some(render), false) if command.end.is_none() && render.alternate() => {
                Numbered::FullScreen
            }
            (Some(render), false) => {
                let (first, lines) = render.numbered();
                Numbered::Rows {
                    first,
                    lines,
                    ended: command.end.is_some(),
                }
            }
            _ => Numbered::Unframed,
        })
    }

    /// Whether command `id` ended and was reported in full already (forgotten since).
    pub fn was_reported(&self, id: MarkId) -> bool {
        self.reported.contains(&id)
    }

    /// The last command of shell `shell` whose output or end mark came, newest first: the
    /// open one, else the last ended.
    pub fn last_command(&self, shell: u32) -> Option<MarkId> {
        self.open
            .iter()
            .rev()
            .chain(self.ended.iter().rev())
            .find(|c| c.id.shell == shell)
            .map(|c| c.id)
    }
}

/// Feeds what came to the rendering of every command open. The terminal's echo of text
/// typed is left out where it starts a row; after text on the row (a question, `read -p`),
/// when the terminal's `ECHO` was seen on, its final new line stays (the answer's row ends
/// there).
fn feed(open: &mut [Command], fed: Fed<'_>) {
    let bytes = match fed {
        Fed::Bytes(bytes) => bytes,
        Fed::Echo(echo, sure) => {
            let at_start = open
                .last()
                .and_then(|c| c.render.as_ref())
                .is_none_or(Render::at_row_start);
            if at_start {
                return;
            }
            if !sure {
                // After text on the row with `ECHO` not seen on: a program's own display of
                // the line it read (a REPL's line editor after its prompt), its output.
                echo
            } else if echo.ends_with(b"\r\n") {
                b"\r\n"
            } else {
                return;
            }
        }
    };
    for command in open {
        if let Some(render) = &mut command.render {
            render.feed(bytes);
        }
    }
}

/// What `command` printed not reported before, reported now.
fn take_report(command: &mut Command) -> Report {
    let ended = command.end;
    match (&mut command.render, command.unframed) {
        (Some(render), false) => {
            let alternate_left_on = std::mem::take(&mut command.alternate_left_on);
            // Under a full-screen program, its rows so far are not reported: they are reported after.
            let full_screen = ended.is_none() && render.alternate();
            Report::Framed {
                full_screen,
                lines: render.lines(!full_screen, ended.is_some()),
                ended,
                alternate_left_on,
            }
        }
        _ => Report::Unframed { ended },
    }
}

/// `bytes` (what a command printed, as the terminal got them) rendered as the transcript
/// renders a command's output: from an empty screen of `width` x `height`, the alternate
/// screen left at the end. The expected rows of the differential test.
pub fn render(width: u16, height: u16, bytes: &[u8]) -> Lines {
    let mut render = Render::new(width, height, HISTORY_LIMIT);
    let mut scanner = MarkScanner::default();
    let mut piece = |piece: Piece<'_>| match piece {
        Piece::Bytes(bytes) => render.feed(bytes),
        Piece::Erased { history } => render.erased(history),
        Piece::Mark(_) => {}
    };
    scanner.feed(bytes, &mut piece);
    scanner.flush(&mut piece);
    if render.alternate() {
        render.leave_alternate();
    }
    render.lines(true, true)
}
