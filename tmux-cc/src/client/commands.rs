//! Commands on the connection: written as lines, in one piece per call, and matched to their
//! replies in order (the protocol facts are in the crate's README, "Control client").

use tokio::sync::oneshot;
use tokio::time::timeout;

use super::Client;
use super::shared::{Job, PendingLine};
use crate::command::Command;
use crate::end::ConnectionEnd;
use crate::error::{Error, Result};
use crate::parse::Reply;

impl Client {
    /// Sends one command and returns its reply, `%error` included (`success` false).
    ///
    /// # Errors
    /// [`Error::Quote`] (a NUL byte in an argument), [`Error::Timeout`],
    /// [`Error::ConnectionEnded`].
    pub async fn reply(&self, cmd: &Command) -> Result<Reply> {
        let line = cmd.line()?;
        let mut replies = self
            .send_lines(line_with_lf(line), vec![1], cmd.name())
            .await?;
        Ok(replies.pop().expect("one reply per line"))
    }

    /// Sends one command and returns its output lines (each without its LF).
    ///
    /// # Errors
    /// [`Error::Command`] with tmux's message when it answers `%error`; as [`Client::reply`].
    pub async fn run(&self, cmd: &Command) -> Result<Vec<Vec<u8>>> {
        let reply = self.reply(cmd).await?;
        into_output(cmd.name(), reply)
    }

    /// Sends several commands as ONE unbroken write (their lines back to back, nothing of any
    /// other caller between them) and returns every reply, in order, `%error`s included. tmux
    /// runs each line whatever happened to the ones before.
    ///
    /// # Errors
    /// [`Error::Quote`] (nothing is sent), [`Error::Timeout`] (for the whole input),
    /// [`Error::ConnectionEnded`].
    pub async fn input(&self, cmds: &[Command]) -> Result<Vec<Reply>> {
        if cmds.is_empty() {
            return Ok(Vec::new());
        }
        let mut bytes = Vec::new();
        for cmd in cmds {
            bytes.extend_from_slice(&cmd.line()?);
            bytes.push(b'\n');
        }
        self.send_lines(bytes, vec![1; cmds.len()], cmds[0].name())
            .await
    }

    /// Sends `cmds` on ONE command line (`a ; b ; c`), which tmux runs all or nothing from the
    /// first failure on: a command that fails removes the ones after it on the line, which then
    /// never run, even when tmux was stopped and reads the line later. The replies of the
    /// commands that ran, in order: all of them, or fewer, the last one then the failure
    /// (`success` false).
    ///
    /// For what must not happen without what comes before it: a key pressed after a paste
    /// (the paste failing, the key would run what was typed on the line before).
    ///
    /// # Errors
    /// As [`Client::input`].
    pub async fn group(&self, cmds: &[Command]) -> Result<Vec<Reply>> {
        self.lines(&[], cmds).await
    }

    /// `before` as lines of their own, then `group` on one line (see [`Client::group`]), in
    /// one write: the replies of `before`, then those of the group's commands that ran.
    pub(crate) async fn lines(&self, before: &[Command], group: &[Command]) -> Result<Vec<Reply>> {
        let mut bytes = Vec::new();
        let mut expected = Vec::with_capacity(before.len() + 1);
        for cmd in before {
            bytes.extend_from_slice(&cmd.line()?);
            bytes.push(b'\n');
            expected.push(1);
        }
        for (i, cmd) in group.iter().enumerate() {
            if i > 0 {
                bytes.extend_from_slice(b" ; ");
            }
            bytes.extend_from_slice(&cmd.line()?);
        }
        if !group.is_empty() {
            bytes.push(b'\n');
            expected.push(group.len());
        }
        let Some(first) = before.first().or(group.first()) else {
            return Ok(Vec::new());
        };
        self.send_lines(bytes, expected, first.name()).await
    }

    /// [`Client::input`], then the output lines of each command.
    ///
    /// # Errors
    /// The first command answered with `%error` gives [`Error::Command`]; as
    /// [`Client::input`].
    pub async fn input_ok(&self, cmds: &[Command]) -> Result<Vec<Vec<Vec<u8>>>> {
        let replies = self.input(cmds).await?;
        cmds.iter()
            .zip(replies)
            .map(|(cmd, reply)| into_output(cmd.name(), reply))
            .collect()
    }

