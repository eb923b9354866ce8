//! The file tools, write_file and read_file, as plain async functions: no HTTP, no tmux.
//!
//! The design, with the alternatives rejected: `docs/design/files.md`; every rule below is
//! one of its sentences. ratd reads and writes files itself, on its own machine and
//! as its own user: tmux, its terminal backend, would only add a round trip, and replace precise
//! errors with its messages.
//!
//! ```no_run
//! # async fn example() {
//! use std::time::Duration;
//! use rat_core::files::{ReadFile, WriteFile, read_file, write_file};
//! use rat_core::result::ReadBudget;
//!
//! let written = write_file(
//!     WriteFile { path: "~/notes/todo.txt".into(), content: "buy milk\n".into() },
//!     Duration::from_secs(10),
//! )
//! .await;
//! // "Created /home/alice/notes/todo.txt (9 B). Missing directories created: /home/alice/notes. ..."
//! let read = read_file(
//!     ReadFile { path: "~/notes/todo.txt".into(), ..Default::default() },
//!     ReadBudget::DEFAULT,
//!     Duration::from_secs(10),
//! )
//! .await;
//! // "[/home/alice/notes/todo.txt: 1 line, 9 B, modified 0s ago]\nbuy milk\n"
//! # }
//! ```
//!
//! # Design decisions
//!
//! **Paths** are absolute or start with `~/` (the home directory of the user ratd runs as, where
//! the terminals start). A relative path is refused, with the reason: relative to a window, it
//! would be relative to its foreground process, the local ssh client under ssh, and the file
//! would silently land elsewhere. Paths are normalized without resolving anything (`//` and `/./`
//! go, `..` stays: the kernel resolves it through symbolic links as a shell would).
//!
//! **Writing in place**, as `cp` does: the file is truncated, then written. It keeps its mode,
//! owner, hard links and extended attributes, and a symbolic link is followed, writing its target,
//! as a human editing it would; the result names the file written, then the link. The cost, shown to the agent: a write failing midway (no space
//! left) leaves the file partial, and the error says so. Rejected: a temporary file renamed over
//! the target (atomic, but it breaks hard links, turns a link into a file, may change the owner,
//! needs to write in the directory); an `atomic` parameter (small models set it "to be safe").
//!
//! **Only regular files**, checked three times: `stat` before opening (opening some devices has
//! effects), opened with `O_NONBLOCK` (a FIFO without a reader then fails at once with ENXIO for
//! a write, and a read never blocks), and `fstat` once open (the file opened may not be the one
//! checked). Created or replaced is reported by opening exclusively first (`O_CREAT|O_EXCL`, 0644
//! minus the umask), then the existing file. Missing directories are created as `mkdir -p` does
//! (0755 minus the umask), top down, and named in the result: a typo in a path creates
//! directories the agent did not mean.
//!
//! **Errors** of the file system are reported as the system gives them (`no space left on device`,
//! `read-only file system`: strerror, first letter lowered), as an agent expects of a low level
//! operation. A denied permission names the user ratd runs as, the one the terminals run as.
//! Outcomes: the agent's input or the state it asked about (a missing file, a denied permission,
//! a read-only file system, a directory, binary content, a line too far) is
//! [`Outcome::Refused`], logged at info level; what the agent did
//! not cause (no space left, an I/O error, a file system not answering, an internal error) is
//! [`Outcome::Failed`], a warning in the logs.
//!
//! **Reading** returns whole lines, lines rather than bytes: agents think in lines, and a byte
//! offset cuts lines and characters. What is sent is checked first, as it can not be taken back
//! from a model's context: a regular file; a read bounded to the size at open (a log growing
//! meanwhile is read as it was, consistently with the size reported), files showing a size of 0
//! (/proc) being read to their end; text (no NUL byte, the heuristic of git and `grep -I`, and
//! valid UTF-8), the line of the first offence reported, pointing to the terminal (`file`, `xxd`,
//! `base64`); the read budget, header included. A file over the budget read without a range
//! sends only its size, line count and modification, for the agent to pick a range, its start
//! checked to be text all the same. A range returns the whole lines that fit and where to
//! continue, as `read(2)` returns fewer bytes than asked; a single line over the budget is
//! pointed to the terminal (`head -c`, `cut -c`).
//!
//! **Scanning** (reaching a line, counting lines) takes half of the call's time at most: a bound
//! in time rather than in size, as the speed depends on where the file is (the page cache, a
//! disk). A line out of reach in time is refused, pointing to a negative start_line or the
//! terminal (`sed -n`, `tail -n`); a total not counted in time is not reported ("too large to count
//! its lines"), and a range from the end is then numbered from the end ("lines -100 to -41
//! counted from the end"). Reading from the end reads backwards: instant on any size. Every range
//! is read forward and cut at the end, saying the line to continue with. How scanning is fast:
//! see `files/scan.rs`.
//!
//! **Time**: file operations can not be interrupted. Each runs on a blocking thread
//! (`spawn_blocking`); on a file system not answering (a stale NFS mount, which blocks a human as
//! well) the call returns at the end of its time with a message saying so, logged as a warning,
//! while the operation stays blocked until the file system answers, one thread per call.
//!
//! **Logs**: the path and sizes, the lines read, whether a read was cut or counted, whether a file
//! was created and how many directories: never the content.

