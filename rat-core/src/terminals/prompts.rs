//! What the terminals' hooks told, pane by pane, and the inputs sent to each pane: the state
//! `wait_window` and `list_windows` read. One per tmux server (pane numbers start again with a
//! new server). See [`super::hook`] for the protocol and `docs/design/prompts.md` for why.
//!
//! Each input to a pane is numbered: before it is written to tmux, the pane's file says
//! `N N-1` (in flight); once tmux answered, `N N`. A prompt record covering `N` tells that
//! input `N` was read and what it ran finished. A pane is finished when its last prompt covers
//! its last input.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncBufReadExt;
use tokio::sync::watch;

use super::hook::{HookDir, Record};

/// The most a terminal's record line may hold; longer lines are not rat's and are dropped.
const MAX_RECORD: usize = 4096;

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
}

impl PaneState {
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

    /// Starts reading the hooks' FIFO, until this state is dropped. The FIFO is opened read and
    /// write: a writer never blocks opening it, and it never reads an end of file. Its pipe is
    /// enlarged to 1 MiB where the system allows, so that a stopped ratd (SIGSTOP) lets bash
    /// show some ten thousand prompts before a record would wait.
    pub(crate) fn start_reading(self: &Arc<Self>) -> std::io::Result<()> {
        let receiver = tokio::net::unix::pipe::OpenOptions::new()
            .read_write(true)
            .open_receiver(self.dir.prompts_path())?;
        {
            use std::os::fd::AsFd;
            let _ = nix::fcntl::fcntl(
                receiver.as_fd(),
                nix::fcntl::FcntlArg::F_SETPIPE_SZ(1 << 20),
            );
        }
        let prompts = Arc::downgrade(self);
        let stop = self.stop.clone();
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::with_capacity(64 * 1024, receiver);
            let mut line = Vec::new();
            loop {
                line.clear();
                let read = tokio::select! {
                    _ = stop.cancelled() => return,
                    read = reader.read_until(b'\n', &mut line) => read,
                };
                match read {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if line.len() > MAX_RECORD {
                    continue;
                }
                let text = String::from_utf8_lossy(&line);
                let Some(prompts) = prompts.upgrade() else {
                    return;
                };
                match Record::parse(text.trim_end_matches('\n')) {
                    Some(record) => prompts.record(record),
                    None => {
                        tracing::debug!(line = %text.trim_end(), "not a prompt record of rat's hook")
                    }
                }
            }
        });
        Ok(())
    }

    /// Takes a record in.
    pub(crate) fn record(&self, record: Record) {
        {
            let mut panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
            let pane = panes.entry(record.pane).or_default();
            // Records of one pane come in order; a record answering fewer inputs than one
            // already seen is from before it (never the case from one bash, kept safe).
            if pane
                .prompt
                .as_ref()
                .is_some_and(|p| p.covers > record.covers)
            {
                return;
            }
            pane.prompt = Some(record);
        }
        self.changed.send_modify(|n| *n += 1);
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

    /// Starts an input to `pane`: takes its turn (inputs of a pane go one at a time), numbers
    /// it, and writes `N N-1` to its file. The returned [`InputTurn`] ends it: answered
    /// ([`InputTurn::answered`]: `N N`), or left in flight when tmux did not answer.
    pub(crate) async fn start_input(self: &Arc<Self>, pane: u32) -> std::io::Result<InputTurn> {
        let lock = Arc::clone(
            self.locks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(pane)
                .or_default(),
        );
        let guard = lock.lock_owned().await;
        let (number, replied) = {
            let mut panes = self.panes.lock().unwrap_or_else(|e| e.into_inner());
            let state = panes.entry(pane).or_default();
            state.started += 1;
            state.input_time = Some(now_f64());
            (state.started, state.replied)
        };
        self.dir.write_inputs(pane, number, replied)?;
        self.changed.send_modify(|n| *n += 1);
        Ok(InputTurn {
            prompts: Arc::clone(self),
            pane,
            number,
            _guard: guard,
        })
    }
}

/// An input in flight to a pane (see [`Prompts::start_input`]).
pub(crate) struct InputTurn {
    prompts: Arc<Prompts>,
    pane: u32,
    number: u64,
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

impl InputTurn {
    /// tmux answered the input: its bytes are written to the pane.
    pub(crate) fn answered(self) -> std::io::Result<()> {
        {
            let mut panes = self.prompts.panes.lock().unwrap_or_else(|e| e.into_inner());
            let state = panes.entry(self.pane).or_default();
            state.replied = state.replied.max(self.number);
        }
        self.prompts
            .dir
            .write_inputs(self.pane, self.number, self.number)
    }

    /// tmux refused the input (nothing of it reached the pane): its number is taken back, so
    /// that the prompt already shown still answers the inputs sent.
    pub(crate) fn refused(self) -> std::io::Result<()> {
        let replied = {
            let mut panes = self.prompts.panes.lock().unwrap_or_else(|e| e.into_inner());
            let state = panes.entry(self.pane).or_default();
            if state.started == self.number {
                state.started -= 1;
            }
            state.replied = state.replied.min(state.started);
            state.replied
        };
        self.prompts
            .dir
            .write_inputs(self.pane, self.number - 1, replied)
    }
}

/// Now, Unix seconds with a fraction.
pub(crate) fn now_f64() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
