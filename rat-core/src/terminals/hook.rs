//! rat's prompt hook: how each terminal's bash reports to ratd, at each prompt, that the input sent
//! to it was read and its command finished, and how that command exited. The design and the
//! alternatives weighed are in `docs/design/prompts.md`; in short:
//!
//! - **Start-up.** tmux runs `bash --rcfile RC -i` in each pane (its `default-command`): RC,
//!   written here, reads the files a login shell reads (`/etc/profile`, then the first of
//!   `~/.bash_profile`, `~/.bash_login`, `~/.profile`), THEN installs the hook first in
//!   `PROMPT_COMMAND`, so that no startup file can replace it or run before it (direnv, zoxide,
//!   pyenv-virtualenv, liquidprompt, powerline, `PROMPT_COMMAND='history -a; history -n'`).
//! - **First, at every prompt.** The first statement of rat's entry takes `$?` and
//!   `PIPESTATUS` before anything else runs. bash 5.1+ runs the elements of a `PROMPT_COMMAND`
//!   array each with the user's statuses; in a string (or the element holding rat's entry), a
//!   hook put before rat's after start-up (bash-preexec does at its first prompt) makes that
//!   prompt's status unknown (said as such, never guessed), and the hook moves its entry back
//!   to the front for the next one. The hook returns the user's `$?`, so hooks after it see it.
//! - **Which input a prompt answers.** ratd numbers the inputs of each pane and writes, in a
//!   file of the pane, `STARTED REPLIED`: the input it is about to write to tmux, then the one
//!   tmux answered (its bytes then written to the pane). The hook reads that file, then checks
//!   that no byte waits on the terminal (`read -t 0`): a prompt covers the inputs tmux had
//!   answered when the hook read the file, and none after (a later one would still wait unread).
//!   While an input is in flight (`STARTED` > `REPLIED`), the hook waits for tmux's answer, half
//!   a second at most; past that, it says what it saw, and ratd settles it (see
//!   [`Record::seen`]). A prompt while a line waits to be read is not recorded: bash runs that
//!   line next.
//! - **Kept.** `PS0` (shown before each command runs) gets a piece of rat's appended at each
//!   prompt: it notes `$!` before the command, and puts rat's entry back into a
//!   `PROMPT_COMMAND` left unset or empty (`unset PROMPT_COMMAND` typed in a terminal), for the
//!   prompt after the next command. Both are expansions: nothing printed, no process.
//! - **What the command did.** The command number (`\#`) shows whether a command ran since the
//!   last prompt (an empty line runs none: the status keeps its own time). A job started in the
//!   background (`sleep 3 &`) leaves `PIPESTATUS` as it was: `$!` changed across the command
//!   with `PIPESTATUS` unchanged, or `PIPESTATUS` disagreeing with `$?` (`! false`, `if false`,
//!   a failure under `pipefail`), report only `$?` (0 for a job started).
//! - **Reporting to ratd.** One line written with bash's builtin `printf` over the pane's file in
//!   the hook directory (`out/PANE`, replaced whole at each prompt: only the last prompt
//!   matters, so nothing accumulates): no process forked, no tmux client, and a regular file
//!   never blocks the prompt, ratd stopped (SIGSTOP) or gone. ratd watches the directory
//!   (inotify) and reads the file as soon as it is closed: waits are event-driven.
//!
//! - **Secret-named variables** (when ratd masks secrets): before the record, the variables
//!   whose names say secret (the rules' table, as bash globs: [`crate::secrets`]), listed with
//!   one `compgen` and written to `env/PANE` as `NAME=VALUE` entries ended by NULs, then `.`,
//!   only when they differ from the last prompt's (`__rat_sv` holds those): ratd reads them
//!   before it masks an answer about the pane (`docs/design/secrets.md`). Listed only where a
//!   variable could have changed: at the shell's first prompt, after a command that came from
//!   elsewhere than ratd's inputs, after an input whose text could set one (ratd's check,
//!   `variables`, written to `in/PANE`), or after one whose words name a function or alias.
//!
//! - **The prompt's mark.** Before its record, the hook prints the prompt's count as the pane's
//!   path (OSC 7, `ESC]7;rat:prompt:K ESC\\`, invisible): tmux reads a terminal's output on its
//!   own turns, so a wait woken by the record reads the rows once `#{pane_path}` shows that
//!   mark, after every byte the command printed (docs/design/output.md).
//! - **The command's marks** (OSC 133, as FinalTerm and VS Code's shell integration print
//!   them, with the shell's identity `rat=PID:K`, `$$` and the prompt's count): before the
//!   path, the end of the command typed at the prompt before (`D;STATUS`, or `D` alone after
//!   an empty line) and this prompt's start (`A`); from `PS0`, on stderr when it is the
//!   terminal, the start of the command's output (`C`). Invisible; the transcript takes a
//!   command's rows from between its `C` and `D` (docs/design/output.md).
//!
//! Nothing else is printed but `ESC[?2004h` (bracketed paste announced, as readline would).
//! `${VAR-}` everywhere, so that `set -u` in a startup file breaks nothing; the entry calls
//! the hook as `__rat_hook && :`, where bash ignores errexit for the whole function, so that
//! `set -e` typed in a terminal never ends the shell at a prompt (the hook's short waits time
//! out with a status of 142, and the hook returns the user's `$?`, non-zero after `! true`).

