//! The foreground process of a pane, read from `/proc` where tmux's description of it is not
//! exact.
//!
//! tmux names a pane's command from the first word of the foreground process group leader's
//! `argv[0]` (names.c, `parse_window_name`): the name is cut at its first space and at a double
//! quote, loses its trailing non-ASCII characters, and a relative path stays as typed, so a
//! program `~/my prog|x` run as `"../my prog|x"` shows as `../my`, and `café` as `caf`; from tmux 3.7 the name is also escaped (a backslash doubled, a name
//! holding a control character empty: tmux-cc's `Difference::NamesCleaned`). Where tmux's name
//! is such a cut, the process's own name is reported instead:
//! the last component of its `argv[0]`, or the kernel's name of it (`comm`) when `argv[0]` was
//! set to something else. Directories are read from the same process (`/proc/PID/cwd`, then the
//! pane's shell, as tmux does) and shown with their control characters escaped (`\x01`, `\t`):
//! a path never loses a character, so it never names another directory. A job whose group
//! leader ended while the rest runs (`seq 1 1000 | less`) is named by tmux as bash, the pane's
//! shell: it is named here by its last live process (`job_without_leader`).

use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use tmux_cc::Features;

use super::window::WindowDescription;

/// What `/proc/PID/stat` shows of a process, of what rat reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stat {
    /// Its name as the kernel keeps it (`comm`, at most 15 bytes).
    pub comm: Vec<u8>,
    /// Its state (`R`, `S`, `Z` for a zombie...).
    pub state: u8,
    /// Its parent.
    pub ppid: u32,
    /// Its process group (a pipeline's processes share one, led by its first).
    pub pgrp: u32,
    /// Its session: the pid of the session leader (a pane's shell leads the pane's).
    pub session: u32,
    /// The foreground process group of its controlling terminal, if it has one.
    pub tpgid: Option<u32>,
    /// When it started, in clock ticks since boot: a pid reused by another process is told apart by it.
    pub start: u64,
}

/// Parses `/proc/PID/stat`. The name (field 2) is in parentheses and may hold anything,
/// parentheses and spaces included: the fields after it follow its last `)`.
pub(crate) fn parse_stat(stat: &[u8]) -> Option<Stat> {
    let open = stat.iter().position(|&b| b == b'(')?;
    let close = stat.iter().rposition(|&b| b == b')')?;
    let comm = stat.get(open + 1..close)?.to_vec();
    let fields: Vec<&[u8]> = stat[close + 1..]
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
        .collect();
    // From field 3: state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt, cminflt,
    // majflt, cmajflt, utime, stime, cutime, cstime, priority, nice, num_threads,
    // itrealvalue, starttime (field 22).
    let number =
        |i: usize| -> Option<i64> { std::str::from_utf8(fields.get(i)?).ok()?.parse().ok() };
    Some(Stat {
        comm,
        state: *fields.first()?.first()?,
        ppid: u32::try_from(number(1)?).ok()?,
        pgrp: u32::try_from(number(2)?).ok()?,
        session: u32::try_from(number(3)?).ok()?,
        tpgid: u32::try_from(number(5)?).ok().filter(|&p| p > 0),
        start: u64::try_from(number(19)?).ok()?,
    })
}

/// `/proc/PID/stat` of `pid`, parsed; `None` when it ended.
pub(crate) fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read(format!("/proc/{pid}/stat")).ok()?)
}

/// The foreground process group of the terminal of `pane_pid` (the pane's shell), as
/// `tcgetpgrp` on the pane would show it.
pub(crate) fn foreground_group(pane_pid: u32) -> Option<u32> {
    stat(pane_pid)?.tpgid
}

