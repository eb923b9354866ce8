//! send_text into running programs, as agents meet them (docs/design/terminals.md, send_text):
//! one line is typed as keys, so that a full-screen program runs it as a command (`:wq` in vim,
//! `q` in less) and a REPL evaluates it; more is pasted, and a program with bracketed paste on
//! is told of, with the text waiting on a line editor's line until Enter.

use std::os::unix::fs::OpenOptionsExt;
use std::time::Duration;

use crate::common::*;

/// The tmux the tests' servers run: from 3.3 its default terminal is `tmux-256color`, under
/// which vim asks for bracketed paste; 3.2a's is `screen`, under which it does not.
fn vim_asks_for_bracketed_paste() -> bool {
    let out = std::process::Command::new(tmux_on_path())
        .arg("-V")
        .output()
        .expect("tmux -V");
    let version = tmux_cc::TmuxVersion::parse(&String::from_utf8_lossy(&out.stdout)).unwrap();
    (version.major, version.minor) >= (3, 3)
}

/// What the answer adds after a paste into `program` with bracketed paste on.
fn bracketed(program: &str) -> String {
    format!(
        "{program} had bracketed paste on, so it took the text as one paste, not as typed keys: \
         to type commands into it, send one line at a time (a single line without tab is typed \
         as keys) or press keys with send_keys."
    )
}

/// The process leading the terminal of `window` of session `s`.
fn foreground(f: &Fixture, window: &str) -> u32 {
    let pane = f.tmux(&[
        "display-message",
        "-p",
        "-t",
        &format!("=s:={window}"),
        "#{pane_pid}",
    ]);
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pane.trim())).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    after.split_whitespace().nth(5).unwrap().parse().unwrap()
}

/// Waits until `command` leads the terminal of `main` and its line editor reads it: canonical
/// mode off, the process asleep in its wait for a key. readline prints `ESC[?2004h` before it
/// waits (rl_prep_terminal), and rat reads the pane's bytes as tmux does: what the program
/// asked for is known then, as it is when an agent has seen its prompt.
async fn reading_keys(f: &Fixture, command: &str) {
    f.wait_command("s", "main", command).await;
    eventually(&format!("{command} reads keys"), || {
        let pid = foreground(f, "main");
        let wchan = std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_default();
        let waits = [
            "wait_woken",
            "n_tty_read",
            "poll_schedule_timeout",
            "do_select",
        ]
        .iter()
        .any(|w| wchan.starts_with(w));
        // Opened only to read its settings: never as a controlling terminal, never blocking.
        let Ok(tty) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc_flags())
            .open(format!("/proc/{pid}/fd/0"))
        else {
            return false;
        };
        let raw = nix::sys::termios::tcgetattr(&tty).is_ok_and(|t| {
            !t.local_flags
                .contains(nix::sys::termios::LocalFlags::ICANON)
        });
        waits && raw
    })
    .await;
}

/// `O_NOCTTY | O_NONBLOCK`.
fn libc_flags() -> i32 {
    use nix::fcntl::OFlag;
    (OFlag::O_NOCTTY | OFlag::O_NONBLOCK).bits()
}

