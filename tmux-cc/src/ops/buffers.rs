//! Buffers and pastes: data through private files, never a command line; keys.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::client::{Client, into_output};
use crate::command::Command;
use crate::error::{Error, Result};
use crate::parse::Reply;

use super::{leave_modes, send_keys};

pub(super) fn check_buffer_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(Error::Refused(
            "a buffer name is ASCII letters, digits, '_', '-' or '.'",
        ))
    }
}

/// Removes a file when dropped (a paste's data never outlives the paste).
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn write_private_file(path: &Path, data: &[u8]) -> Result<RemoveOnDrop> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(format!("creating {}", path.display()), e))?;
    let guard = RemoveOnDrop(path.to_path_buf());
    file.write_all(data)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    Ok(guard)
}

fn buffer_size_query(name: &str) -> Command {
    Command::new("list-buffers").args([
        "-F",
        "#{buffer_size}",
        "-f",
        &format!("#{{==:#{{buffer_name}},{name}}}"),
    ])
}

impl Client {
    /// Loads `data` (any bytes, any size) into buffer `name` and checks tmux holds all of it:
    /// the data goes through a private file (0600 in the client's 0700 directory, removed
    /// before this returns), never through a command line (which tmux would parse slowly and
    /// keep in its message log). `delete-buffer`, `load-buffer -b NAME -- FILE`, then
    /// `list-buffers` for its size, in one input (3.3a: `load-buffer`'s `%end` comes before the
    /// load is done; the next command waits for it).
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad buffer name or empty data (tmux drops an empty buffer);
    /// [`Error::Command`] for `load-buffer` when the
    /// buffer is missing or its size differs (tmux's stray message as the message when there
    /// is one); [`Error::Io`] for the file; the connection's errors.
    pub async fn load_buffer(&self, name: &str, data: &[u8]) -> Result<()> {
        check_buffer_name(name)?;
        if data.is_empty() {
            return Err(Error::Refused(
                "tmux keeps no empty buffer: there is nothing to load",
            ));
        }
        let path = self.private_dir().join(format!("load-{}", self.next_id()));
        let _file = write_private_file(&path, data)?;
        let replies = self
            .input(&[
                Command::new("delete-buffer").args(["-b", name]),
                Command::new("load-buffer")
                    .args(["-b", name, "--"])
                    .arg(path.as_os_str().as_bytes()),
                buffer_size_query(name),
            ])
            .await?;
        let [_, load, size] = <[Reply; 3]>::try_from(replies).expect("three commands");
        into_output("load-buffer", load)?;
        self.check_buffer_size(name, size, data.len() as u64, "load-buffer")
    }

    fn check_buffer_size(&self, name: &str, reply: Reply, want: u64, command: &str) -> Result<()> {
        let lines = into_output("list-buffers", reply)?;
        let got: Option<u64> = match &lines[..] {
            [line] => std::str::from_utf8(line).ok().and_then(|s| s.parse().ok()),
            _ => None,
        };
        if got == Some(want) {
            return Ok(());
        }
        let stray = self
            .last_stray_line()
            .map(|l| String::from_utf8_lossy(&l).into_owned());
        Err(Error::Command {
            command: command.to_string(),
            message: match got {
                None => format!("buffer {name} does not exist after {command}"),
                Some(got) => format!("buffer {name} holds {got} bytes, not {want}"),
            } + &stray
                .map(|s| format!(" (tmux printed: {s})"))
                .unwrap_or_default(),
        })
    }

    /// The bytes of buffer `name`, exactly: `save-buffer -b NAME -- FILE` to a private file
    /// read and removed here, checked against `#{buffer_size}`.
    ///
    /// # Errors
    /// [`Error::Refused`] for a bad buffer name; [`Error::Command`] (e.g. `no buffer NAME`);
    /// [`Error::Io`]; the connection's errors.
    pub async fn save_buffer(&self, name: &str) -> Result<Vec<u8>> {
        check_buffer_name(name)?;
        let path = self.private_dir().join(format!("save-{}", self.next_id()));
        let _file = RemoveOnDrop(path.clone());
        let replies = self
            .input(&[
                Command::new("save-buffer")
                    .args(["-b", name, "--"])
                    .arg(path.as_os_str().as_bytes()),
                buffer_size_query(name),
            ])
            .await?;
        let [save, size] = <[Reply; 2]>::try_from(replies).expect("two commands");
        into_output("save-buffer", save)?;
        let data = std::fs::read(&path)
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
        self.check_buffer_size(name, size, data.len() as u64, "save-buffer")?;
        Ok(data)
    }

    /// `delete-buffer -b NAME`.
    ///
    /// # Errors
    /// [`Error::Command`] (`unknown buffer: NAME`), and the connection's errors.
    pub async fn delete_buffer(&self, name: &str) -> Result<()> {
        self.run(&Command::new("delete-buffer").args(["-b", name]))
            .await
            .map(drop)
    }