use std::fs::FileType;
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use nix::errno::Errno;

use crate::result::{Outcome, ReadBudget, ToolResult};

pub mod journal;
mod read;
#[cfg(feature = "test-support")]
pub mod scan;
#[cfg(not(feature = "test-support"))]
mod scan;
pub mod text;
mod write;

mod input;

pub use input::{ReadFile, WriteFile};
pub use text::{read_file_description, write_file_description};

/// write_file: writes `input.content` to `input.path`, creating the file (and its missing
/// directories) or replacing it in place, within `deadline` (the call's time, 10 s in ratd).
///
/// Results: `Created PATH (SIZE).` or `Replaced PATH (SIZE, SIZE before).`, the file written
/// through a symbolic link named with the link (`Created /srv/new.txt (13 B, through the link
/// /home/u/dangling).`), plus the directories created; refusals and failures as the module doc says. Log facts: `path`, `bytes`, `created`,
/// `former_size`, `directories_created`.
pub async fn write_file(input: WriteFile, deadline: Duration) -> ToolResult {
    write_file_noted(input, deadline, None).await
}

/// [`write_file`], noting the write in `journal` while it runs, and reporting first a write a
/// former ratd left cut at that path ([`journal::Journal::take_note`]).
pub async fn write_file_noted(
    input: WriteFile,
    deadline: Duration,
    journal: Option<std::sync::Arc<journal::Journal>>,
) -> ToolResult {
    let bytes = input.content.len();
    // A final `/` names a directory (the kernel refuses to create a file there: EISDIR); the
    // normalized path, without it, would create a file of that name.
    let end = ["/", "/."]
        .into_iter()
        .find(|end| input.path.ends_with(end));
    if let Some(end) = end.filter(|_| input.path.len() > 1) {
        let refused = ToolResult::refused(
            text::path_names_a_directory(&input.path, end),
            "a directory path",
        );
        return first_logs(refused, &input.path, bytes);
    }
    let path = match absolute_path(&input.path) {
        Ok(path) => path,
        Err(refused) => return first_logs(refused, &input.path, bytes),
    };
    let shown = path.display().to_string();
    let content = input.content;
    let link = link_as_given(&input.path, &path);
    let note = journal
        .as_ref()
        .and_then(|journal| journal.take_note(&path));
    let result = within(
        deadline,
        move || match journal {
            Some(journal) => {
                let noted = journal.begin(&path, content.len() as u64);
                let result = write::write_now(&path, content.as_bytes(), link);
                journal.done(noted);
                result
            }
            None => write::write_now(&path, content.as_bytes(), link),
        },
        || text::internal_error(&text::writing(&shown)),
        || text::write_not_answered(&shown),
    )
    .await;
    first_logs(with_cut_note(result, note), &shown, bytes)
}

/// `result` with the sentence reporting a cut write first, on a line of its own.
fn with_cut_note(mut result: ToolResult, note: Option<String>) -> ToolResult {
    if let Some(note) = note {
        result.text = format!("{note}\n{}", result.text);
        result = result.with_log("cut_write_told", true);
    }
    result
}

/// read_file: reads whole lines of the text file at `input.path`, within `budget` (header
/// included) and `deadline` (the call's time, 10 s in ratd), scanning for half of it at most.
///
/// Results: a header between brackets (`[PATH: lines 10 to 12 of 100, 792 B, modified 3s ago]`,
/// with `; cut to the read budget (64 KiB): continue with start_line N` after a cut), then the
/// exact content; a file over the budget read without a range: its size, line count and
/// modification, as a message. Log facts: `path`, `lines`, `bytes` (of the result), `cut`,
/// `counted`, `size` (of the file).
pub async fn read_file(input: ReadFile, budget: ReadBudget, deadline: Duration) -> ToolResult {
    read_file_noted(input, budget, deadline, None).await
}

