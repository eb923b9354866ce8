//! Typed operations: sessions, windows, captures, buffers and pastes, keys, options.
//!
//! Each is a method of [`Client`] sending one command line per tmux command (never `;`-joined:
//! after a failure, the rest of such a line gives no reply in 3.3a), plus free functions that
//! build the [`Command`]s, for callers composing one unbroken [`Client::input`] (leave modes,
//! record a pane option and send keys in the same write).
//!
//! Targets are passed to tmux as given: the caller builds exact targets (`=session:=window`,
//! `@3`, `%5`); tmux-cc never matches a prefix or keeps ids between calls. tmux-cc never sets
//! the global `window-size` to `manual` (tmux 3.3a segfaults on the next new-window or
//! new-session, issue 4849): windows are sized one by one with `resize-window`.
//!
//! One file a kind: `ops/sessions.rs`, `ops/windows.rs`, `ops/captures.rs`, `ops/buffers.rs`
//! (buffers, pastes and keys), `ops/options.rs`, `ops/topology.rs` (the server's shape); the command builders and the reply helpers
//! they share are here.

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::command::Command;
use crate::error::{Error, Result};

mod buffers;
mod captures;
mod options;
mod sessions;
mod topology;
mod windows;

pub use captures::Capture;
pub use options::OptionScope;
pub use sessions::{NewSession, SessionCreated};
pub use topology::{PaneInfo, PaneScope, SessionInfo, Shape, WindowPanes};
pub use windows::{NewWindow, WindowCreated, WindowInfo};

/// The size tmux-cc gives sessions and windows by default: 200 columns.
pub const DEFAULT_WIDTH: u32 = 200;
/// The size tmux-cc gives sessions and windows by default: 24 rows.
pub const DEFAULT_HEIGHT: u32 = 24;

/// `copy-mode -q -t TARGET`: the pane leaves copy mode and any other mode (no error when in
/// none). Put it first in an input so keys and pastes reach the program.
pub fn leave_modes(target: &str) -> Command {
    Command::new("copy-mode").args(["-q", "-t", target])
}

/// `send-keys -t TARGET -- KEY...`: keys by tmux name (`Enter`, `C-c`, `a`). tmux types an
/// unknown name as text: validate names before. tmux's parser fails a command of some 9990
/// arguments or more (`parse error: yacc stack overflow`, its stack being 10000 deep): split a
/// longer list into several commands sent in one input, which presses them in order.
pub fn send_keys<K: AsRef<[u8]>>(target: &str, keys: &[K]) -> Command {
    Command::new("send-keys")
        .args(["-t", target, "--"])
        .args(keys.iter().map(AsRef::as_ref))
}

/// `send-keys -l -t TARGET -- TEXT`: the text typed literally, character by character.
pub fn send_literal(target: &str, text: &[u8]) -> Command {
    Command::new("send-keys")
        .args(["-l", "-t", target, "--"])
        .arg(text)
}

/// `set-option -p -t TARGET -- NAME VALUE`: a pane option (user options start with `@`).
pub fn set_pane_option(target: &str, name: &str, value: &[u8]) -> Command {
    Command::new("set-option")
        .args(["-p", "-t", target, "--", name])
        .arg(value)
}

fn push_new_common(
    mut cmd: Command,
    start_directory: &Option<PathBuf>,
    environment: &[(String, Vec<u8>)],
    command: &[Vec<u8>],
) -> Command {
    if let Some(dir) = start_directory {
        cmd = cmd.arg("-c").arg(dir.as_os_str().as_bytes());
    }
    for (name, value) in environment {
        let mut pair = name.as_bytes().to_vec();
        pair.push(b'=');
        pair.extend_from_slice(value);
        cmd = cmd.arg("-e").arg(pair);
    }
    if !command.is_empty() {
        cmd = cmd.arg("--").args(command);
    }
    cmd
}

fn one_line(command: &str, lines: Vec<Vec<u8>>) -> Result<String> {
    match <[Vec<u8>; 1]>::try_from(lines) {
        Ok([line]) => Ok(String::from_utf8_lossy(&line).into_owned()),
        Err(lines) => Err(Error::UnexpectedReply {
            command: command.to_string(),
            detail: format!("expected one line, got {}", lines.len()),
        }),
    }
}

fn field<T: std::str::FromStr>(command: &str, what: &str, text: &str) -> Result<T> {
    text.parse().map_err(|_| Error::UnexpectedReply {
        command: command.to_string(),
        detail: format!("{what} is {text:?}"),
    })
}

#[cfg(test)]
mod tests;