/// Starts vim on `~/v.txt` holding `content`, and waits for its screen.
async fn vim(f: &Fixture, content: &str) -> std::path::PathBuf {
    let file = f.home().join("v.txt");
    std::fs::write(&file, content).unwrap();
    let t = f.controller.session("s");
    let sent = t.send_text(text("main", "vim v.txt", true)).await;
    assert_eq!(
        sent.text,
        "Pasted 9 characters into main, then pressed Enter."
    );
    f.read_until("s", "main", 0, |s| {
        s.starts_with("[full-screen program") && s.contains("\"v.txt\"")
    })
    .await;
    f.wait_command("s", "main", "vim").await;
    file
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_sent_to_vim_in_normal_mode_runs() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let file = vim(&f, "hello\n").await;
    let sent = t.send_text(text("main", ":wq", true)).await;
    assert_eq!(
        sent.text,
        "Typed 3 characters into main, then pressed Enter."
    );
    // Written and exited: bash is back at its prompt, the file without `:wq`.
    f.ready("s", "main").await;
    f.wait_command("s", "main", "bash").await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hello\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_typed_in_vims_insert_mode_is_the_files_text() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let file = vim(&f, "").await;
    t.send_keys(keys("main", &["i"])).await;
    let sent = t.send_text(text("main", "say hello", false)).await;
    assert_eq!(sent.text, "Typed 9 characters into main, without Enter.");
    // Lines of text are pasted: vim, asking for bracketed paste, inserts them as they are,
    // and the answer says it took them as a paste.
    t.send_keys(keys("main", &["Enter"])).await;
    let sent = t.send_text(text("main", "two\n  three", false)).await;
    let pasted = "Pasted 11 characters into main, without Enter.";
    if vim_asks_for_bracketed_paste() {
        assert_eq!(sent.text, format!("{pasted} {}", bracketed("vim")));
    } else {
        assert_eq!(sent.text, pasted);
    }
    f.read_until("s", "main", 0, |s| s.contains("\n  three"))
        .await;
    t.send_keys(keys("main", &["Escape"])).await;
    let sent = t.send_text(text("main", ":wq", true)).await;
    assert_eq!(
        sent.text,
        "Typed 3 characters into main, then pressed Enter."
    );
    f.ready("s", "main").await;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "say hello\ntwo\n  three\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn q_sent_to_less_quits_it() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    let lines: String = (1..=100).map(|n| format!("{n}\n")).collect();
    std::fs::write(f.home().join("n.txt"), lines).unwrap();
    t.send_text(text("main", "less n.txt", true)).await;
    f.read_until("s", "main", 0, |s| {
        s.starts_with("[full-screen program") && s.contains("\n1\n2\n")
    })
    .await;
    f.wait_command("s", "main", "less").await;
    let sent = t.send_text(text("main", "q", false)).await;
    assert_eq!(sent.text, "Typed 1 character into main, without Enter.");
    f.ready("s", "main").await;
    f.wait_command("s", "main", "bash").await;
    let list = t.list_windows().await;
    assert!(!list.text.contains("full-screen"), "{}", list.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_sent_to_pythons_repl_is_evaluated() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "python3 -q", true)).await;
    f.read_until("s", "main", 0, |s| s.ends_with("\n>>>")).await;
    let sent = t.send_text(text("main", "print(6*7)", true)).await;
    assert_eq!(
        sent.text,
        "Typed 10 characters into main, then pressed Enter."
    );
    f.read_until("s", "main", 0, |s| s.ends_with(">>> print(6*7)\n42\n>>>"))
        .await;
    // What tmux's command parser reads as its own goes as it is, and characters beyond ASCII.
    let odd = r#"print("a;b" + '$HOME ~ #{pane_id} \\;' + "{x} é ✓")"#;
    let sent = t.send_text(text("main", odd, true)).await;
    assert_eq!(
        sent.text,
        format!(
            "Typed {} characters into main, then pressed Enter.",
            odd.chars().count()
        )
    );
    f.read_until("s", "main", 0, |s| {
        s.ends_with("\na;b$HOME ~ #{pane_id} \\;{x} é ✓\n>>>")
    })
    .await;
    t.send_keys(keys("main", &["C-d"])).await;
    f.ready("s", "main").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_sent_to_nodes_repl_is_evaluated() {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", "node", true)).await;
    f.read_until("s", "main", 0, |s| s.ends_with("\n>")).await;
    let sent = t.send_text(text("main", "6*7", true)).await;
    assert_eq!(
        sent.text,
        "Typed 3 characters into main, then pressed Enter."
    );
    f.read_until("s", "main", 0, |s| s.ends_with("> 6*7\n42\n>"))
        .await;
    t.send_text(text("main", ".exit", true)).await;
    f.ready("s", "main").await;
}

/// Lines pasted without Enter into a program whose line editor has bracketed paste on: the
/// answer says they wait on its line; Enter then runs them, one after the other.
async fn lines_wait_on_the_line(start: &str, command: &str, lines: &str, results: &str) {
    let f = start_ready().await;
    let t = f.controller.session("s");
    t.send_text(text("main", start, true)).await;
    reading_keys(&f, command).await;
    let sent = t.send_text(text("main", lines, false)).await;
    assert_eq!(
        sent.text,
        format!(
            "Pasted {} characters into main, without Enter. {} The text waits on {command}'s \
             line, new lines included, until Enter.",
            lines.chars().count(),
            bracketed(command)
        )
    );
    let last = lines.trim_end().lines().last().unwrap();
    let shown = f.read_until("s", "main", 0, |s| s.ends_with(last)).await;
    // Nothing ran: a moment later the lines are still all the screen ends with.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let screen = t.read_window(read("main", 0)).await;
    assert_eq!(screen.text, shown.text);
    t.send_keys(keys("main", &["Enter"])).await;
    f.read_until("s", "main", 0, |s| s.contains(results)).await;
    t.send_keys(keys("main", &["C-d"])).await;
    f.ready("s", "main").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_pasted_into_bc_wait_on_its_line_until_enter() {
    lines_wait_on_the_line("bc -q", "bc", "2+2\n3+3\n", "\n2+2\n3+3\n4\n6").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lines_pasted_into_sqlite3_wait_on_its_line_until_enter() {
    lines_wait_on_the_line(
        "sqlite3",
        "sqlite3",
        "select 2+2;\nselect 3+3;\n",
        "select 3+3;\n4\n6\nsqlite>",
    )
    .await;
}