    /// Returns once tmux has written to the panes what the commands answered before this call
    /// gave them (a paste, keys): tmux answers such a command in the pass of its event loop that
    /// runs it, and writes the bytes to the pane's terminal as that pane becomes writable,
    /// which may come after the answer has left. One more command's round trip (a
    /// `display-message` printing nothing) is read in a later pass, after those writes: a
    /// program that looks at the terminal's side (what waits unread on it) once this returns
    /// sees the bytes. A pane whose terminal is full keeps the rest in tmux, behind the bytes
    /// already written.
    ///
    /// # Errors
    /// As [`Client::reply`].
    pub async fn written(&self) -> Result<()> {
        let cmd = Command::new("display-message").arg("-p").arg("");
        self.reply(&cmd).await.map(|_| ())
    }

    /// Sends one command line as given, for what the typed operations do not cover. The line
    /// must hold exactly ONE command (no `;` separator, no `%if`, not only a comment):
    /// replies are matched one per line, and a line giving none or several would misalign them
    /// until the connection ends. Prefer [`Client::reply`] with a [`Command`], which quotes.
    ///
    /// # Errors
    /// [`Error::Refused`] for an empty line or one holding LF or CR; as [`Client::reply`].
    pub async fn raw(&self, line: &[u8]) -> Result<Reply> {
        if line.iter().all(|b| *b == b' ' || *b == b'\t') {
            return Err(Error::Refused(
                "an empty command line would detach the control client",
            ));
        }
        if line.contains(&b'\n') || line.contains(&b'\r') {
            return Err(Error::Refused(
                "a raw command line may not hold LF or CR: send one command per line",
            ));
        }
        let name =
            String::from_utf8_lossy(line.split(|b| *b == b' ').next().unwrap_or(b"")).into_owned();
        let mut replies = self
            .send_lines(line_with_lf(line.to_vec()), vec![1], &name)
            .await?;
        Ok(replies.pop().expect("one reply per line"))
    }

    /// Writes `bytes`, lines whose commands number `expected` (one entry a line), and waits
    /// for every line's replies.
    async fn send_lines(
        &self,
        bytes: Vec<u8>,
        expected: Vec<usize>,
        label: &str,
    ) -> Result<Vec<Reply>> {
        if let Some(end) = self.inner.shared.ended() {
            return Err(Error::ConnectionEnded(end));
        }
        let count: usize = expected.iter().sum();
        let mut slots = Vec::with_capacity(expected.len());
        let mut receivers = Vec::with_capacity(expected.len());
        for n in expected {
            let (tx, rx) = oneshot::channel();
            slots.push(PendingLine::new(n, tx));
            receivers.push(rx);
        }
        if self.inner.jobs.send(Job::Write { bytes, slots }).is_err() {
            return Err(Error::ConnectionEnded(
                self.inner.shared.ended().unwrap_or(ConnectionEnd::Eof),
            ));
        }
        let shared = &self.inner.shared;
        let wait_all = async {
            let mut replies = Vec::with_capacity(count);
            for rx in receivers {
                match rx.await {
                    Ok(Ok(line)) => replies.extend(line),
                    Ok(Err(end)) => return Err(Error::ConnectionEnded(end)),
                    Err(_) => {
                        return Err(Error::ConnectionEnded(
                            shared.ended().unwrap_or(ConnectionEnd::Eof),
                        ));
                    }
                }
            }
            Ok(replies)
        };
        match timeout(self.timeout, wait_all).await {
            Ok(result) => result,
            Err(_) => Err(Error::Timeout {
                command: label.to_string(),
                after: self.timeout,
            }),
        }
    }
}

fn line_with_lf(mut line: Vec<u8>) -> Vec<u8> {
    line.push(b'\n');
    line
}

/// The output lines of a reply, or [`Error::Command`] for an `%error`.
pub(crate) fn into_output(name: &str, reply: Reply) -> Result<Vec<Vec<u8>>> {
    if reply.success {
        Ok(reply.lines)
    } else {
        Err(Error::Command {
            command: name.to_string(),
            message: String::from_utf8_lossy(&reply.lines.join(&b'\n')).into_owned(),
        })
    }
}
