//! The client's private directory, where buffer data passes through files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// A private directory (mode 0700) for files holding buffer data, removed on drop.
pub(super) struct PrivateDir {
    pub(super) path: PathBuf,
}

impl PrivateDir {
    pub(super) fn create(parent: Option<&Path>) -> Result<PrivateDir> {
        use std::os::unix::fs::DirBuilderExt;
        let parent = match parent {
            Some(p) => p.to_path_buf(),
            None => match std::env::var_os("XDG_RUNTIME_DIR") {
                Some(dir) if Path::new(&dir).is_dir() => PathBuf::from(dir),
                _ => std::env::temp_dir(),
            },
        };
        sweep_dead(&parent);
        static DIR_COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut last = None;
        for _ in 0..16 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let path = parent.join(format!(
                "tmux-cc-{}-{}-{nanos:08x}",
                std::process::id(),
                DIR_COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(PrivateDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => {
                    return Err(Error::io(
                        format!("creating a private directory in {}", parent.display()),
                        e,
                    ));
                }
            }
        }
        Err(Error::io(
            format!("creating a private directory in {}", parent.display()),
            last.unwrap_or_else(|| std::io::Error::other("no free name")),
        ))
    }
}

/// Removes the EMPTY private directories of processes that died without removing theirs
/// (killed, or exited without dropping their clients). Files are removed right after use, so
/// such a directory is empty; `remove_dir` leaves any other alone.
fn sweep_dead(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("tmux-cc-"))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