/// tmux 3.3a's name for `argv[0]` (names.c, `parse_window_name`): a leading `"` skipped and
/// the name ended at the next one, a leading `exec ` dropped, leading spaces and dashes (a login
/// shell's `-bash`) skipped, the name cut at its first space, trailing characters that are
/// neither ASCII alphanumeric nor punctuation removed (a final `é` goes), and the last
/// component taken for an absolute path.
fn tmux_name(argv0: &[u8]) -> &[u8] {
    let mut name = argv0;
    if name.first() == Some(&b'"') {
        name = &name[1..];
    }
    if let Some(quote) = name.iter().position(|&b| b == b'"') {
        name = &name[..quote];
    }
    if let Some(rest) = name.strip_prefix(b"exec ") {
        name = rest;
    }
    while let [b' ' | b'-', rest @ ..] = name {
        name = rest;
    }
    if let Some(space) = name.iter().position(|&b| b == b' ') {
        name = &name[..space];
    }
    while let [rest @ .., last] = name {
        if rest.is_empty() || last.is_ascii_alphanumeric() || last.is_ascii_punctuation() {
            break;
        }
        name = rest;
    }
    last_if_absolute(name)
}

/// `argv[0]` as tmux would name it if it cut nothing: a login shell's dashes skipped, the last
/// component taken for an absolute path.
fn uncut_name(argv0: &[u8]) -> &[u8] {
    let mut name = argv0;
    while let [b'-', rest @ ..] = name {
        name = rest;
    }
    last_if_absolute(name)
}

/// The last component of an absolute path, as tmux names one; a relative name as it is.
fn last_if_absolute(name: &[u8]) -> &[u8] {
    if name.first() == Some(&b'/') {
        last_component(name)
    } else {
        name
    }
}

fn last_component(path: &[u8]) -> &[u8] {
    let trimmed = match path.iter().rposition(|&b| b != b'/') {
        Some(end) => &path[..=end],
        None => return path,
    };
    match trimmed.iter().rposition(|&b| b == b'/') {
        Some(slash) => &trimmed[slash + 1..],
        None => trimmed,
    }
}

/// The exact name of the foreground command of the pane whose shell is `pane_pid`, when the
/// name tmux gave (`shown`, its `pane_current_command`) is a cut of it, or escaped (from tmux
/// 3.7: `features`); `None` when tmux's is whole, or when the process is not the one tmux
/// described (it changed meanwhile, or ended).
pub(crate) fn exact_command(pane_pid: u32, shown: &str, features: &Features) -> Option<String> {
    let group = foreground_group(pane_pid)?;
    let cmdline = std::fs::read(format!("/proc/{group}/cmdline")).ok()?;
    let argv0 = cmdline.split(|&b| b == 0).next().unwrap_or_default();
    let tmux = features.command_name(tmux_name(argv0));
    // The same process as tmux's, or tmux's name stays.
    if String::from_utf8_lossy(&tmux) != shown {
        return None;
    }
    if uncut_name(argv0) == tmux {
        return None;
    }
    process_name(argv0, &stat(group)?.comm)
}

/// A process's own name, escaped: the last component of its `argv[0]`, as typed, unless
/// `argv[0]` was set to another name than the program's: the kernel's name of the program
/// then (`comm`, at most 15 bytes). `None` when both are empty.
fn process_name(argv0: &[u8], comm: &[u8]) -> Option<String> {
    let base = last_component(uncut_name(argv0));
    let name = if !comm.is_empty() && base.starts_with(comm) {
        base
    } else {
        comm
    };
    (!name.is_empty()).then(|| escape(name))
}

