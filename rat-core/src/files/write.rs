//! write_file, done now: the blocking part, run on a blocking thread by [`super::write_file`].

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::text;
use super::{Access, failure, linked_file, not_regular};
use crate::result::ToolResult;

/// Writes `content` to the regular file at `path` (absolute, normalized), creating it and its
/// missing directories, or replacing it in place: truncated, then written, keeping its mode,
/// owner, hard links and extended attributes; a symbolic link is followed, and named `link`
/// when the agent gave it from the home directory (`~/...`), else by its real path.
pub(super) fn write_now(path: &Path, content: &[u8], link: Option<PathBuf>) -> ToolResult {
    let what = text::writing(path.display());
    // checked before opening: opening some devices has effects
    let mut directories = Vec::new();
    let mut was_missing = false;
    match fs::metadata(path) {
        Ok(meta) => {
            if let Some(refused) = not_regular(path, meta.file_type(), Access::Write) {
                return refused;
            }
        }
        Err(error) if is_missing(&error) => {
            was_missing = true;
            if let Some(parent) = path.parent() {
                match create_directories(parent, path) {
                    Ok(created) => directories = created,
                    Err(refused) => return refused,
                }
            }
        }
        Err(error) => return failure(&error, &what, path, Access::Write, false),
    }
    let mut result = write_opened(path, content, was_missing, &directories, &what, link);
    if result.outcome.is_error() && !directories.is_empty() {
        // Nothing half-done: the directories made for a file that was not written go again,
        // and the failure says so.
        result.text += &undo_directories(&directories);
    }
    result
}

/// `path` by its real absolute path: its parent's realpath (symbolic links and `..` resolved
/// as the kernel resolved them) and its name; `path` itself where its parent can not be
/// resolved. The name stays: a symbolic link written through is named by it as the link, its
/// target by [`linked_file`].
fn real_name(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => fs::canonicalize(parent)
            .map(|parent| parent.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
    }
}

/// Removes the directories made by a call that then failed (see [`remove_directories`]), and
/// reports it, naming them by their real paths: those removed, and those left because something
/// else came into them meanwhile.
fn undo_directories(directories: &[PathBuf]) -> String {
    let names: Vec<PathBuf> = directories.iter().map(|d| real_name(d)).collect();
    let left = remove_directories(directories).len();
    let (kept, removed) = names.split_at(left);
    text::directories_undone(removed, kept)
}

/// The rest of [`write_now`], once the missing directories are made: open, check, write.
fn write_opened(
    path: &Path,
    content: &[u8],
    was_missing: bool,
    directories: &[PathBuf],
    what: &str,
    link: Option<PathBuf>,
) -> ToolResult {
    let what = what.to_owned();
    let (mut file, mut created) = match open(path) {
        Ok(opened) => opened,
        Err(error) => {
            // a FIFO or a device put in place of the file checked: ENXIO for a FIFO without a
            // reader (O_NONBLOCK), ENODEV or ENXIO for some devices
            if let Ok(meta) = fs::metadata(path)
                && let Some(refused) = not_regular(path, meta.file_type(), Access::Write)
            {
                return refused;
            }
            return failure(&error, &what, path, Access::Write, false);
        }
    };
    // checked again once opened: the file opened may not be the one checked
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(error) => return failure(&error, &what, path, Access::Write, false),
    };
    if let Some(refused) = not_regular(path, meta.file_type(), Access::Write) {
        return refused;
    }
    if !created && was_missing && meta.len() == 0 && is_symlink(path) {
        // a dangling symbolic link: opening it created its target
        created = true;
    }
    let former = meta.len();
    let linked = linked_file(path, &file);
    if let Err(error) = file.set_len(0) {
        return failure(&error, &what, path, Access::Write, false);
    }
    #[cfg(feature = "test-support")]
    hold_after_truncate(path);
    // once truncated, a failure leaves the file partial
    if let Err(error) = file.write_all(content) {
        return failure(&error, &what, path, Access::Write, true);
    }
    // a network file system may only report a failed write when closing
    if let Err(errno) = nix::unistd::close(file) {
        return failure(&io::Error::from(errno), &what, path, Access::Write, true);
    }
    let size = content.len() as u64;
    let shown = real_name(path);
    // through a symbolic link, the file written is named, and the link after its size
    let mut answer = match &linked {
        Some(real) => {
            let link = link.unwrap_or(shown);
            text::written(created, real, Some(&link), size, former)
        }
        None => text::written(created, &shown, None, size, former),
    };
    if !directories.is_empty() {
        let names: Vec<PathBuf> = directories.iter().map(|d| real_name(d)).collect();
        answer += &text::directories_created(&names);
    }
    ToolResult::ok(answer)
        .with_log("created", created)
        .with_log("former_size", former)
        .with_log("directories_created", directories.len())
}

