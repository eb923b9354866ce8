//! ratd's logs from outside (`docs/design/status-and-logs.md`): the real binary, its stderr a
//! socket standing in for the journal stream (JOURNAL_STREAM naming its device and inode), an agent
//! sending a secret text, keys and a file through a real MCP client.

use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;

use crate::service_common::{Daemon, call};
use serde_json::json;

const SECRET_TEXT: &str = "hunter2-text-9f3b7c";
const SECRET_FILE: &str = "file-content-5d1e8a";
// Key names found nowhere else in a log.
const SECRET_KEYS: [&str; 2] = ["F11", "F12"];

/// Every line of a run: started, calls, stopped by SIGTERM.
async fn journal_run(log_level: &str) -> (Vec<String>, String, std::path::PathBuf) {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let meta = std::fs::metadata(format!("/proc/self/fd/{}", {
        use std::os::fd::AsRawFd;
        theirs.as_raw_fd()
    }))
    .unwrap();
    let stream = format!("{}:{}", meta.dev(), meta.ino());
    let home = tempfile::tempdir().unwrap();
    let mut ratd = Daemon::spawn_with(&["--log-level", log_level], |command| {
        command
            .env("JOURNAL_STREAM", &stream)
            .env("HOME", home.path())
            .stderr(OwnedFd::from(theirs));
        Box::new(ours)
    });
    ratd.wait_serving();
    let client = ratd.mcp("alice").await;
    // The session, and the first prompt of its main.
    call(&client, "list_windows", json!({})).await;
    let (text, _) = call(
        &client,
        "wait_window",
        json!({"window": "main", "max_seconds": 10}),
    )
    .await;
    assert!(!text.contains("still running"), "{text}");
    let (_, is_error) = call(
        &client,
        "send_text",
        json!({"window": "main", "text": SECRET_TEXT, "enter": false}),
    )
    .await;
    assert!(!is_error);
    let (_, is_error) = call(
        &client,
        "send_keys",
        json!({"window": "main", "keys": SECRET_KEYS}),
    )
    .await;
    assert!(!is_error);
    let path = home.path().join("notes.txt");
    let (_, is_error) = call(
        &client,
        "write_file",
        json!({"path": path, "content": SECRET_FILE}),
    )
    .await;
    assert!(!is_error);
    let (text, is_error) = call(&client, "read_file", json!({"path": path})).await;
    assert!(!is_error && text.contains(SECRET_FILE), "{text}");
    let (_, is_error) = call(&client, "read_window", json!({"window": "nope"})).await;
    assert!(is_error);
    let _ = client.cancel().await;
    ratd.signal(nix::sys::signal::Signal::SIGTERM);
    let status = ratd.wait_exit();
    assert!(status.success(), "{status}: {:#?}", ratd.seen);
    (ratd.seen.clone(), stream, path)
}