/// Whether the terminal of the pane whose shell is `pane_pid` is read a key at a time
/// (canonical mode off: bash's line editor, or a full-screen program, is reading it); `None`
/// when it can not be known (the shell ended, its input is not a terminal).
pub(crate) fn reads_keys(pane_pid: u32) -> Option<bool> {
    use nix::fcntl::{OFlag, open};
    use nix::sys::stat::Mode;
    use nix::sys::termios::{LocalFlags, tcgetattr};
    let tty = std::fs::read_link(format!("/proc/{pane_pid}/fd/0")).ok()?;
    if !tty.starts_with("/dev/") {
        return None;
    }
    // Opened only to read its settings: never as a controlling terminal, never blocking.
    let fd = open(
        &tty,
        OFlag::O_RDONLY | OFlag::O_NOCTTY | OFlag::O_NONBLOCK | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let settings = tcgetattr(&fd).ok()?;
    Some(!settings.local_flags.contains(LocalFlags::ICANON))
}

/// Whether bash, in the foreground of the pane whose shell is `pane_pid` (the shell itself or
/// a script), waits for a line on the terminal: its `read` builtin (`read -p 'Continue? '`).
/// The terminal is in canonical mode (bash's line editor turns it off while it reads) and the
/// process sleeps in the terminal's read (`/proc/PID/wchan`: `wait_woken` or `n_tty_read`); a
/// script waiting for a command sleeps in `do_wait`, a loop of builtins runs.
pub(crate) fn reads_a_line(pane_pid: u32) -> bool {
    let Some(group) = foreground_group(pane_pid) else {
        return false;
    };
    let Some(leader) = stat(group) else {
        return false;
    };
    let wchan = std::fs::read_to_string(format!("/proc/{group}/wchan")).unwrap_or_default();
    leader.comm == b"bash"
        && leader.state == b'S'
        && matches!(wchan.trim(), "wait_woken" | "n_tty_read")
        && reads_keys(pane_pid) == Some(false)
}

/// The process of a bash started inside the pane's shell (`bash`, `bash -l`) by the last input
/// (it did not lead the terminal's foreground then: `at_input`), when it leads it now with its
/// line editor reading (canonical mode off): at its first prompt. `None` otherwise: the pane's
/// own shell, a script, a program, or a bash that led the terminal already (still to read the
/// input: its hook records the prompt after it).
pub(crate) fn inner_bash_at_prompt(pane_pid: u32, at_input: Option<u32>) -> Option<u32> {
    let group = foreground_group(pane_pid)?;
    let leader = stat(group)?;
    if group == pane_pid || Some(group) == at_input || leader.comm != b"bash" {
        return None;
    }
    // bash itself, not a fork of it about to run a pipeline's command: its command line names
    // bash, and it sleeps in its line editor's wait for a key (select), the terminal's
    // canonical mode off.
    let cmdline = std::fs::read(format!("/proc/{group}/cmdline")).ok()?;
    let argv0 = cmdline.split(|&b| b == 0).next().unwrap_or_default();
    let wchan = std::fs::read_to_string(format!("/proc/{group}/wchan")).unwrap_or_default();
    (uncut_name(argv0) == b"bash"
        && leader.state == b'S'
        && (wchan.starts_with("poll_schedule_timeout") || wchan.starts_with("do_select"))
        && reads_keys(pane_pid) == Some(true))
    .then_some(group)
}

/// Programs that show prompts of their own, beyond the reach of rat's hook: another user's
/// shell (`su`, `sudo -i`), a remote one (`ssh`), a container's, other shells, REPLs.
const OWN_PROMPTS: &[&str] = &[
    "su",
    "sudo",
    "ssh",
    "mosh-client",
    "telnet",
    "docker",
    "podman",
    "kubectl",
    "chroot",
    "machinectl",
    "nsenter",
    "sh",
    "dash",
    "zsh",
    "fish",
    "ksh",
    "python",
    "python3",
    "node",
    "irb",
    "psql",
    "mysql",
    "sqlite3",
    "gdb",
];

/// Whether `command`, in a pane's foreground, shows prompts of its own that rat's hook does
/// not reach (see [`OWN_PROMPTS`]).
pub(crate) fn runs_its_own_prompts(command: &str) -> bool {
    OWN_PROMPTS.contains(&command)
}

/// Whether the pane's shell is no longer the bash tmux started there (`exec bash -l` replaced
/// it: its command line lacks rat's `--rcfile`).
pub(crate) fn shell_replaced(pane_pid: u32) -> bool {
    std::fs::read(format!("/proc/{pane_pid}/cmdline"))
        .is_ok_and(|c| !c.split(|&b| b == 0).any(|arg| arg == b"--rcfile"))
}

/// The working directory of the pane's foreground process (`/proc/PID/cwd`, then the pane's
/// shell's, as tmux reads it), escaped; `None` when neither can be read.
pub(crate) fn exact_path(pane_pid: u32) -> Option<String> {
    let from = |pid: u32| std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
    let path: PathBuf = foreground_group(pane_pid)
        .and_then(from)
        .or_else(|| from(pane_pid))?;
    Some(escape(path.as_os_str().as_bytes()))
}

/// The name of a program in the foreground of the pane whose shell is `pane_pid` when tmux
/// names bash: a job whose group leader ended while the rest of it runs (`seq 1 1000 | less`
/// once `seq` is done, `true | sleep 5`). tmux names the foreground by its group's leader and,
/// finding none, names the pane's shell. `None` when bash is in the foreground (it leads its
/// own group) or no process of the group is left.
pub(crate) fn job_without_leader(pane_pid: u32) -> Option<String> {
    let group = foreground_group(pane_pid)?;
    // bash leads its own group; a live leader is the one tmux named.
    if group == pane_pid || stat(group).is_some_and(|leader| leader.state != b'Z') {
        return None;
    }
    // The last live process of the group: a pipeline's processes start left to right, and
    // its last one is what shows on the terminal.
    let (pid, member) = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .filter(|(_, s)| s.pgrp == group && s.state != b'Z')
        .max_by_key(|&(pid, _)| pid)?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let argv0 = cmdline.split(|&b| b == 0).next().unwrap_or_default();
    process_name(argv0, &member.comm)
}

/// The name of the program leading the terminal of the pane whose shell is `pane_pid`, when it
/// is neither that shell nor another bash (a script, a shell started inside): a program whose
/// keys send_text types a line as (docs/design/terminals.md, send_text). Named as tmux names
/// it, by its `argv[0]` (`vim`, not the `vim.basic` the kernel names), escaped; a job whose
/// leader ended by its last process, as [`job_without_leader`] does. `None` when a bash leads
/// the terminal, or it can not be known.
pub(crate) fn program_in_foreground(pane_pid: u32) -> Option<String> {
    let group = foreground_group(pane_pid)?;
    if group == pane_pid {
        return None;
    }
    let Some(leader) = stat(group).filter(|leader| leader.state != b'Z') else {
        return job_without_leader(pane_pid);
    };
    if leader.comm == b"bash" {
        return None;
    }
    let cmdline = std::fs::read(format!("/proc/{group}/cmdline")).unwrap_or_default();
    let name = tmux_name(cmdline.split(|&b| b == 0).next().unwrap_or_default());
    let name = if name.is_empty() { &leader.comm } else { name };
    (!name.is_empty()).then(|| escape(name))
}

/// A job bash holds stopped (C-z): its number, the name of its process, and whether the
/// command of the prompt stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StoppedJob {
    /// bash's number of the job (`%N`).
    pub number: u32,
    /// The name of the process `jobs -l` gave for it.
    pub name: String,
    /// The command added the job (C-z on a command started at that prompt); otherwise the job
    /// was there before (the command was `fg`, or exited 148 by itself).
    pub new: bool,
}

