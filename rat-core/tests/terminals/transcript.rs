//! The transcript against ground truth: a seeded generator of commands whose output is known,
//! run by a real bash with rat's hook in a real tmux, the pane's bytes taken by its pipe; each
//! command's rows, as the transcript tells them, must equal the expected rendering (the bytes
//! the command printed, rendered from an empty screen at the pane's size) and its status the
//! one it exited with.
//!
//! `RAT_TRANSCRIPT_SEQUENCES` (300 by default) and `RAT_TRANSCRIPT_SEED` set the run; the long
//! run of the docs is `RAT_TRANSCRIPT_SEQUENCES=5000 cargo test --release -p rat-core --test
//! terminals -- transcript:: --nocapture`.

use std::path::Path;
use std::time::Duration;

use rat_core::terminals::hook;
use rat_core::terminals::transcript::{Follow, MarkId, Report, render};
use tmux_cc::test_support::SocketGuard;
use tmux_cc::{Client, ClientOptions, Command, PaneId, Server, ServerOptions};

pub(crate) fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// xorshift64*: enough for a reproducible run, no dependency.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const WORDS: &[&str] = &[
    "build",
    "step",
    "ok",
    "warning",
    "test",
    "passed",
    "error:",
    "line",
    "done",
    "compiling",
];

/// One piece of a command's output, as the program writes it (`\n` for a new line: the
/// terminal makes it CR LF).
pub(crate) fn piece(rng: &mut Rng, big: bool) -> Vec<u8> {
    let word = |rng: &mut Rng| WORDS[rng.below(WORDS.len() as u64) as usize];
    match rng.below(if big { 12 } else { 11 }) {
        0 | 1 => {
            let n = 1 + rng.below(5);
            (0..n)
                .map(|i| format!("{} {i} {}\n", word(rng), word(rng)))
                .collect::<String>()
                .into_bytes()
        }
        // A line without a final new line (more may follow on it).
        2 => format!("{} {}", word(rng), rng.below(1000)).into_bytes(),
        // Longer than the width: wrapped.
        3 => {
            let len = 150 + rng.below(300) as usize;
            let text: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            format!("{text}\n").into_bytes()
        }
        // A progress line drawn again with `\r`.
        4 => {
            let mut s = String::new();
            for p in (0..=100).step_by(10 + rng.below(30) as usize) {
                s.push_str(&format!("\rprogress {p}%"));
            }
            s.push_str("\r\x1b[Kprogress done\n");
            s.into_bytes()
        }
        // Rows drawn again after moving the cursor up (pip, npm, docker).
        5 => b"layer a 1/2\nlayer b 1/2\n\x1b[2A\x1b[2Klayer a 2/2\n\x1b[2Klayer b 2/2\n".to_vec(),
        6 => format!(
            "\x1b[3{}m{}\x1b[0m \x1b[1m{}\x1b[m\n",
            1 + rng.below(6),
            word(rng),
            word(rng)
        )
        .into_bytes(),
        7 => "日本語のテキスト e\u{301}toile 한국어\n"
            .as_bytes()
            .to_vec(),
        // `clear`, as it prints with tmux's terminal description.
        8 => b"\x1b[H\x1b[2J\x1b[3J".to_vec(),
        // A full-screen program, left (or, rarely, left on).
        9 => {
            let mut s = b"\x1b[?1049h\x1b[H\x1b[2Jfull screen program\r\n".to_vec();
            if rng.below(8) != 0 {
                s.extend_from_slice(b"\x1b[?1049l");
            }
            s
        }
        10 => b"\n".to_vec(),
        _ => (1..=10_000)
            .map(|i| format!("row {i}\n"))
            .collect::<String>()
            .into_bytes(),
    }
}

