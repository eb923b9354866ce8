//! What the file tool tests share: calls through the public API with the call's time of ratd (10
//! s), a transcript of results for snapshots (temporary directories and home shown as `[DIR]` and
//! `~`), files with a fixed modification time, tmpfs mounts unmounted on drop.
#![allow(dead_code, unreachable_pub)]

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use rat_core::files::{ReadFile, WriteFile, read_file, write_file};
use rat_core::result::{Outcome, ReadBudget, ToolResult};

/// The time of a tool call in ratd.
pub const CALL: Duration = Duration::from_secs(10);

/// 3 hours 30 minutes: a modification that long ago reads "modified 3h ago" for half an hour,
/// whatever the speed of the test.
pub const AGO: Duration = Duration::from_secs(3 * 3600 + 1800);

pub async fn write(path: &str, content: &str) -> ToolResult {
    write_file(
        WriteFile {
            path: path.to_owned(),
            content: content.to_owned(),
        },
        CALL,
    )
    .await
}

pub async fn read(path: &str) -> ToolResult {
    read_range(path, None, None, None).await
}

pub async fn read_range(
    path: &str,
    start_line: Option<i64>,
    max_lines: Option<u64>,
    line_numbers: Option<bool>,
) -> ToolResult {
    read_file(
        ReadFile {
            path: path.to_owned(),
            start_line,
            max_lines,
            line_numbers,
        },
        ReadBudget::DEFAULT,
        CALL,
    )
    .await
}

/// `result` as a test shows it: its outcome (with the cause logged), its log facts, its text.
pub fn shown(result: &ToolResult) -> String {
    let outcome = match &result.outcome {
        Outcome::Ok => "ok".to_owned(),
        Outcome::Message => "message".to_owned(),
        Outcome::Refused { cause } => format!("refused ({cause})"),
        Outcome::Failed { cause } => format!("failed ({cause})"),
    };
    let facts: Vec<String> = result
        .log
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect();
    format!("{outcome} {}\n{}", facts.join(" "), result.text)
}

/// A transcript of calls, for one snapshot: each call, then what it returned.
pub struct Transcript {
    dir: PathBuf,
    text: String,
}

impl Transcript {
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            text: String::new(),
        }
    }

    pub fn add(&mut self, call: &str, result: &ToolResult) {
        self.text += &format!("> {call}\n{}\n\n", shown(result));
    }

    pub fn note(&mut self, note: &str) {
        self.text += &format!("# {note}\n\n");
    }

    /// The transcript, with the temporary directory and the home directory hidden.
    pub fn finish(self) -> String {
        let home = std::env::home_dir().unwrap().display().to_string();
        let mut text = self.text.replace(&self.dir.display().to_string(), "[DIR]");
        // the home directory where a path starts
        for before in [" ", "[", "="] {
            text = text.replace(&format!("{before}{home}/"), &format!("{before}~/"));
        }
        text
    }
}

/// A temporary directory anyone can enter (tempfile makes them 0700), for tests running a call as
/// another user.
pub fn open_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    set_mode(dir.path(), 0o755);
    dir
}

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// The umask of this process, read without changing it (/proc/self/status).
pub fn umask() -> u32 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line.split_whitespace().nth(1).unwrap(), 8).unwrap()
}

/// Writes `content` to `path`, modified [`AGO`].
pub fn file(path: &Path, content: impl AsRef<[u8]>) -> String {
    fs::write(path, content).unwrap();
    age(path);
    path.display().to_string()
}

/// Sets the modification of `path` to [`AGO`].
pub fn age(path: &Path) {
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - AGO)
        .unwrap();
}

/// A tmpfs mounted on a directory, unmounted (lazily) on drop, even when the test fails.
pub struct Tmpfs {
    pub path: PathBuf,
}

impl Tmpfs {
    /// Mounts a tmpfs with `options` (`ro`, `size=64k`) on `path`, created if needed.
    pub fn mount(path: &Path, options: &str) -> Self {
        fs::create_dir_all(path).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "rat-files-test"])
            .arg(path)
            .status()
            .expect("mount runs");
        assert!(
            status.success(),
            "mount -t tmpfs -o {options} {path:?} (needs root)"
        );
        Self {
            path: path.to_path_buf(),
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.path).status();
    }
}