    /// Pastes `data` into pane `target` as ONE unbroken input: the `before` commands (e.g.
    /// [`leave_modes`]) on lines of their own, then on ONE line `load-buffer -b NAME -- FILE ;
    /// paste-buffer -p -r [-S] -d -b NAME -t TARGET ; AFTER...` (e.g. `send-keys Enter`). `-r`
    /// keeps LF as LF, `-p` brackets the paste when the program asked for it (mode 2004), `-S`
    /// (from tmux 3.7, [`Difference::PasteEscapes`](crate::Difference)) keeps tmux from escaping
    /// the data, `-d` deletes the buffer. The data goes through a private file removed before
    /// this returns, never a command line. Empty `data` sends `before`, then `after` on one
    /// line. tmux 3.3a does not sanitise pasted data: an `ESC[201~` inside ends the bracket
    /// early.
    ///
    /// The paste and the `after` commands are all or nothing from the first failure on (see
    /// [`Client::group`]): a paste that fails (its data did not load, the pane is gone) never
    /// presses the keys after it, even when tmux was stopped, the call timed out (its file is
    /// then removed, so the load fails) and tmux reads the line later. A buffer left by a failed
    /// paste is deleted.
    ///
    /// # Errors
    /// The first command of the input that failed, as [`Error::Command`] (`load-buffer` when
    /// the data did not load); [`Error::Io`] for the file; the connection's errors.
    pub async fn paste(
        &self,
        target: &str,
        data: &[u8],
        before: &[Command],
        after: &[Command],
    ) -> Result<()> {
        self.paste_after(target, data, before, after)
            .await
            .map(drop)
    }

    /// [`Client::paste`], returning the output of each `before` command, in order (empty for
    /// one that failed, whose error is then the call's): a query
    /// among them (`display-message -p`) reads the pane in the same write as the paste, just
    /// before it, at no extra round trip.
    ///
    /// # Errors
    /// As [`Client::paste`].
    pub async fn paste_after(
        &self,
        target: &str,
        data: &[u8],
        before: &[Command],
        after: &[Command],
    ) -> Result<Vec<Vec<Vec<u8>>>> {
        let mut group: Vec<Command> = Vec::new();
        let mut guard = None;
        let id = self.next_id();
        let name = format!("tmux-cc-paste-{}-{id}", std::process::id());
        if !data.is_empty() {
            let path = self.private_dir().join(format!("paste-{id}"));
            guard = Some(write_private_file(&path, data)?);
            group.push(
                Command::new("load-buffer")
                    .args(["-b", &name, "--"])
                    .arg(path.as_os_str().as_bytes()),
            );
            group.push(
                Command::new("paste-buffer")
                    .args(self.features().paste_flags())
                    .args(["-d", "-b", &name, "-t", target]),
            );
        }
        group.extend(after.iter().cloned());
        let replies = self.lines(before, &group).await;
        drop(guard);
        let replies = replies?;
        let cmds: Vec<&Command> = before.iter().chain(&group).collect();
        let paste_index = before.len() + 1;
        let mut first_error = None;
        let mut outputs = Vec::with_capacity(before.len());
        for (i, (cmd, reply)) in cmds.iter().zip(replies).enumerate() {
            let failed = !reply.success;
            let result = into_output(cmd.name(), reply);
            if i < before.len() {
                // One entry per `before` command, a failed one's empty (its error is the
                // call's): the indices stay the caller's.
                outputs.push(result.as_ref().cloned().unwrap_or_default());
            }
            if !data.is_empty() && i == paste_index && failed {
                let missing = matches!(&result, Err(Error::Command { message, .. }) if message.starts_with("no buffer"));
                if missing {
                    let stray = self
                        .last_stray_line()
                        .map(|l| String::from_utf8_lossy(&l).into_owned());
                    first_error.get_or_insert(Error::Command {
                        command: "load-buffer".into(),
                        message: format!(
                            "the pasted data did not load into buffer {name}{}",
                            stray
                                .map(|s| format!(" (tmux printed: {s})"))
                                .unwrap_or_default()
                        ),
                    });
                    continue;
                }
                // The buffer holds the caller's text: never leave it behind.
                let _ = self.delete_buffer(&name).await;
            }
            if let Err(e) = result {
                first_error.get_or_insert(e);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(outputs),
        }
    }

    /// `send-keys -t TARGET -- KEY...` (see [`send_keys`]).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find pane`), and the connection's errors.
    pub async fn send_keys<K: AsRef<[u8]>>(&self, target: &str, keys: &[K]) -> Result<()> {
        self.run(&send_keys(target, keys)).await.map(drop)
    }

    /// `copy-mode -q -t TARGET` (see [`leave_modes`]).
    ///
    /// # Errors
    /// [`Error::Command`] (e.g. `can't find pane`), and the connection's errors.
    pub async fn leave_modes(&self, target: &str) -> Result<()> {
        self.run(&leave_modes(target)).await.map(drop)
    }
}