/// [`read_file`], reporting first a write a former ratd left cut at that path
/// ([`journal::Journal::take_note`]).
pub async fn read_file_noted(
    input: ReadFile,
    budget: ReadBudget,
    deadline: Duration,
    journal: Option<&journal::Journal>,
) -> ToolResult {
    let started = Instant::now();
    let path = match absolute_path(&input.path) {
        Ok(path) => path,
        Err(refused) => return refused.with_log("path", &input.path),
    };
    let shown = path.display().to_string();
    let note = journal.and_then(|journal| journal.take_note(&path));
    let scan_deadline = started + deadline / 2;
    let result = within(
        deadline,
        move || read::read_now(&path, &input, budget, scan_deadline, SystemTime::now()),
        || text::internal_error(&text::reading(&shown)),
        || text::read_not_answered(&shown),
    )
    .await;
    let mut result = with_cut_note(result, note);
    result.log.insert(0, ("path", shown));
    result
}

/// Runs `work`, a file operation, on a blocking thread, and returns its result, or at the end of
/// `deadline` the failure `late()`: file operations can not be interrupted, and on a file
/// system not answering (a stale NFS mount) `work` stays blocked until it answers. `broken()`
/// reports a task that panicked.
async fn within(
    deadline: Duration,
    work: impl FnOnce() -> ToolResult + Send + 'static,
    broken: impl FnOnce() -> String,
    late: impl FnOnce() -> String,
) -> ToolResult {
    match tokio::time::timeout(deadline, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => ToolResult::failed(broken(), format!("the file task failed: {error}")),
        Err(_) => ToolResult::failed(
            late(),
            format!("the file system did not answer within {deadline:?}"),
        ),
    }
}

/// Puts the path and the size of the content first in the log facts of a write.
fn first_logs(mut result: ToolResult, path: &str, bytes: usize) -> ToolResult {
    result.log.insert(0, ("path", path.to_owned()));
    result.log.insert(1, ("bytes", bytes.to_string()));
    result
}

/// `given` as an absolute normalized path: absolute, or starting with `~/` for the home directory
/// of ratd's user (`~` alone is that directory). Anything else is refused, saying why.
fn absolute_path(given: &str) -> Result<PathBuf, ToolResult> {
    if given.contains('\0') {
        return Err(ToolResult::refused(
            text::path_with_nul(given),
            "NUL byte in the path",
        ));
    }
    let expanded = if given == "~" || given.starts_with("~/") {
        match std::env::home_dir() {
            Some(home) if home.is_absolute() => home.join(given[1..].trim_start_matches('/')),
            _ => {
                return Err(ToolResult::failed(
                    text::home_unknown(given),
                    "no home directory",
                ));
            }
        }
    } else {
        PathBuf::from(given)
    };
    if given.starts_with('~') && !expanded.is_absolute() {
        // `~alice/x`: another user's home, which rat does not look up.
        return Err(ToolResult::refused(
            text::another_users_home(given),
            "another user's home",
        ));
    }
    if !expanded.is_absolute() {
        return Err(ToolResult::refused(
            text::path_relative(given),
            "relative path",
        ));
    }
    // `//` and `/./` go, a trailing `/` too; `..` stays, for the kernel to resolve
    Ok(expanded
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect())
}

/// How a result names the symbolic link `path` written or read through, when the agent gave it
/// from the home directory (`given`, `~/files/dangling`): as given, `~/` and all, its `//` and
/// `/./` gone; `None` for a path given absolute, named by its real path. The file it leads
/// to is named by its real path either way.
fn link_as_given(given: &str, path: &Path) -> Option<PathBuf> {
    if !given.starts_with("~/") {
        return None;
    }
    let home = std::env::home_dir()?;
    let rest = path.strip_prefix(&home).ok()?;
    Some(Path::new("~").join(rest))
}

/// The file opened as `file` when `path` itself is a symbolic link (dangling, relative or
/// chained): the path the kernel resolved, read from `/proc/self/fd`, for the result to name
/// the file really written or read, with the link. `None` when `path` is no link, and when the
/// file's path is unknown (removed since it was opened). A link among the directories above is
/// not reported: write_file names the real directory, read_file the path as given.
fn linked_file(path: &Path, file: &std::fs::File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    if !std::fs::symlink_metadata(path)
        .ok()?
        .file_type()
        .is_symlink()
    {
        return None;
    }
    let real = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()?;
    let removed = real.as_os_str().as_bytes().ends_with(b" (deleted)");
    (real.is_absolute() && !removed).then_some(real)
}