#[tokio::test(flavor = "multi_thread")]
async fn journal_lines_carry_priorities_and_never_the_content_of_inputs() {
    let (lines, _, path) = journal_run("debug").await;
    let all = lines.join("\n");
    // The journal's form: a priority, no time, no level word.
    for line in &lines {
        let Some(rest) = line
            .strip_prefix("<3>")
            .or_else(|| line.strip_prefix("<4>"))
            .or_else(|| line.strip_prefix("<6>"))
            .or_else(|| line.strip_prefix("<7>"))
        else {
            panic!("a line without its priority: {line:?}\n{all}");
        };
        assert!(
            !rest.starts_with(|c: char| c.is_ascii_digit()),
            "a time: {line:?}"
        );
        assert!(
            !rest.contains(" INFO ") && !rest.starts_with("INFO"),
            "a level: {line:?}"
        );
    }
    // Never the content: neither the text, nor the keys, nor the file.
    for secret in [SECRET_TEXT, SECRET_FILE, SECRET_KEYS[0], SECRET_KEYS[1]] {
        assert!(!all.contains(secret), "{secret} logged:\n{all}");
    }
    // Tests run as root here: warned, as a warning.
    if nix::unistd::geteuid().is_root() {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("<4>running as root: every agent")),
            "{all}"
        );
    }
    let tool_line = |tool: &str| {
        lines
            .iter()
            .find(|l| l.contains(&format!("tool=\"{tool}\"")))
            .unwrap_or_else(|| panic!("no line for {tool}:\n{all}"))
            .clone()
    };
    // One line per call at info, with what tells the action without its content.
    let send_text = tool_line("send_text");
    assert!(
        send_text.starts_with(&format!(
            "<6>call send_text typed=false window=main bytes={} enter=false session=alice addr=127.0.0.1:",
            SECRET_TEXT.len()
        )),
        "{send_text}"
    );
    for fact in [
        "window=main",
        &format!("bytes={}", SECRET_TEXT.len()),
        "enter=false",
        "session=alice",
        "addr=127.0.0.1:",
        "outcome=\"ok\"",
        "duration_ms=",
    ] {
        assert!(send_text.contains(fact), "{fact} missing: {send_text}");
    }
    let send_keys = tool_line("send_keys");
    assert!(send_keys.contains("keys=2"), "{send_keys}");
    let write_file = tool_line("write_file");
    assert!(
        write_file.contains(&path.display().to_string()) || write_file.contains("created=true"),
        "{write_file}"
    );
    let read_file = tool_line("read_file");
    assert!(
        read_file.contains(&format!("size={}", SECRET_FILE.len())),
        "{read_file}"
    );
    let refused = tool_line("read_window");
    assert!(
        refused.starts_with("<6>")
            && refused.contains("outcome=\"error\"")
            && refused.contains("cause="),
        "{refused}"
    );
    // At debug, one line per MCP request with its method, never its parameters.
    assert!(
        lines.iter().any(|l| l.starts_with("<7>MCP request")
            && l.contains("method=\"tools/call\"")
            && l.contains("session=alice")),
        "{all}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("<7>MCP request") && l.contains("method=\"initialize\"")),
        "{all}"
    );
    // The lifecycle: start, the check, the stop, in this order.
    let mut last = 0;
    for needle in [
        "<6>terminals checked",
        "<6>ratd serving",
        "<6>stopping on signal",
        "<6>stopping: closing the door",
        "<6>stopping: stopping the terminals",
    ] {
        let at = lines
            .iter()
            .position(|l| l.starts_with(needle))
            .unwrap_or_else(|| panic!("{needle}:\n{all}"));
        assert!(at >= last, "{needle} out of order:\n{all}");
        last = at;
    }
    eprintln!("{all}");
}

#[tokio::test(flavor = "multi_thread")]
async fn at_info_no_request_line_nor_library_chatter() {
    let (lines, _, _) = journal_run("info").await;
    let all = lines.join("\n");
    assert!(!lines.iter().any(|l| l.starts_with("<7>")), "{all}");
    // Only ratd's own lines: rmcp's per-request info lines are gone.
    assert!(!all.contains("rmcp"), "{all}");
    assert_eq!(
        lines.iter().filter(|l| l.contains("tool=")).count(),
        7,
        "{all}"
    );
}

#[test]
fn the_exit_error_is_an_error_entry_in_the_journal() {
    let (ours, theirs) = UnixStream::pair().unwrap();
    let meta = std::fs::metadata(format!("/proc/self/fd/{}", {
        use std::os::fd::AsRawFd;
        theirs.as_raw_fd()
    }))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("server");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_ratd"))
        .arg("--bundle")
        .arg(&missing)
        .args(["--listen", "127.0.0.1:0"])
        .env("JOURNAL_STREAM", format!("{}:{}", meta.dev(), meta.ino()))
        .stderr(OwnedFd::from(theirs))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1));
    let mut out = String::new();
    std::io::Read::read_to_string(&mut &ours, &mut out).unwrap();
    let line = out.lines().last().unwrap_or_default();
    assert!(
        line.starts_with(&format!(
            "<3>ratd: the bundle in {} can not be used: ",
            missing.display()
        )),
        "{out}"
    );
}