/// The job stopped at `prompt`: its command's status was 128 + a stop signal, the hook noted
/// bash's current job, and that job's process is stopped now (`T` in `/proc/PID/stat`), in
/// the session of the shell that wrote the record. The command added it when its process
/// started after the prompt before (the hook's `/proc/uptime` at it); bash's count of jobs,
/// which a job reaped at that prompt offsets, only where that is not known. `None` otherwise: a status of 148 alone is
/// not a stopped job, and a job resumed since (`bg`, `kill -CONT`) is not reported stopped.
pub(crate) fn stopped_job(prompt: &super::hook::Record) -> Option<StoppedJob> {
    let super::hook::Exit::Statuses(statuses) = &prompt.exit else {
        return None;
    };
    if !matches!(statuses.last(), Some(147..=150)) {
        return None;
    }
    let job = prompt.job?;
    let process = stat(job.pid)?;
    let shell = stat(prompt.shell?)?;
    if process.state != b'T' || process.session != shell.session {
        return None;
    }
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", job.pid)).ok()?;
    let argv0 = cmdline.split(|&b| b == 0).next().unwrap_or_default();
    // Started by the command: not in an earlier hundredth of a second than the prompt before
    // it (both since boot; process starts are given in clock ticks, 100 a second on Linux,
    // USER_HZ; both cut: a job stopped within 10 ms of its start, then a status of 148 at the
    // next prompt, would be taken for new), or, where that is not known, bash had more jobs than
    // at that prompt.
    let new = match job.prompt_before {
        Some(before) => process.start >= before,
        None => job.more,
    };
    Some(StoppedJob {
        number: job.number,
        name: process_name(argv0, &process.comm)?,
        new,
    })
}

