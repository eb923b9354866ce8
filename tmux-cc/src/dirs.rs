//! Private directories of one process: created with mode 0700 under a name that carries the
//! process's pid, `PREFIX-PID-N-NANOS`, so that the directories of a process that died without
//! removing its own (killed) can be found again and removed.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Creates a fresh directory of mode 0700 in `parent`, named `PREFIX-PID-N-NANOS` (this
/// process's pid, a counter of this process, the clock's nanoseconds in hex), and returns its
/// path. A name already taken is tried again with the next count, 16 times at most.
///
/// Removing it is the caller's: find those of dead processes with [`dead_process_dirs`].
///
/// # Errors
/// The error of creating the directory; the last `AlreadyExists` after 16 names taken.
pub fn create_private_dir(parent: &Path, prefix: &str) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..16 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = parent.join(format!(
            "{prefix}-{}-{}-{nanos:08x}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        match std::fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
}

/// The entries of `parent` named as [`create_private_dir`]`(parent, prefix)` names them
/// (`PREFIX-PID-...`) whose process is gone: not this process, and no `/proc/PID`. What to
/// remove of them (only empty ones, or everything) is the caller's choice. Nothing when
/// `parent` can not be read.
pub fn dead_process_dirs(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let start = format!("{prefix}-");
    let mut dead = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(start.as_str()))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            dead.push(entry.path());
        }
    }
    dead
}

#[cfg(test)]
mod tests {
    use super::{create_private_dir, dead_process_dirs};

    #[test]
    fn a_dead_process_directory_is_found_and_a_live_one_is_not() {
        use std::os::unix::fs::PermissionsExt;
        let parent = tempfile::tempdir().unwrap();
        let mine = create_private_dir(parent.path(), "tcc-dirs").unwrap();
        let mode = std::fs::metadata(&mine).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        // A pid above the kernel's largest (2^22) never runs.
        let dead = parent.path().join("tcc-dirs-4194305-0-00000000");
        std::fs::create_dir(&dead).unwrap();
        std::fs::create_dir(parent.path().join("other-4194305-0-00000000")).unwrap();
        assert_eq!(dead_process_dirs(parent.path(), "tcc-dirs"), vec![dead]);
    }
}
