//! The writes in progress, noted so that a write cut by the end of ratd (killed: SIGKILL, the
//! kernel's OOM killer) is told after a restart rather than lost untold (`docs/design/files.md`,
//! Writes cut short).
//!
//! A write_file notes itself before it truncates the file (a small file of the journal: the
//! path, the size of the content, when it began) and removes the note once done, failed or not
//! (a failure is told by its own error). Notes left by a ratd that ended are read when the next
//! starts: each is told by the first read_file or write_file of its path, then removed. It lapses
//! (removed untold) once the file's size or modification time is no longer what the cut left,
//! as the file was written by something else meanwhile. A path names the file the cut left by
//! its name as given or by any other (a symbolic link, a hard link, the link's target): what
//! the cut left holds the file's device and inode, which every name of it shares. The crash model is ratd ending, not the
//! machine: nothing is synced to disk.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::text::size_text;

/// The journal of one tenant's writes: a directory of its own.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    next: AtomicU64,
    /// The writes a former ratd left cut, by path, until told or lapsed.
    cut: Mutex<HashMap<PathBuf, Cut>>,
}

/// A write a former ratd left cut, and what it left.
#[derive(Debug, Clone)]
struct Cut {
    note: PathBuf,
    bytes: u64,
    began: SystemTime,
    /// The file when the cut was found (`None`: no file).
    left: Option<FileState>,
}

/// What a cut left: the file's size and modification time (a change tells that something
/// wrote it since), its device and inode (the file whatever its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileState {
    size: u64,
    modified: SystemTime,
    dev: u64,
    ino: u64,
}

/// A write in progress, noted: removed by [`Journal::done`].
#[derive(Debug)]
pub struct Noted(Option<PathBuf>);

impl Journal {
    /// Opens the journal in `dir` (created, 0700, if missing), and takes in the notes a former
    /// ratd left: writes cut short. Each is completed with what the cut left (the file's size
    /// and modification time now), which a later restart keeps.
    ///
    /// # Errors
    /// Creating or reading the directory.
    pub fn open(dir: &Path) -> io::Result<Journal> {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        let mut cut = HashMap::new();
        for entry in fs::read_dir(dir)? {
            let note = entry?.path();
            let Some((path, bytes, began, left)) =
                fs::read_to_string(&note).ok().and_then(|text| parse(&text))
            else {
                let _ = fs::remove_file(&note);
                continue;
            };
            let left = left.or_else(|| {
                let now = state_of(&path);
                let _ = fs::write(&note, format_note(&path, bytes, began, Some(now)));
                Some(now)
            });
            cut.insert(
                path,
                Cut {
                    note,
                    bytes,
                    began,
                    left: left.flatten(),
                },
            );
        }
        Ok(Journal {
            dir: dir.to_owned(),
            next: AtomicU64::new(0),
            cut: Mutex::new(cut),
        })
    }

    /// Notes a write of `bytes` to `path` beginning now. A note that can not be written is
    /// no reason to refuse the write: it is then not noted.
    pub fn begin(&self, path: &Path, bytes: u64) -> Noted {
        let name = format!(
            "{}-{}",
            std::process::id(),
            self.next.fetch_add(1, Ordering::Relaxed)
        );
        let note = self.dir.join(name);
        let text = format_note(path, bytes, SystemTime::now(), None);
        Noted(fs::write(&note, text).ok().map(|()| note))
    }

    /// The write of `noted` ended: its note goes.
    pub fn done(&self, noted: Noted) {
        if let Some(note) = noted.0 {
            let _ = fs::remove_file(note);
        }
    }

    /// The sentence telling a write a former ratd left cut at `path`, once: the note goes with
    /// it, and a note whose file changed since the cut goes untold. `path` names the file by
    /// the name the write was given or by any other (a link to it, its target): matched by the
    /// file's device and inode. `None` for every other path.
    pub fn told(&self, path: &Path) -> Option<String> {
        if self
            .cut
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
        {
            return None;
        }
        let now = state_of(path);
        let cut = {
            let mut cuts = self.cut.lock().unwrap_or_else(|e| e.into_inner());
            match cuts.remove(path) {
                Some(cut) => cut,
                None => {
                    let now = now?;
                    let named = cuts.iter().find_map(|(named, cut)| {
                        cut.left
                            .is_some_and(|left| (left.dev, left.ino) == (now.dev, now.ino))
                            .then(|| named.clone())
                    })?;
                    cuts.remove(&named)?
                }
            }
        };
        let _ = fs::remove_file(&cut.note);
        if now != cut.left {
            return None;
        }
        Some(format!(
            "A write_file of {} to this file was cut short at {}: ratd ended during it. The file may be partial or empty: check it, and write it again if needed.",
            size_text(cut.bytes),
            crate::mtls::format_time(cut.began)
        ))
    }
}