/// What the terminal makes of a program's bytes (`onlcr`: LF out as CR LF).
pub(crate) fn onlcr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    for &b in bytes {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

struct Pane {
    client: Client,
    _server: Server,
    _guard: SocketGuard,
    _home: tempfile::TempDir,
    pane: String,
    width: u16,
    height: u16,
    follow: Follow,
}

async fn pane(home: &Path) -> (Client, Server, SocketGuard, String) {
    let guard = SocketGuard::new("tr");
    let mut options = ServerOptions::new(&guard.socket);
    options.env.push(("HOME".into(), home.into()));
    let server = Server::start_with(options).await.expect("tmux starts");
    let client = server
        .connect(ClientOptions {
            command_timeout: Duration::from_secs(20),
            ..ClientOptions::default()
        })
        .await
        .expect("a control client");
    let rc = home.join("rc");
    std::fs::write(&rc, hook::rc(&home.join("hook"))).unwrap();
    std::fs::write(home.join(".bash_profile"), "PS1='$ '\n").unwrap();
    let out = client
        .run(&Command::new("new-session").args([
            "-d",
            "-s",
            "tr",
            "-x",
            "200",
            "-y",
            "50",
            "-P",
            "-F",
            "#{pane_id}",
            &format!("bash --rcfile {} -i", rc.display()),
        ]))
        .await
        .expect("new-session");
    let pane = String::from_utf8_lossy(&out[0]).trim().to_string();
    (client, server, guard, pane)
}

async fn start() -> Pane {
    let home = tempfile::tempdir().unwrap();
    let (client, server, guard, pane) = pane(home.path()).await;
    let size = client
        .run(&Command::new("display-message").args([
            "-p",
            "-t",
            &pane,
            "#{pane_width} #{pane_height}",
        ]))
        .await
        .unwrap();
    let size = String::from_utf8_lossy(&size[0]).to_string();
    let (w, h) = size.trim().split_once(' ').unwrap();
    let (width, height) = (w.parse().unwrap(), h.parse().unwrap());
    let id = PaneId(pane.trim_start_matches('%').parse().unwrap());
    let follow = Follow::start(&client, id, width, height)
        .await
        .expect("the pane's pipe");
    let p = Pane {
        client,
        _server: server,
        _guard: guard,
        _home: home,
        pane,
        width,
        height,
        follow,
    };
    // bash may have shown its first prompt before the pipe started: Enter gives one the
    // transcript sees, then the prompts come in step with the lines typed.
    p.type_line("").await;
    p.prompt_after(None).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    p
}

impl Pane {
    async fn type_line(&self, line: &str) {
        let mut cmds = Vec::new();
        if !line.is_empty() {
            cmds.push(Command::new("send-keys").args(["-t", &self.pane, "-l", line]));
        }
        cmds.push(Command::new("send-keys").args(["-t", &self.pane, "Enter"]));
        self.client.input_ok(&cmds).await.expect("send-keys");
    }

    /// Waits for a prompt after `before` (any prompt when `None`), 30 s at most.
    async fn prompt_after(&self, before: Option<MarkId>) -> MarkId {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let fed = self.follow.fed();
            if let Some(now) = self.follow.transcript().prompt()
                && Some(now) != before
            {
                return now;
            }
            assert!(
                self.follow.end().is_none(),
                "the pane's stream ended: {:?}",
                self.follow.end()
            );
            assert!(
                tokio::time::timeout_at(deadline, fed).await.is_ok() || {
                    // A prompt that came between the check and the wait.
                    self.follow.transcript().prompt() != before
                },
                "no prompt after {before:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_s_rows_are_the_rendering_of_what_it_printed() {
    let sequences = env_or("RAT_TRANSCRIPT_SEQUENCES", 300);
    let seed = env_or("RAT_TRANSCRIPT_SEED", 0x7a5c_41b7_0005);
    let mut rng = Rng(seed | 1);
    let p = start().await;
    let dir = tempfile::tempdir().unwrap();
    let first = p.follow.transcript().prompt();
    p.type_line(&format!("cd {}", dir.path().display())).await;
    let mut prompt = p.prompt_after(first).await;
    let (mut commands, mut rows) = (0u64, 0u64);
    for sequence in 0..sequences {
        let big = rng.below(40) == 0;
        for _ in 0..1 + rng.below(3) {
            let mut output = Vec::new();
            for _ in 0..1 + rng.below(4) {
                output.extend(piece(&mut rng, big));
            }
            let status = rng.below(4);
            let file = format!("o{commands}");
            std::fs::write(dir.path().join(&file), &output).unwrap();
            p.type_line(&format!("cat {file}; (exit {status})")).await;
            let next = p.prompt_after(Some(prompt)).await;
            let report = p.follow.transcript().report(prompt);
            let expected = render(p.width, p.height, &onlcr(&output));
            let context = || {
                format!(
                    "sequence {sequence} (seed {seed:#x}), command {commands}: {:?}",
                    String::from_utf8_lossy(&output)
                )
            };
            match report {
                Some(Report::Framed {
                    lines,
                    ended: Some(Some(s)),
                    ..
                }) => {
                    assert_eq!(s, status as i32, "{}", context());
                    assert_eq!(lines.lines, expected.lines, "{}", context());
                    assert_eq!(
                        (lines.rows, lines.gone),
                        (expected.rows, expected.gone),
                        "{}",
                        context()
                    );
                    rows += lines.lines.len() as u64;
                }
                other => panic!("{}: told {other:?}", context()),
            }
            prompt = next;
            commands += 1;
        }
    }
    println!(
        "{sequences} sequences, {commands} commands, {rows} rows, 0 wrong ({}x{})",
        p.width, p.height
    );
}

/// A program sets bracketed paste on and, after it did, creates a file: once the file is
/// there, a sync mark brings the transcript every byte the program printed before, so the mode
/// it shows is on; the mark leaves no trace on tmux's screen or in the command's rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_mark_brings_every_byte_printed_before_it() {
    let p = start().await;
    let dir = tempfile::tempdir().unwrap();
    let pid = p
        .client
        .run(&Command::new("display-message").args(["-p", "-t", &p.pane, "#{pane_pid}"]))
        .await
        .unwrap();
    let tty = Path::new("/proc")
        .join(String::from_utf8_lossy(&pid[0]).trim())
        .join("fd/0");
    let mut prompt = p.follow.transcript().prompt();
    for n in 0..20 {
        let done = dir.path().join(format!("done{n}"));
        p.type_line(&format!(
            "printf 'row {n}\\n\\e[?2004h'; : > {}; sleep 0.3",
            done.display()
        ))
        .await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while !done.exists() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "{} never made",
                done.display()
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        // readline turned bracketed paste off when it read the line; the command turned it on.
        assert!(
            p.follow.sync(&tty, Duration::from_secs(30)).await,
            "sync {n}"
        );
        assert_eq!(
            p.follow.transcript().bracketed_paste(),
            Some(true),
            "sync {n}"
        );
        let next = p.prompt_after(prompt).await;
        let Some(Report::Framed { lines, .. }) = p.follow.transcript().report(prompt.unwrap())
        else {
            panic!("command {n} not framed");
        };
        assert_eq!(lines.lines, vec![format!("row {n}")], "command {n}");
        prompt = Some(next);
    }
    let screen = p
        .client
        .run(&Command::new("capture-pane").args(["-p", "-t", &p.pane, "-S", "-"]))
        .await
        .unwrap();
    let screen: Vec<String> = screen
        .iter()
        .map(|row| String::from_utf8_lossy(row).to_string())
        .collect();
    assert!(
        !screen.iter().any(|row| row.contains("rat-sync")),
        "{screen:?}"
    );
    assert!(screen.iter().any(|row| row == "row 19"), "{screen:?}");
}