/// Tests only: holds a write after its truncate, for as many seconds as
/// `RAT_TEST_HOLD_AFTER_TRUNCATE` says, when the file's name is `RAT_TEST_HOLD_NAME`: the window
/// a kill of ratd cuts a write in (`docs/design/files.md`, Writes cut short).
#[cfg(feature = "test-support")]
fn hold_after_truncate(path: &Path) {
    let name = std::env::var_os("RAT_TEST_HOLD_NAME");
    let seconds = std::env::var("RAT_TEST_HOLD_AFTER_TRUNCATE")
        .ok()
        .and_then(|s| s.parse().ok());
    if let (Some(name), Some(seconds)) = (name, seconds)
        && path.file_name() == Some(name.as_os_str())
    {
        std::thread::sleep(std::time::Duration::from_secs(seconds));
    }
}

/// Removes `directories` (made by this call, from the top), the deepest first, as long as they
/// are empty; returns those left.
fn remove_directories(directories: &[PathBuf]) -> Vec<&PathBuf> {
    let mut left = Vec::new();
    for (i, dir) in directories.iter().enumerate().rev() {
        if fs::remove_dir(dir).is_err() {
            left = directories[..=i].iter().collect();
            break;
        }
    }
    left
}

/// A path that does not exist, or whose parent is not a directory (found next, and named).
fn is_missing(error: &io::Error) -> bool {
    error.kind() == io::ErrorKind::NotFound || error.raw_os_error() == Some(libc::ENOTDIR)
}

fn is_symlink(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

/// Opens `path` for writing without blocking, and returns whether it created it: exclusively first
/// (`O_CREAT|O_EXCL`, 0644 minus the umask), then the existing file. `O_CREAT` stays on the second
/// open: a dangling symbolic link then creates its target, as a human writing to it would.
pub(super) fn open(path: &Path) -> io::Result<(File, bool)> {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .mode(0o644)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    match options.clone().create_new(true).open(path) {
        Ok(file) => Ok((file, true)),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            Ok((options.create(true).open(path)?, false))
        }
        Err(error) => Err(error),
    }
}

/// Creates `dir` and its missing parents, as `mkdir -p` does (0755 minus the umask), and returns
/// those it created, from the top: a typo in a path creates directories the agent did not mean,
/// which the result names. A parent that is not a directory is refused, naming it and `file`,
/// the path the agent asked to write.
fn create_directories(dir: &Path, file: &Path) -> Result<Vec<PathBuf>, ToolResult> {
    let mut missing = Vec::new();
    let mut parent = Some(dir);
    while let Some(current) = parent {
        match fs::metadata(current) {
            Ok(meta) if meta.is_dir() => break,
            Ok(_) => {
                return Err(ToolResult::refused(
                    text::not_a_directory_above(current, file),
                    "a parent is not a directory",
                ));
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => missing.push(current),
            // a parent further up is not a directory: found next
            Err(error) if error.raw_os_error() == Some(libc::ENOTDIR) => {}
            Err(error) => {
                let what = text::creating(dir.display());
                return Err(failure(&error, &what, current, Access::Create, false));
            }
        }
        parent = current.parent();
    }
    missing.reverse();
    let mut builder = DirBuilder::new();
    builder.mode(0o755);
    let mut made = Vec::new();
    for directory in missing {
        match builder.create(directory) {
            Ok(()) => made.push(directory.to_path_buf()),
            // created meanwhile by someone else: not ours to name
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && directory.is_dir() => {}
            Err(error) => {
                let what = text::creating(dir.display());
                let mut refused = failure(&error, &what, directory, Access::Create, false);
                // Nothing half-done: those made before the failure go again.
                refused.text += &undo_directories(&made);
                return Err(refused);
            }
        }
    }
    Ok(made)
}
