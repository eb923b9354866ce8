//! One set of bounds, as an agent meets them through a real ratd: read_file's
//! `start_line` 0 and `max_lines` 0 read as if absent, the whole file; a send's `wait_seconds`
//! 0 or absent returns at once, 50 waits, 51 and -1 are refused with nothing sent; wait_window's
//! `max_seconds` 1 to 50; read_window's `output_rows` from row 1 to any row, a range that
//! starts after it ends, or past the last row, refused.

use std::time::{Duration, Instant, SystemTime};

use crate::common::Served;
use crate::tools::{call, text, wait_prompt, wait_window};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_bounds_the_descriptions_tell_are_ratds() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    wait_prompt(&client, "main").await;

    // read_file: 0 is no start and no limit
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "one\ntwo\nthree\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3 * 3600 + 1800))
        .unwrap();
    let p = path.to_str().unwrap();
    let whole = format!("[{p}: 3 lines, 14 B, modified 3h ago]\none\ntwo\nthree\n");
    for args in [
        json!({"path": p}),
        json!({"path": p, "max_lines": 0}),
        json!({"path": p, "start_line": 0}),
        json!({"path": p, "start_line": 0, "max_lines": 0}),
    ] {
        let read = call(&client, "read_file", args.clone()).await;
        assert_eq!(read.is_error, Some(false), "{args}");
        assert_eq!(text(&read), whole, "{args}");
    }
    let from_two = call(
        &client,
        "read_file",
        json!({"path": p, "start_line": 2, "max_lines": 0}),
    )
    .await;
    assert_eq!(
        text(&from_two),
        format!("[{p}: lines 2 to 3 of 3, 14 B, modified 3h ago]\ntwo\nthree\n")
    );
    let last = call(
        &client,
        "read_file",
        json!({"path": p, "start_line": -1, "max_lines": 0}),
    )
    .await;
    assert_eq!(
        text(&last),
        format!("[{p}: line 3 of 3, 14 B, modified 3h ago]\nthree\n")
    );

    // wait_seconds 0 or absent: the send returns at once, the command left running
    for wait in [Some(0), None] {
        let mut args = json!({"window": "main", "text": "sleep 3", "enter": true});
        if let Some(wait) = wait {
            args["wait_seconds"] = json!(wait);
        }
        let started = Instant::now();
        let sent = call(&client, "send_text", args.clone()).await;
        let took = started.elapsed();
        assert_eq!(
            text(&sent),
            "Pasted 7 characters into main, then pressed Enter.",
            "{args}"
        );
        assert!(took < Duration::from_secs(2), "{args}: {took:?}");
        let waited = wait_window(&client, "main").await;
        assert!(
            text(&waited).starts_with("main: the command finished "),
            "{}",
            text(&waited)
        );
    }
    // 50, the most: it answers once the command finished, with what it printed
    let started = Instant::now();
    let sent = call(
        &client,
        "send_text",
        json!({"window": "main", "text": "sleep 1; echo slept", "enter": true, "wait_seconds": 50}),
    )
    .await;
    let took = started.elapsed();
    assert_eq!(sent.is_error, Some(false), "{}", text(&sent));
    assert!(
        text(&sent).contains("exit status 0") && text(&sent).contains("\nslept"),
        "{}",
        text(&sent)
    );
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(10),
        "{took:?}"
    );

    // output_rows: from 1, to the last row or past it (read to the last)
    for (to, note) in [(1, ""), (1_000_000, "; there is none after row 1")] {
        let args = json!({"window": "main", "output_rows": {"from": 1, "to": to}});
        let read = call(&client, "read_window", args.clone()).await;
        assert_eq!(read.is_error, Some(false), "{args}");
        assert_eq!(
            text(&read),
            format!("[row 1 of the 1 the last command in main printed{note}]\nslept"),
            "{args}"
        );
    }

    // out of bounds: refused, nothing sent, nothing waited for
    let mut refused = Vec::new();
    for (tool, args) in [
        (
            "send_text",
            json!({"window": "main", "text": "echo never sent", "enter": true, "wait_seconds": 51}),
        ),
        (
            "send_text",
            json!({"window": "main", "text": "echo never sent", "enter": true, "wait_seconds": -1}),
        ),
        (
            "send_keys",
            json!({"window": "main", "keys": ["Enter"], "wait_seconds": 51}),
        ),
        ("wait_window", json!({"window": "main", "max_seconds": 0})),
        ("wait_window", json!({"window": "main", "max_seconds": 51})),
        ("read_file", json!({"path": p, "max_lines": -1})),
        (
            "read_window",
            json!({"window": "main", "output_rows": {"from": 0, "to": 1}}),
        ),
        (
            "read_window",
            json!({"window": "main", "output_rows": {"from": 2, "to": 1}}),
        ),
        (
            "read_window",
            json!({"window": "main", "output_rows": {"from": 2, "to": 5}}),
        ),
    ] {
        let started = Instant::now();
        let result = call(&client, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{args}: {}", text(&result));
        assert!(started.elapsed() < Duration::from_secs(2), "{args}");
        refused.push(format!("{tool} {args}\n  {}", text(&result)));
    }
    let screen = call(&client, "read_window", json!({"window": "main"})).await;
    assert!(!text(&screen).contains("never sent"), "{}", text(&screen));
    insta::assert_snapshot!(refused.join("\n").replace(p, "FILE"), @r#"
    send_text {"window":"main","text":"echo never sent","enter":true,"wait_seconds":51}
      Nothing was sent: wait_seconds is 51, and must be from 0 to 50 (0 by default). Call send_text again with wait_seconds from 0 to 50, or without it.
    send_text {"window":"main","text":"echo never sent","enter":true,"wait_seconds":-1}
      The arguments of send_text are not valid: wait_seconds must be a whole number from 0 to 50: -1 was given. Nothing was done: call send_text again with wait_seconds as its input schema tells.
    send_keys {"window":"main","keys":["Enter"],"wait_seconds":51}
      Nothing was sent: wait_seconds is 51, and must be from 0 to 50 (0 by default). Call send_keys again with wait_seconds from 0 to 50, or without it.
    wait_window {"window":"main","max_seconds":0}
      Nothing was waited for: max_seconds is 0, and must be from 1 to 50 (20 by default). Call wait_window again with max_seconds from 1 to 50, or without it.
    wait_window {"window":"main","max_seconds":51}
      Nothing was waited for: max_seconds is 51, and must be from 1 to 50 (20 by default). Call wait_window again with max_seconds from 1 to 50, or without it.
    read_file {"path":"FILE","max_lines":-1}
      The arguments of read_file are not valid: max_lines must be a whole number, 0 or more: -1 was given. Nothing was done: call read_file again with max_lines as its input schema tells.
    read_window {"window":"main","output_rows":{"from":0,"to":1}}
      The arguments of read_window are not valid: output_rows.from must be a whole number, 1 or more: 0 was given. Nothing was done: call read_window again with output_rows as its input schema tells.
    read_window {"window":"main","output_rows":{"from":2,"to":1}}
      The arguments of read_window are not valid: output_rows must not end before it starts (from after to): {"from":2,"to":1} was given. Nothing was done: call read_window again with output_rows as its input schema tells.
    read_window {"window":"main","output_rows":{"from":2,"to":5}}
      output_rows starts at row 2, past the last: the last command in main printed 1. Nothing was read: read_window main with output_rows {"from": 1, "to": 1} shows them.
    "#);
    client.cancel().await.unwrap();
    served.stop().await;
}