pub(crate) mod variables;

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The bash start-up file of the terminals, `@DIR@` standing for the hook directory (quoted),
/// `@SECRETS@` for whether the hook hands over secret-named variables, `@GATE@` and `@CASES@`
/// for the globs of the names that say secret.
const RC: &str = include_str!("hook/rc.bash");

/// The start-up file of the terminals for the hook directory `dir` (see the module's doc for
/// what it does, and `HookDir` for what the directory holds), its hook handing ratd the
/// values of secret-named variables. Public for the benchmarks, which time the hook alone.
pub fn rc(dir: &Path) -> String {
    rc_with(dir, true)
}

/// The start-up file, its hook handing ratd the values of secret-named variables or not (not
/// when ratd shows secrets: it has no use for them).
pub fn rc_with(dir: &Path, secrets: bool) -> String {
    let (gate, cases) = crate::secrets::bash_name_globs();
    RC.replace("@DIR@", &shell_quote(&dir.to_string_lossy()))
        .replace("@SECRETS@", if secrets { "1" } else { "" })
        .replace("@GATE@", &gate)
        .replace("@CASES@", &cases)
}

/// How a terminal's last command exited, as the hook recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// No command since bash started (its first prompt follows its startup files).
    Started,
    /// The statuses of its pipeline, left to right (one for a single command, or where
    /// `PIPESTATUS` could not be trusted: a job started in the background, `! cmd`, `if`).
    Statuses(Vec<i32>),
    /// Not known: a hook of another program ran before rat's at that prompt.
    Unknown,
}

/// bash's current job at a prompt whose command's status was 128 + a stop signal, as the hook
/// noted it (`jobs -l %+`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    /// bash's number of the job (`%N`).
    pub number: u32,
    /// The process `jobs -l` gives first for it.
    pub pid: u32,
    /// Whether bash had more jobs than at the prompt before (`\j`): the command added one,
    /// unless a job was reaped at that prompt. Not so after `fg` (the job was there before),
    /// nor after `(exit 148)` with an older job stopped.
    pub more: bool,
    /// When the prompt before was shown, in hundredths of a second since boot (`/proc/uptime`,
    /// as `/proc/PID/stat` shows a process's start): a job whose process started in a later
    /// hundredth was started by this prompt's command. `None` from a shell's first prompt.
    pub prompt_before: Option<u64>,
}

/// One prompt, as the hook wrote it: `R PANE COVERS TIME EXIT_TIME EXIT SEEN RAN MARK PS1_LEN
/// SHELL JOB E` (the final `E` tells a whole line apart from one read while bash was writing it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The pane's number (`%3` is 3).
    pub pane: u32,
    /// The inputs this prompt answers: every input numbered up to this one was read.
    pub covers: u64,
    /// When bash showed the prompt, Unix seconds.
    pub time: i64,
    /// When the last command ended (the prompt after it), Unix seconds.
    pub exit_time: i64,
    /// How it exited.
    pub exit: Exit,
    /// The last input the hook saw started: more than `covers` when one was still in flight
    /// (tmux's answer not recorded by ratd within the hook's wait).
    pub seen: u64,
    /// Whether a command ran since the prompt before (the command number changed).
    pub ran: bool,
    /// The prompt's mark: the hook's count of prompts, printed to the terminal as the pane's
    /// path (OSC 7, `rat:prompt:K`, read as `#{pane_path}`) before this record was written, so
    /// after every byte the command printed. `None` when not printed (bash's output not a
    /// terminal) or written by an earlier hook without marks.
    pub mark: Option<u64>,
    /// The length of `PS1` (unexpanded) when the hook ran: another length at the next prompt
    /// shows a prompt changed. `None` from an earlier hook.
    pub ps1_len: Option<u64>,
    /// The process of the bash that wrote it (`$$`): a bash started inside the pane's shell
    /// writes the same pane's record, with command numbers of its own. `None` from an earlier
    /// hook.
    pub shell: Option<u32>,
    /// When the command's status was 128 + a stop signal: bash's current job then,
    /// `N:PID:MORE:BEFORE` in the line. `None` otherwise.
    pub job: Option<Job>,
}

