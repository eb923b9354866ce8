//! Captures: a pane's rows as bytes.

use crate::client::Client;
use crate::command::Command;
use crate::error::Result;

/// `capture-pane -p`: what to capture. The default is the visible screen, rows as displayed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// `-J`: join wrapped rows (and keep trailing spaces, as tmux does with `-J`).
    pub join: bool,
    /// `-S -N`: also this many history rows above the screen.
    pub history: Option<u32>,
    /// `-a`: tmux's "alternate screen" capture: the screen NOT shown, i.e. the normal screen
    /// saved while a full-screen program runs (an error when there is none; with `-q` in
    /// tmux, one empty row). To read what a full-screen program shows, capture without it.
    pub alternate: bool,
    /// `-e`: keep text and background attributes as escape sequences.
    pub escapes: bool,
    /// `-N`: keep trailing spaces on each row.
    pub trailing_spaces: bool,
}

impl Client {
    /// `capture-pane -p -t TARGET [-J] [-S -N] [-a] [-e] [-N]`: the rows as bytes, each ended
    /// by LF (exactly what a forked `tmux capture-pane -p` prints).
    ///
    /// # Errors
    /// [`Error::Command`](crate::Error::Command) (e.g. `can't find pane`, `no alternate screen`), and the
    /// connection's errors.
    pub async fn capture(&self, target: &str, capture: &Capture) -> Result<Vec<u8>> {
        let cmd = Command::new("capture-pane")
            .args(["-p", "-t", target])
            .flag("-J", capture.join)
            .opt("-S", capture.history.map(|n| format!("-{n}")))
            .flag("-a", capture.alternate)
            .flag("-e", capture.escapes)
            .flag("-N", capture.trailing_spaces);
        let lines = self.run(&cmd).await?;
        let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
        for line in lines {
            out.extend_from_slice(&line);
            out.push(b'\n');
        }
        Ok(out)
    }
}
