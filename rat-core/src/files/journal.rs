//! The writes in progress, noted so that a write cut by the end of ratd (killed: SIGKILL, the
//! kernel's OOM killer) is reported after a restart rather than lost unreported (`docs/design/files.md`,
//! Writes cut short).
//!
//! A write_file notes itself before it truncates the file (a slot of the journal's file: the
//! path, the size of the content, when it began) and clears the note once done, failed or not
//! (a failure is reported by its own error). Notes left by a ratd that ended are read when the next
//! starts: each is reported by the first read_file or write_file of its path, then removed. It lapses
//! (removed unreported) once the file's size or modification time is no longer what the cut left,
//! as the file was written by something else meanwhile. A path names the file the cut left by
//! its name as given or by any other (a symbolic link, a hard link, the link's target): what
//! the cut left holds the file's device and inode, which every name of it shares. The crash
//! model is ratd ending, not the machine: nothing is synced to disk.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The journal of one tenant's writes: a directory of its own. The writes in progress of a
/// ratd are slots of one file of it (`slots-PID-N`), opened once: a note is written in a free
/// slot with `pwrite` and cleared the same way, so that noting a write creates and removes no
/// file (that cost 0.1 ms a write: docs/benchmarks.md). The next ratd turns the slots left
/// filled into a note file each (`cut-PID-N`), which the cut keeps until reported or lapsed.
#[derive(Debug)]
pub struct Journal {
    dir: PathBuf,
    next: AtomicU64,
    /// The slots file of this ratd, opened at the first note (`None` until then, or when it
    /// can not be), and which of its slots are taken.
    slots: Mutex<Option<Slots>>,
    /// The writes a former ratd left cut, by path, until reported or lapsed.
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

/// What a cut left: the file's size and modification time (a change shows that something
/// wrote it since), its device and inode (the file whatever its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileState {
    size: u64,
    modified: SystemTime,
    dev: u64,
    ino: u64,
}

/// A write in progress, noted in a slot: cleared by [`Journal::done`].
#[derive(Debug)]
pub struct Noted(Option<usize>);

/// The slots file of a ratd.
#[derive(Debug)]
struct Slots {
    file: fs::File,
    /// Whether each slot holds a write in progress.
    taken: Vec<bool>,
}

/// The size of a slot: the length of the note (8 bytes, little endian; 0 for a free slot),
/// then the note. A path is at most 4096 bytes (`PATH_MAX`), the rest of a note under 100.
const SLOT: usize = 8192;