/// Where the symbolic link `path` leads, its chain followed to the first path that is no link
/// (a relative target read from the link's directory, by its real path, its `..` then taken
/// from it); `None` when `path` is no link, or the chain is too long (40 links, the kernel's
/// limit).
fn link_end(path: &Path) -> Option<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        let target = match std::fs::read_link(&at) {
            Ok(target) => target,
            Err(_) if at != path => return Some(at),
            Err(_) => return None,
        };
        let dir = at
            .parent()
            .map(|dir| std::fs::canonicalize(dir).unwrap_or(dir.into()));
        let mut next = dir.unwrap_or_default();
        for component in target.components() {
            match component {
                Component::ParentDir => {
                    next.pop();
                }
                Component::CurDir => {}
                other => next.push(other),
            }
        }
        at = next;
    }
    None
}

/// How a file tool accesses a file, for the texts refusing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read,
    Write,
    /// Creating a missing directory for write_file.
    Create,
}

/// The refusal of `path`, of type `file_type`, if it is not a regular file: a directory, or what
/// the file tools do not access (a FIFO would block, a device is not a file to replace, /dev/zero
/// never ends).
fn not_regular(path: &Path, file_type: FileType, access: Access) -> Option<ToolResult> {
    if file_type.is_file() {
        return None;
    }
    if file_type.is_dir() {
        return Some(ToolResult::refused(
            text::a_directory(path, access == Access::Read),
            "a directory",
        ));
    }
    let kind = if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a file"
    };
    Some(ToolResult::refused(
        text::not_regular(path, kind, access == Access::Read),
        format!("not a regular file: {kind}"),
    ))
}

/// The result of a file operation, `what` naming it (`Writing /x`), failed with `error` on
/// `path`; see [`failure_text`]. The outcome is Refused for what the agent's input or the state
/// it asked about caused, Failed (a warning) for the rest.
fn failure(
    error: &io::Error,
    what: &str,
    path: &Path,
    access: Access,
    partial: bool,
) -> ToolResult {
    let errno = error.raw_os_error().map(Errno::from_raw);
    let mut text = failure_text(errno, what, path, access, &user_name(), partial);
    if errno == Some(Errno::ENOENT)
        && let Some(end) = link_end(path)
    {
        // a dangling link: what is missing is elsewhere
        text += &text::dangling_link(&end, access != Access::Read);
    }
    let cause = match errno {
        Some(errno) => format!("{errno:?}: {error}"),
        None => error.to_string(),
    };
    let outcome = match errno {
        Some(errno) if caused_by_the_agent(errno) => Outcome::Refused { cause },
        _ => Outcome::Failed { cause },
    };
    ToolResult {
        text,
        outcome,
        log: Vec::new(),
    }
}

/// The text of a failed file operation (see [`text::failed`]): a denied permission names
/// `user`, the one ratd and its terminals run as; an error without an errno is internal.
fn failure_text(
    errno: Option<Errno>,
    what: &str,
    path: &Path,
    access: Access,
    user: &str,
    partial: bool,
) -> String {
    let failed = match errno {
        Some(Errno::EACCES) => text::Failed::Denied {
            verb: match access {
                Access::Read => "read",
                Access::Write => "written",
                Access::Create => "created",
            },
            user,
        },
        Some(errno) => text::Failed::Os(rat_wire::words::os_reason(errno as i32)),
        None => text::Failed::Internal,
    };
    text::failed(what, path, &failed, partial)
}

/// Whether a failure with `errno` comes from the agent's input or the state it asked about
/// (logged at info level), rather than from the system (a warning).
fn caused_by_the_agent(errno: Errno) -> bool {
    matches!(
        errno,
        Errno::ENOENT
            | Errno::ENOTDIR
            | Errno::EISDIR
            | Errno::EACCES
            | Errno::EPERM
            | Errno::EROFS
            | Errno::ENAMETOOLONG
            | Errno::ELOOP
            | Errno::EEXIST
            | Errno::ETXTBSY
            | Errno::ENXIO
            | Errno::ENODEV
            | Errno::EFBIG
            | Errno::EINVAL
    )
}

/// The name of the user ratd runs as (its effective uid), or `uid N` without a passwd entry.
fn user_name() -> String {
    let uid = nix::unistd::geteuid();
    match nix::unistd::User::from_uid(uid) {
        Ok(Some(user)) => user.name,
        _ => format!("uid {uid}"),
    }
}

#[cfg(test)]
mod tests;
