//! The client's private directory, where buffer data passes through files.

use std::path::{Path, PathBuf};

use crate::dirs::{create_private_dir, dead_process_dirs};
use crate::error::{Error, Result};

/// The prefix of the client's private directories: `tmux-cc-PID-N-NANOS`.
const PREFIX: &str = "tmux-cc";

/// A private directory (mode 0700) for files holding buffer data, removed on drop.
pub(super) struct PrivateDir {
    pub(super) path: PathBuf,
}

impl PrivateDir {
    pub(super) fn create(parent: Option<&Path>) -> Result<PrivateDir> {
        let parent = match parent {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os("XDG_RUNTIME_DIR") {
                Some(dir) if Path::new(&dir).is_dir() => PathBuf::from(dir),
                _ => std::env::temp_dir(),
            },
        };
        sweep_dead(&parent);
        match create_private_dir(&parent, PREFIX) {
            Ok(path) => Ok(PrivateDir { path }),
            Err(e) => Err(Error::io(
                format!("creating a private directory in {}", parent.display()),
                e,
            )),
        }
    }
}

/// Removes the EMPTY private directories of processes that died without removing theirs
/// (killed, or exited without dropping their clients). Files are removed right after use, so
/// such a directory is empty; `remove_dir` leaves any other alone.
fn sweep_dead(parent: &Path) {
    for dir in dead_process_dirs(parent, PREFIX) {
        let _ = std::fs::remove_dir(dir);
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