/// The file at `path` (links followed), `None` without one.
fn state_of(path: &Path) -> Option<FileState> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(path).ok()?;
    Some(FileState {
        size: meta.len(),
        modified: meta.modified().ok()?,
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

fn nanos(t: SystemTime) -> u128 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

fn from_nanos(n: u128) -> SystemTime {
    UNIX_EPOCH + Duration::new((n / 1_000_000_000) as u64, (n % 1_000_000_000) as u32)
}

/// A note: `bytes began_ns` on the first line, then the state the cut left (`size mtime_ns dev
/// inode`, `none` without a file) once found, then the path on the last line (a path holds no NUL, may
/// hold a new line: it is the rest of the note).
fn format_note(
    path: &Path,
    bytes: u64,
    began: SystemTime,
    left: Option<Option<FileState>>,
) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let left = match left {
        None => "-".to_owned(),
        Some(None) => "none".to_owned(),
        Some(Some(state)) => format!(
            "{} {} {} {}",
            state.size,
            nanos(state.modified),
            state.dev,
            state.ino
        ),
    };
    let mut text = format!("{bytes} {}\n{left}\n", nanos(began)).into_bytes();
    text.extend_from_slice(path.as_os_str().as_bytes());
    text
}

#[allow(clippy::type_complexity)]
fn parse(text: &str) -> Option<(PathBuf, u64, SystemTime, Option<Option<FileState>>)> {
    let mut lines = text.splitn(3, '\n');
    let (bytes, began) = lines.next()?.split_once(' ')?;
    let left = match lines.next()? {
        "-" => None,
        "none" => Some(None),
        state => {
            let mut fields = state.split(' ');
            let mut next = || fields.next()?.parse::<u128>().ok();
            let (size, modified, dev, ino) = (next()?, next()?, next()?, next()?);
            Some(Some(FileState {
                size: u64::try_from(size).ok()?,
                modified: from_nanos(modified),
                dev: u64::try_from(dev).ok()?,
                ino: u64::try_from(ino).ok()?,
            }))
        }
    };
    let path = PathBuf::from(lines.next()?);
    Some((
        path,
        bytes.parse().ok()?,
        from_nanos(began.parse().ok()?),
        left,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_write_is_told_once_then_forgotten() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        fs::write(&file, "").unwrap();
        let dir = tmp.path().join("journal");
        let journal = Journal::open(&dir).unwrap();
        let _cut = journal.begin(&file, 4 << 20); // never done: the ratd "ends"
        let finished = journal.begin(&tmp.path().join("g"), 1);
        journal.done(finished);
        drop(journal);

        let journal = Journal::open(&dir).unwrap();
        assert_eq!(journal.told(&tmp.path().join("g")), None);
        let told = journal.told(&file).expect("told");
        assert!(
            told.starts_with("A write_file of 4 MiB to this file was cut short at "),
            "{told}"
        );
        assert_eq!(journal.told(&file), None, "told once");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
    }

    #[test]
    fn a_cut_write_lapses_once_the_file_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        fs::write(&file, "").unwrap();
        let dir = tmp.path().join("journal");
        let journal = Journal::open(&dir).unwrap();
        let _cut = journal.begin(&file, 10);
        // Restarted: the cut is found, and what it left recorded.
        let journal = Journal::open(&dir).unwrap();
        fs::write(&file, "written by someone else\n").unwrap();
        assert_eq!(journal.told(&file), None);
        // A restart after the change does not bring it back.
        let journal = Journal::open(&dir).unwrap();
        assert_eq!(journal.told(&file), None);
    }

    /// A write cut through one name of a file, and the journal asked with another.
    fn told_through(written: &Path, read: &Path, journal_dir: &Path) -> Option<String> {
        let journal = Journal::open(journal_dir).unwrap();
        let _cut = journal.begin(written, 10);
        let journal = Journal::open(journal_dir).unwrap();
        journal.told(read)
    }

    #[test]
    fn a_cut_write_is_told_through_any_name_of_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("dir");
        fs::create_dir(&dir).unwrap();
        let file = dir.join("f");
        fs::write(&file, "").unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let dir_link = tmp.path().join("dir-link");
        std::os::unix::fs::symlink(&dir, &dir_link).unwrap();
        let hard = tmp.path().join("hard");
        fs::hard_link(&file, &hard).unwrap();
        let names = [file.clone(), link, dir_link.join("f"), hard];
        for (i, written) in names.iter().enumerate() {
            for (j, read) in names.iter().enumerate() {
                let journal_dir = tmp.path().join(format!("journal-{i}-{j}"));
                let told = told_through(written, read, &journal_dir);
                assert!(
                    told.is_some_and(|told| told.starts_with("A write_file of 10 B")),
                    "written through {written:?}, read through {read:?}"
                );
                assert_eq!(fs::read_dir(&journal_dir).unwrap().count(), 0);
            }
        }
        // Another file is not told.
        let other = tmp.path().join("other");
        fs::write(&other, "").unwrap();
        assert_eq!(told_through(&file, &other, &tmp.path().join("j")), None);
    }
}