/// `w` with its command and directory read from `/proc` where tmux's are not exact (see the
/// module doc); a window whose bash is still starting (no directory reported yet) is left as it is.
pub(crate) fn exact(mut w: WindowDescription, features: &Features) -> WindowDescription {
    if w.pane_pid == 0 || w.path.is_empty() {
        return w;
    }
    if w.command == "bash"
        && let Some(command) = job_without_leader(w.pane_pid)
    {
        w.command = command;
    }
    if let Some(command) = exact_command(w.pane_pid, &w.command, features) {
        w.command = command;
    }
    if let Some(path) = exact_path(w.pane_pid) {
        w.path = path;
    }
    w
}

/// `bytes` as text an agent reads on one line: control characters escaped (`\t`, `\n`, `\r`,
/// `\x01`, `\u{85}` for those above ASCII), and a byte that is not UTF-8 as `\xff`; everything
/// else, backslashes and quotes included, as it is.
pub(crate) fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() && c.is_ascii() => {
                    out.push_str(&format!("\\x{:02x}", c as u32))
                }
                c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmux_names() {
        let cases: &[(&[u8], &str)] = &[
            (b"../my prog|x", "../my"),
            (b"/usr/bin/make", "make"),
            (b"-bash", "bash"),
            (b"\"quoted name\" arg", "quoted"),
            (b"exec foo", "foo"),
            (b"./a.out", "./a.out"),
            (b"/tmp/x/c\"m", "c"),
            ("../é prog".as_bytes(), "../"),
            ("/opt/café".as_bytes(), "caf"),
        ];
        for (argv0, name) in cases {
            assert_eq!(
                String::from_utf8_lossy(tmux_name(argv0)),
                *name,
                "{argv0:?}"
            );
        }
    }

    #[test]
    fn stats() {
        let line = b"4242 (my (odd) prog) S 10 4242 4242 34816 4300 4194304 1 0 0 0 3 1 0 0 20 0 1 0 987654 8912896 100 18446744073709551615";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                comm: b"my (odd) prog".to_vec(),
                state: b'S',
                ppid: 10,
                pgrp: 4242,
                session: 4242,
                tpgid: Some(4300),
                start: 987654,
            })
        );
        let mine = stat(std::process::id()).unwrap();
        assert_eq!(mine.ppid, std::os::unix::process::parent_id());
        assert_eq!(stat(u32::MAX), None);
    }

    #[test]
    fn escapes() {
        assert_eq!(escape(b"a\x01b\tc\\d\"e \xc3\xa9"), "a\\x01b\\tc\\d\"e é");
        assert_eq!(escape(b"\xff/\xc2\x85"), "\\xff/\\u{85}");
    }
}