/// The notes held in the slots of `bytes` (a slots file), the free slots skipped.
fn slot_notes(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .chunks(SLOT)
        .filter_map(|slot| {
            let length = u64::from_le_bytes(slot.get(..8)?.try_into().ok()?);
            slot.get(8..8 + usize::try_from(length).ok()?)
                .filter(|note| !note.is_empty())
        })
        .collect()
}

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
        // The slots a former ratd left filled: a note file each, as the cuts they are.
        let mut converted = 0u64;
        for entry in fs::read_dir(dir)? {
            let slots = entry?.path();
            if !slots
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("slots-"))
            {
                continue;
            }
            if let Ok(bytes) = fs::read(&slots) {
                for note in slot_notes(&bytes) {
                    let name = format!("cut-{}-{converted}", std::process::id());
                    converted += 1;
                    fs::write(dir.join(name), note)?;
                }
            }
            fs::remove_file(&slots)?;
        }
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
            slots: Mutex::new(None),
            cut: Mutex::new(cut),
        })
    }

    /// Notes a write of `bytes` to `path` beginning now. A note that can not be written is
    /// no reason to refuse the write: it is then not noted.
    pub fn begin(&self, path: &Path, bytes: u64) -> Noted {
        use std::os::unix::fs::FileExt;
        let text = format_note(path, bytes, SystemTime::now(), None);
        if text.len() > SLOT - 8 {
            return Noted(None);
        }
        let mut slot = Vec::with_capacity(8 + text.len());
        slot.extend_from_slice(&(text.len() as u64).to_le_bytes());
        slot.extend_from_slice(&text);
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if slots.is_none() {
            let name = format!(
                "slots-{}-{}",
                std::process::id(),
                self.next.fetch_add(1, Ordering::Relaxed)
            );
            *slots = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(self.dir.join(name))
                .ok()
                .map(|file| Slots {
                    file,
                    taken: Vec::new(),
                });
        }
        let Some(slots) = slots.as_mut() else {
            return Noted(None);
        };
        let index = match slots.taken.iter().position(|taken| !taken) {
            Some(index) => index,
            None => {
                slots.taken.push(false);
                slots.taken.len() - 1
            }
        };
        if slots
            .file
            .write_all_at(&slot, (index * SLOT) as u64)
            .is_err()
        {
            return Noted(None);
        }
        slots.taken[index] = true;
        Noted(Some(index))
    }

    /// The write of `noted` ended: its slot is cleared.
    pub fn done(&self, noted: Noted) {
        use std::os::unix::fs::FileExt;
        let Some(index) = noted.0 else {
            return;
        };
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(slots) = slots.as_mut() {
            let _ = slots.file.write_all_at(&[0u8; 8], (index * SLOT) as u64);
            slots.taken[index] = false;
        }
    }

    /// The sentence reporting a write a former ratd left cut at `path`, once: the note goes with
    /// it, and a note whose file changed since the cut goes unreported. `path` names the file by
    /// the name the write was given or by any other (a link to it, its target): matched by the
    /// file's device and inode. `None` for every other path.
    pub fn take_note(&self, path: &Path) -> Option<String> {
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
        Some(super::text::write_cut_short(
            cut.bytes,
            &rat_wire::mtls::format_time(cut.began),
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
    fn a_cut_write_is_reported_once_then_forgotten() {
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
        assert_eq!(journal.take_note(&tmp.path().join("g")), None);
        let note = journal.take_note(&file).expect("note");
        assert!(
            note.starts_with("A write_file of 4 MiB to this file was cut short at "),
            "{note}"
        );
        assert_eq!(journal.take_note(&file), None, "reported once");
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
        assert_eq!(journal.take_note(&file), None);
        // A restart after the change does not bring it back.
        let journal = Journal::open(&dir).unwrap();
        assert_eq!(journal.take_note(&file), None);
    }

    #[test]
    fn writes_in_progress_at_once_take_a_slot_each_and_free_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("journal");
        let journal = Journal::open(&dir).unwrap();
        let names: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("f{i}"))).collect();
        let notes: Vec<Noted> = names.iter().map(|n| journal.begin(n, 10)).collect();
        let [first, second, third] = <[Noted; 3]>::try_from(notes).unwrap();
        journal.done(second);
        // The freed slot is taken again: the slots file holds three slots.
        let again = journal.begin(&names[1], 20);
        journal.done(first);
        let slots: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(slots.len(), 1);
        let length = fs::metadata(&slots[0]).unwrap().len();
        assert!(
            length > 2 * SLOT as u64 && length < 3 * SLOT as u64,
            "{length}"
        );
        // `third` and `again` never done: the ratd "ends".
        let _ = (third, again);
        let journal = Journal::open(&dir).unwrap();
        assert_eq!(journal.take_note(&names[0]), None);
        assert!(
            journal
                .take_note(&names[1])
                .unwrap()
                .starts_with("A write_file of 20 B")
        );
        assert!(
            journal
                .take_note(&names[2])
                .unwrap()
                .starts_with("A write_file of 10 B")
        );
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
    }

    /// A write cut through one name of a file, and the journal asked with another.
    fn note_through(written: &Path, read: &Path, journal_dir: &Path) -> Option<String> {
        let journal = Journal::open(journal_dir).unwrap();
        let _cut = journal.begin(written, 10);
        let journal = Journal::open(journal_dir).unwrap();
        journal.take_note(read)
    }

    #[test]
    fn a_cut_write_is_reported_through_any_name_of_the_file() {
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
                let note = note_through(written, read, &journal_dir);
                assert!(
                    note.is_some_and(|note| note.starts_with("A write_file of 10 B")),
                    "written through {written:?}, read through {read:?}"
                );
                assert_eq!(fs::read_dir(&journal_dir).unwrap().count(), 0);
            }
        }
        // Another file is not reported.
        let other = tmp.path().join("other");
        fs::write(&other, "").unwrap();
        assert_eq!(note_through(&file, &other, &tmp.path().join("j")), None);
    }
}