impl Record {
    /// Parses one line of the FIFO; `None` for anything rat's hook does not write.
    pub fn parse(line: &str) -> Option<Record> {
        let mut fields = line.split(' ');
        if fields.next()? != "R" {
            return None;
        }
        let pane = fields.next()?.parse().ok()?;
        let covers = fields.next()?.parse().ok()?;
        let time = fields.next()?.parse().ok()?;
        let exit_time = fields.next()?.parse().ok()?;
        let exit = match fields.next()? {
            "-" => Exit::Started,
            "?" => Exit::Unknown,
            list => Exit::Statuses(
                list.split(',')
                    .map(|s| s.parse().ok())
                    .collect::<Option<Vec<i32>>>()
                    .filter(|l| !l.is_empty())?,
            ),
        };
        let seen = fields.next()?.parse().ok()?;
        let ran = match fields.next()? {
            "0" => false,
            "1" => true,
            _ => return None,
        };
        // The mark, before `E` (a hook written by an earlier ratd, still running in a tmux
        // server that outlived it, writes none).
        let rest: Vec<&str> = fields.collect();
        let (last, extra) = rest.split_last()?;
        if *last != "E" || extra.len() > 4 {
            return None;
        }
        let mark = match extra.first() {
            None | Some(&"-") => None,
            Some(k) => Some(k.parse().ok()?),
        };
        let ps1_len = match extra.get(1) {
            None => None,
            Some(n) => Some(n.parse().ok()?),
        };
        let shell = match extra.get(2) {
            None => None,
            Some(n) => Some(n.parse().ok()?),
        };
        let job = match extra.get(3) {
            None | Some(&"-") => None,
            Some(j) => {
                let mut parts = j.split(':');
                let job = Job {
                    number: parts.next()?.parse().ok()?,
                    pid: parts.next()?.parse().ok()?,
                    more: match parts.next()? {
                        "0" => false,
                        "1" => true,
                        _ => return None,
                    },
                    prompt_before: match parts.next()? {
                        "-" => None,
                        t => Some(hundredths(t)?),
                    },
                };
                if parts.next().is_some() {
                    return None;
                }
                Some(job)
            }
        };
        Some(Record {
            pane,
            covers,
            time,
            exit_time,
            exit,
            seen,
            ran,
            mark,
            ps1_len,
            shell,
            job,
        })
    }
}

/// `/proc/uptime`'s first field (`12345.67`) in hundredths of a second.
fn hundredths(time: &str) -> Option<u64> {
    let (seconds, fraction) = time.split_once('.')?;
    if fraction.len() != 2 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(seconds.parse::<u64>().ok()? * 100 + fraction.parse::<u64>().ok()?)
}

/// The hook's private directory (mode 0700, removed on drop): `rc`, `out/PANE` (each pane's
/// last prompt, written by its hook, read by ratd), `in/PANE` (each pane's `STARTED REPLIED`
/// input numbers, written by ratd, read by the hook), `env/PANE` (the values of the pane's
/// secret-named variables, written by its hook when they change, read by ratd before it masks
/// an answer about the pane; never read by the inotify watch on `out/`, whose lines may be
/// logged), and the FIFO `sleep` (the hook's short waits, without a process: ratd writes a new
/// line to it when it records an input answered, which ends a wait at once).
#[derive(Debug)]
pub(crate) struct HookDir {
    path: PathBuf,
}

