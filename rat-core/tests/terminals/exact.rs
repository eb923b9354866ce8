//! Exactness of what the terminal tools tell, against a real tmux and a real bash (one private
//! socket per test, killed by a Drop guard): commands and directories with odd characters, the
//! cursor past the last column, full-screen mode left on, lines begun in history, long key
//! lists, what a closed window leaves running, and a background job after C-c.

use std::path::Path;

use crate::common::*;
use rat_core::result::Outcome;
use rat_core::terminals::{CloseWindow, CreateWindow, SendKeys};

/// `s` quoted for bash as `$'...'`: backslashes, quotes and control characters escaped, the
/// rest (non-ASCII included) as it is.
fn ansi_c(s: &str) -> String {
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The pid of the process in the foreground of `window` of session `s` (the terminal's
/// foreground process group, read from the pane's shell in `/proc`).
fn foreground_pid(f: &Fixture, s: &str, window: &str) -> i32 {
    let pane = f.tmux(&[
        "display-message",
        "-p",
        "-t",
        &format!("={s}:={window}"),
        "#{pane_pid}",
    ]);
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pane.trim())).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    after.split_whitespace().nth(5).unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_and_directories_are_listed_whole_whatever_they_hold() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    // (program, directory): the program a copy of sleep in the home directory, run by the
    // relative path typed from the directory, as `"../my prog|x" 30`.
    let cases = [
        ("my prog|x", "a dir|b"),
        ("q\"uote it", "d\"q it"),
        ("back\\slash p", "b\\s dir"),
        ("tab\tprog x", "tab\tdir"),
        ("é prog ✓", "漢字 dir 🐀"),
        ("ctl x", "ctl\u{1}dir"),
        ("café", "dir é"),
        ("it's x", "it's 'dir'"),
    ];
    let mut names = Vec::new();
    for (i, (program, dir)) in cases.iter().enumerate() {
        std::fs::copy("/bin/sleep", f.home().join(program)).unwrap();
        std::fs::create_dir(f.home().join(dir)).unwrap();
        let name = format!("w{i}");
        let created = t.create_window(CreateWindow { name: name.clone() }).await;
        assert_eq!(created.outcome, Outcome::Ok, "{}", created.text);
        f.ready("s", &name).await;
        let line = format!(
            "cd {} && {} 300",
            ansi_c(dir),
            ansi_c(&format!("../{program}"))
        );
        let sent = t.send_text(text(&name, &line, true)).await;
        assert_eq!(sent.outcome, Outcome::Ok, "{}", sent.text);
        names.push(name);
    }
    for name in &names {
        eventually("the program runs", || {
            let pid = foreground_pid(&f, "s", name);
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .is_ok_and(|exe| exe.starts_with(f.home()) && exe.parent() == Some(f.home()))
        })
        .await;
    }
    let list = t.list_windows().await;
    assert_eq!(list.outcome, Outcome::Ok, "{}", list.text);
    let lines: Vec<String> = f
        .redact(&list.text)
        .lines()
        .filter(|l| l.starts_with('w'))
        .map(str::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            r"w0: my prog|x in ~/a dir|b, active Ns ago",
            r#"w1: q"uote it in ~/d"q it, active Ns ago"#,
            r"w2: back\slash p in ~/b\s dir, active Ns ago",
            r"w3: tab\tprog x in ~/tab\tdir, active Ns ago",
            r"w4: é prog ✓ in ~/漢字 dir 🐀, active Ns ago",
            r"w5: ctl x in ~/ctl\x01dir, active Ns ago",
            r"w6: café in ~/dir é, active Ns ago",
            r"w7: it's x in ~/it's 'dir', active Ns ago",
        ],
        "{}",
        list.text
    );
    // An existing window is told the same way.
    let again = t.create_window(CreateWindow { name: "w0".into() }).await;
    assert_eq!(
        f.redact(&again.text),
        "Window w0 already exists, not created: it runs my prog|x in ~/a dir|b."
    );
    // A program whose name tmux 3.7 will not show (it holds a tab) still runs: never bash at
    // its prompt.
    let waited = waited(&t, "w3", 1).await;
    assert_eq!(
        f.redact(&waited.text),
        "w3: still running, Ns since your last input, tab\\tprog x in the foreground.\nNothing printed."
    );
    for name in &names {
        t.send_keys(keys(name, &["C-c"])).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_tmux_tells_whole_is_left_as_tmux_tells_it() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    f.run("s", "main", "cd /tmp").await;
    t.send_text(text("main", "sleep 300", true)).await;
    f.wait_command("s", "main", "sleep").await;
    let list = t.list_windows().await;
    assert_eq!(f.redact(&list.text), "main: sleep in /tmp, active Ns ago");
    t.send_keys(keys("main", &["C-c"])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cursor_after_a_full_row_is_told_at_the_last_column() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    // A full-screen program writing a full first row: tmux keeps the cursor past its end.
    t.send_text(text(
        "main",
        r"printf '\033[?1049h\033[H'; printf 'y%.0s' $(seq 200); sleep 300",
        true,
    ))
    .await;
    f.wait_command("s", "main", "sleep").await;
    let screen = f
        .read_until("s", "main", 0, |s| s.contains(&"y".repeat(200)))
        .await;
    assert_eq!(
        screen.text,
        format!(
            "[full-screen program, cursor at row 1, column 200]\n{}",
            "y".repeat(200)
        )
    );
    t.send_keys(keys("main", &["C-c"])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_screen_mode_left_on_is_told_with_its_fix() {
    assert!(
        Path::new("/usr/bin/vim").exists() || Path::new("/usr/bin/vi").exists(),
        "vim is needed (apt-get install -y vim-tiny)"
    );
    let f = start_ready().await;
    let t = f.controller.session("s");
    f.run("s", "main", "seq 3").await;
    t.send_text(text("main", "vi -u NONE -N", true)).await;
    eventually("vim shows", || {
        f.tmux(&["display-message", "-p", "-t", "=s:=main", "#{alternate_on}"])
            .trim()
            == "1"
    })
    .await;
    let vim = foreground_pid(&f, "s", "main");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(vim),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    f.wait_command("s", "main", "bash").await;
    let screen = f
        .read_until("s", "main", 10, |s| {
            s.starts_with("[full-screen mode left on")
        })
        .await;
    let header = screen.text.lines().next().unwrap();
    let (program, history) = header.split_once("; ").unwrap();
    assert!(
        // vim hides the cursor while it draws: killed then, the cursor stays hidden.
        program.starts_with("[full-screen mode left on by a program that ended, cursor at row ")
            || program == "[full-screen mode left on by a program that ended, cursor hidden",
        "{header}"
    );
    assert_eq!(history, "no history until `tput rmcup` leaves it]");
    // list_windows gives the same fix (how the killed vim exited is the status mechanism's,
    // tested elsewhere).
    let list = t.list_windows().await;
    let line = f.redact(&list.text);
    assert!(
        line.starts_with("main: bash in ~, active Ns ago, "),
        "{line}"
    );
    assert!(
        line.ends_with(
            ", full-screen mode left on by a program that ended: `tput rmcup` leaves it"
        ),
        "{line}"
    );
    // The fix told works: the screen from before vim is back, and history can be read. Answers
    // to vim's terminal queries that it did not live to read may wait on the command line
    // (`2R`): C-c clears it first.
    // They may arrive late on a loaded machine: C-c until the command line stays empty.
    for _ in 0..20 {
        t.send_keys(keys("main", &["C-c"])).await;
        waited(&t, "main", 20).await;
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let screen = t.read_window(read("main", 0)).await;
        // The prompt's row (the rest of the screen is vim's, left on).
        if screen.text.lines().rfind(|l| l.starts_with('$')) == Some("$") {
            break;
        }
    }
    f.run("s", "main", "tput rmcup").await;
    let back = t.read_window(read("main", 10)).await;
    assert!(
        back.text.starts_with("[0 rows of history]\n"),
        "{}",
        back.text
    );
    assert!(back.text.contains("$ seq 3\n1\n2\n3\n"), "{}", back.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_screen_beginning_inside_a_line_of_history_says_so() {
    let f = start_ready().await;
    // 6100 characters: 30 full rows and 100 characters, more than the 24 rows of the screen.
    let done = f
        .run("s", "main", "clear; printf 'x%.0s' $(seq 6100); echo")
        .await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    // The screen: the last 23 rows of the line (from its row 9), then the prompt.
    // The prompt can follow the wait's answer by a moment: read until it shows.
    let prompted = |s: &str| s.ends_with("\n$");
    let screen = f.read_until("s", "main", 0, prompted).await;
    assert_eq!(
        screen.text,
        format!(
            "[the first line begins above, in history]\n{}\n$",
            "x".repeat(6100 - 8 * 200)
        )
    );
    let three = f.read_until("s", "main", 3, prompted).await;
    assert_eq!(
        three.text,
        format!(
            "[3 rows of history; the first line begins above, in history]\n{}\n$",
            "x".repeat(6100 - 5 * 200)
        )
    );
    // All of the line read: nothing begins above it.
    let all = f.read_until("s", "main", 100, prompted).await;
    let (header, body) = all.text.split_once('\n').unwrap();
    assert!(
        header.starts_with('[') && header.ends_with(" rows of history]"),
        "{header}"
    );
    assert_eq!(body.lines().rev().nth(1).map(str::len), Some(6100));
    // A screen starting at a line of its own says nothing.
    f.run("s", "main", "clear; seq 40").await;
    let plain = f.read_until("s", "main", 0, |s| s.ends_with("40\n$")).await;
    let numbers: Vec<String> = (18..=40).map(|n| n.to_string()).collect();
    assert_eq!(plain.text, format!("{}\n$", numbers.join("\n")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_key_list_is_repeated_in_short() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let out = f.cat_into("keys.txt").await;
    // 120 lines of 99 letters and Enter (a terminal line holds 4095 characters at most).
    let (pressed, expected) = letter_lines();
    let result = t
        .send_keys(SendKeys {
            window: "main".into(),
            keys: pressed,
            wait_seconds: 0,
        })
        .await;
    assert_eq!(
        result.text,
        "Pressed in main: a a a a a a a a a a a a a a a a a a a a ... and 11980 more (12000 keys)."
    );
    let few = t.send_keys(keys("main", &["C-d"])).await;
    assert_eq!(few.text, "Pressed in main: C-d.");
    f.ready("s", "main").await;
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_window_names_what_it_leaves_running() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    for name in ["plain", "jobs"] {
        t.create_window(CreateWindow { name: name.into() }).await;
        f.ready("s", name).await;
    }
    let pid_of = |file: &str| -> u32 {
        let path = f.home().join(file);
        std::fs::read_to_string(path).map_or(0, |p| p.trim().parse().unwrap_or(0))
    };
    // Whatever happens, the processes the test started end with it.
    let _ended = KillOnDrop(f.home().to_path_buf());
    // What runs in the foreground, and a job of bash's own, end with the window.
    let started = f
        .run(
            "s",
            "plain",
            "sleep 3011 & echo $! > job.pid; sleep 0.1; echo $$ > shell.pid",
        )
        .await;
    assert!(started.text.contains("exit status 0"), "{}", started.text);
    t.send_text(text("plain", "sleep 3012", true)).await;
    f.wait_command("s", "plain", "sleep").await;
    let closed = t
        .close_window(CloseWindow {
            name: "plain".into(),
        })
        .await;
    assert_eq!(closed.text, "Window plain closed.");
    assert!(!running(pid_of("job.pid")) && !running(pid_of("shell.pid")));
    // Every way of leaving a process behind, in one window beside a job and a command that end
    // with it: a subshell's job, nohup, setsid (a job, then -f), disown, and a daemon forking
    // twice. setsid's processes and the daemon are in sessions of their own and no longer
    // descend from the shell; each survivor writes its own pid.
    std::fs::write(f.home().join("daemon.py"), DAEMON).unwrap();
    let started = f
        .run(
            "s",
            "jobs",
            "(sleep 3013 & echo $! > subshell.pid); nohup sleep 3014 >/dev/null 2>&1 & echo $! > \
             nohup.pid; setsid sh -c 'echo $$ > setsid.pid; exec sleep 3015' & setsid -f sh -c \
             'echo $$ > setsid-f.pid; exec sleep 3016'; sleep 3017 & echo $! > disown.pid; \
             disown; python3 daemon.py; sleep 3019 & echo $! > job.pid",
        )
        .await;
    assert!(started.text.contains("exit status 0"), "{}", started.text);
    t.send_text(text("jobs", "sleep 3012", true)).await;
    f.wait_command("s", "jobs", "sleep").await;
    let foreground = foreground_pid(&f, "s", "jobs") as u32;
    let mut left = Vec::new();
    for (file, seconds) in [
        ("subshell.pid", 3013),
        ("nohup.pid", 3014),
        ("setsid.pid", 3015),
        ("setsid-f.pid", 3016),
        ("disown.pid", 3017),
        ("daemon.pid", 3018),
    ] {
        // Each is seen once it executed sleep (a forked bash or sh until then).
        let cmdline = format!("sleep\0{seconds}\0");
        eventually(&format!("{file}: sleep {seconds} runs"), || {
            let pid = pid_of(file);
            pid > 0
                && std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c == cmdline.as_bytes())
        })
        .await;
        left.push(pid_of(file));
    }
    let job = pid_of("job.pid");
    assert!(running(job) && running(foreground));
    let closed = t
        .close_window(CloseWindow {
            name: "jobs".into(),
        })
        .await;
    left.sort();
    let named: Vec<String> = left.iter().map(|p| format!("{p} (sleep)")).collect();
    let pids: Vec<String> = left.iter().map(|p| p.to_string()).collect();
    assert_eq!(
        closed.text,
        format!(
            "Window jobs closed. Still running, detached from it: {}. They outlive the window: \
             kill {} ends them.",
            named.join(", "),
            pids.join(" ")
        )
    );
    // What the answer names runs, what it does not name is gone.
    for pid in left {
        assert!(running(pid), "{pid} named, not running");
    }
    assert!(!running(job) && !running(foreground));
}

/// A daemon as they start: it forks, the child leaves the session (`setsid`) and forks again,
/// both parents end, and the grandchild, its standard streams on /dev/null, runs `sleep 3018`.
const DAEMON: &str = "import os, sys
if os.fork():
    sys.exit(0)
os.setsid()
if os.fork():
    os._exit(0)
null = os.open(os.devnull, os.O_RDWR)
for fd in range(3):
    os.dup2(null, fd)
with open('daemon.pid', 'w') as f:
    f.write(str(os.getpid()))
os.execvp('sleep', ['sleep', '3018'])
";

/// Whether `pid` runs (a zombie does not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| !s[s.rfind(')').unwrap() + 1..].trim_start().starts_with('Z'))
}

/// Kills, when dropped, the processes whose pids the test wrote in `*.pid` files of a directory,
/// if they still run the test's `sleep 301N` (a pid reused since is another's process).
struct KillOnDrop(std::path::PathBuf);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let Ok(entries) = std::fs::read_dir(&self.0) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.path().extension().is_some_and(|e| e == "pid")
                && let Ok(pid) = std::fs::read_to_string(entry.path())
                && let Ok(pid) = pid.trim().parse::<i32>()
                && std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c.starts_with(b"sleep\x00301"))
            {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

/// A background job started after a command interrupted with C-c finished with status 0:
/// the status told must be the job's start, not the interrupted command's 130.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_job_after_c_c_is_told_exit_status_0() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "sleep 30", true)).await;
    f.wait_command("s", "main", "sleep").await;
    t.send_keys(keys("main", &["C-c"])).await;
    let interrupted = waited(&t, "main", 20).await;
    assert_eq!(
        f.redact(&interrupted.text),
        "main: the command finished Ns ago, exit status 130.\n[1 row printed]\n^C"
    );
    t.send_text(text("main", "sleep 3 &", true)).await;
    let started = waited(&t, "main", 20).await;
    let (told, pid) = started
        .text
        .rsplit_once("\n[1] ")
        .unwrap_or_else(|| panic!("{}", started.text));
    assert_eq!(
        f.redact(told),
        "main: the command finished Ns ago, exit status 0.\n[1 row printed]"
    );
    assert!(pid.parse::<u32>().is_ok(), "{}", started.text);
    let list = t.list_windows().await;
    assert_eq!(
        f.redact(&list.text),
        "main: bash in ~, active Ns ago, last command exited with status 0 (Ns ago)"
    );
}