impl HookDir {
    /// Creates it in memory: under `$XDG_RUNTIME_DIR` (a tmpfs on systemd machines), else
    /// `/dev/shm`, else the system's temporary directory. On a disk file system, replacing the
    /// record at each prompt costs bash about ten times more (ext4 flushes a file truncated and
    /// written again when it is closed: measured 1.1 ms against 0.1 ms on tmpfs). `secrets`:
    /// the hook hands over the values of secret-named variables (`env/PANE`).
    pub(crate) fn create(secrets: bool) -> std::io::Result<HookDir> {
        let mut parents: Vec<PathBuf> = std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .into_iter()
            .collect();
        parents.push(PathBuf::from("/dev/shm"));
        parents.push(std::env::temp_dir());
        let mut last = None;
        for parent in parents.iter().filter(|p| p.is_dir()) {
            match Self::create_in(parent, secrets) {
                Ok(dir) => return Ok(dir),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no directory to create it in")))
    }

    fn create_in(parent: &Path, secrets: bool) -> std::io::Result<HookDir> {
        sweep_dead(parent);
        let dir = HookDir {
            path: tmux_cc::create_private_dir(parent, PREFIX)?,
        };
        dir.fill(secrets)?;
        Ok(dir)
    }

    fn fill(&self, secrets: bool) -> std::io::Result<()> {
        nix::unistd::mkfifo(&self.path.join("sleep"), nix::sys::stat::Mode::S_IRWXU)
            .map_err(std::io::Error::from)?;
        for dir in ["in", "out", "env"] {
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(self.path.join(dir))?;
        }
        write_private(&self.rc_path(), rc_with(&self.path, secrets).as_bytes())
    }

    /// The start-up file.
    pub(crate) fn rc_path(&self) -> PathBuf {
        self.path.join("rc")
    }

    /// The directory of the hook's records, one file a pane.
    pub(crate) fn out_path(&self) -> PathBuf {
        self.path.join("out")
    }

    /// The file where pane `pane`'s hook hands over the values of its shell's secret-named
    /// variables (see [`crate::secrets::Vault::learn_handed`]).
    pub(crate) fn secrets_path(&self, pane: u32) -> PathBuf {
        self.path.join("env").join(pane.to_string())
    }

    /// Records pane `pane`'s input numbers, replacing the file whole (a rename), so that the
    /// hook never reads half of it: `STARTED REPLIED ASSIGNS WORD...`, where `ASSIGNS` is the
    /// last input that could set a shell variable and the words are those of the later inputs,
    /// which set none unless one names a function or alias (see [`variables`]): the hook lists
    /// the shell's secret-named variables only when one of the inputs it answers could.
    pub(crate) fn write_inputs(&self, pane: u32, inputs: &Inputs) -> std::io::Result<()> {
        let path = self.path.join("in").join(pane.to_string());
        let tmp = self.path.join("in").join(format!(".{pane}"));
        let mut line = format!("{} {} {}", inputs.started, inputs.replied, inputs.assigns);
        for word in &inputs.words {
            line.push(' ');
            line.push_str(word);
        }
        line.push('\n');
        write_private(&tmp, line.as_bytes())?;
        std::fs::rename(&tmp, &path)?;
        if inputs.started == inputs.replied {
            self.wake_waiting_hook();
        }
        Ok(())
    }
}

impl HookDir {
    /// Ends the short wait of a hook waiting for an input's answer (`in/PANE` just written):
    /// without it, a hook that read the file a moment before ratd wrote it sleeps its 10 ms
    /// out, a third of the short commands in the peer bench's W2. The FIFO is opened, written
    /// and closed without blocking: with no hook holding it open, the byte goes with the close,
    /// so none is left for a later wait. With several hooks waiting, one wakes, the others
    /// wait their 10 ms as before.
    fn wake_waiting_hook(&self) {
        if let Ok(mut fifo) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(self.path.join("sleep"))
        {
            let _ = fifo.write(b"\n");
        }
    }
}

/// What ratd writes to a pane's `in/PANE` for its hook (see [`HookDir::write_inputs`]).
pub(crate) struct Inputs {
    /// The input about to be written to tmux, or the last one written.
    pub started: u64,
    /// The last input tmux answered.
    pub replied: u64,
    /// The last input that could set a variable of the shell.
    pub assigns: u64,
    /// The words of the inputs after it, each to be checked for a function or alias.
    pub words: Vec<String>,
}

/// The prefix of the hook directories: `rat-hook-PID-N-NANOS`.
const PREFIX: &str = "rat-hook";

/// Removes the hook directories of processes that died without removing theirs (ratd killed
/// with SIGKILL): in memory, they would stay until the machine restarts. Whole, files and
/// all: a hook directory is never empty.
fn sweep_dead(parent: &Path) {
    for dir in tmux_cc::dead_process_dirs(parent, PREFIX) {
        let _ = std::fs::remove_dir_all(dir);
    }
}

impl Drop for HookDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

fn write_private(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(data)
}

/// `s` in single quotes for bash.
pub(crate) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The version `bash --version` states on its first line (`GNU bash, version 5.2.15(1)-release
/// ...`): `(major, minor)` and the version as written. Read from `--version` rather than from a
/// script printing `BASH_VERSINFO`, which would run the file named by `BASH_ENV`.
pub(crate) fn parse_bash_version(said: &str) -> Option<((u32, u32), String)> {
    let first = said.lines().next()?;
    let rest = &first[first.find("version ")? + "version ".len()..];
    let version: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    let mut numbers = version.split(|c: char| !c.is_ascii_digit());
    let major = numbers.next()?.parse().ok()?;
    let minor = numbers.next()?.parse().ok()?;
    Some(((major, minor), version))
}

#[cfg(test)]
mod tests;
