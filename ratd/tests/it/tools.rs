//! The tools through a real ratd: rmcp's client over mTLS, a real tmux server and bash.

use std::time::{Duration, Instant};

use crate::common::{Served, tmux_server_running};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientRequest, JsonObject};
use rmcp::service::{PeerRequestOptions, RunningService};
use serde_json::json;

pub(crate) type Client = RunningService<RoleClient, rmcp::model::ClientConfig>;

pub(crate) async fn call(
    client: &Client,
    tool: &str,
    arguments: serde_json::Value,
) -> CallToolResult {
    let arguments: JsonObject = match arguments {
        serde_json::Value::Object(map) => map,
        other => panic!("arguments must be an object: {other}"),
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .unwrap_or_else(|error| panic!("{tool}: {error}"))
}

pub(crate) fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// send_text of `line` then Enter to `window`, not waiting: the call's result.
async fn send_line(client: &Client, window: &str, line: &str) -> CallToolResult {
    call(
        client,
        "send_text",
        json!({"window": window, "text": line, "enter": true}),
    )
    .await
}

/// wait_window on `window`, 20 s at most: the call's result.
pub(crate) async fn wait_window(client: &Client, window: &str) -> CallToolResult {
    call(
        client,
        "wait_window",
        json!({"window": window, "max_seconds": 20}),
    )
    .await
}

/// Waits until `window` of `client` shows a prompt: wait_window for its first prompt.
pub(crate) async fn wait_prompt(client: &Client, window: &str) {
    let result = wait_window(client, window).await;
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
}

/// Waits (20 s at most) until ratd counts a wait in flight: the call of `what` started waiting.
async fn wait_started(served: &Served, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while served.in_flight.waits() == 0 {
        assert!(Instant::now() < deadline, "{what}: the wait never started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_call_of_each_tool() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("notes.txt");
    let file = file.to_str().unwrap();

    let listed = call(&client, "list_windows", json!({})).await;
    assert_eq!(listed.is_error, Some(false));
    assert!(text(&listed).contains("main"), "{}", text(&listed));

    let created = call(&client, "create_window", json!({"name": "build"})).await;
    assert_eq!(created.is_error, Some(false), "{}", text(&created));
    wait_prompt(&client, "build").await;

    let sent = send_line(&client, "build", "echo rat$((6*7))").await;
    assert_eq!(sent.is_error, Some(false), "{}", text(&sent));

    let waited = wait_window(&client, "build").await;
    assert_eq!(waited.is_error, Some(false), "{}", text(&waited));
    assert!(
        text(&waited).starts_with("build: the command finished "),
        "{}",
        text(&waited)
    );

    // The hook records the prompt before bash prints it: the wait can end before the screen
    // shows the line after the output, so the screen is read until it does (10 s at most).
    let deadline = Instant::now() + Duration::from_secs(10);
    let read = loop {
        let read = call(&client, "read_window", json!({"window": "build"})).await;
        assert_eq!(read.is_error, Some(false), "{}", text(&read));
        if text(&read).contains("\nrat42\n") || Instant::now() > deadline {
            break read;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(text(&read).contains("\nrat42\n"), "{}", text(&read));

    let keys = call(
        &client,
        "send_keys",
        json!({"window": "build", "keys": ["e", "c", "h", "o", "Space", "k", "Enter"]}),
    )
    .await;
    assert_eq!(keys.is_error, Some(false), "{}", text(&keys));

    let written = call(
        &client,
        "write_file",
        json!({"path": file, "content": "one\ntwo\n"}),
    )
    .await;
    assert_eq!(written.is_error, Some(false), "{}", text(&written));

    let file_read = call(&client, "read_file", json!({"path": file})).await;
    assert_eq!(file_read.is_error, Some(false), "{}", text(&file_read));
    assert!(
        text(&file_read).ends_with("\none\ntwo\n"),
        "{}",
        text(&file_read)
    );

    let closed = call(&client, "close_window", json!({"name": "build"})).await;
    assert_eq!(closed.is_error, Some(false), "{}", text(&closed));
    let listed = call(&client, "list_windows", json!({})).await;
    assert!(!text(&listed).contains("build"), "{}", text(&listed));

    insta::assert_snapshot!(
        "each_tool",
        [
            (
                "create_window",
                text(&created).replace(&served.bundle.home().display().to_string(), "HOME")
            ),
            ("send_text", text(&sent)),
            ("send_keys", text(&keys)),
            ("write_file", text(&written).replace(file, "FILE")),
            ("close_window", text(&closed)),
        ]
        .iter()
        .map(|(tool, text)| format!("{tool}: {text}"))
        .collect::<Vec<_>>()
        .join("\n")
    );
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_a_result_with_is_error_telling_what_is_wrong() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let missing = call(
        &client,
        "send_text",
        json!({"window": "main", "text": "ls"}),
    )
    .await;
    assert_eq!(missing.is_error, Some(true));
    let wrong_type = call(
        &client,
        "read_window",
        json!({"window": "main", "scrollback_rows": -3}),
    )
    .await;
    assert_eq!(wrong_type.is_error, Some(true));
    insta::assert_snapshot!(format!("{}\n{}", text(&missing), text(&wrong_type)));

    let unknown = client
        .call_tool(CallToolRequestParams::new("rm_rf"))
        .await
        .expect_err("an unknown tool is a protocol error");
    insta::assert_snapshot!(unknown.to_string());
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_see_only_their_own_windows() {
    let mut served = Served::start(&["alice", "bob"]).await;
    let alice = served.mcp("alice").await;
    let bob = served.mcp("bob").await;
    let created = call(&alice, "create_window", json!({"name": "alpha"})).await;
    assert_eq!(created.is_error, Some(false), "{}", text(&created));
    let bobs = text(&call(&bob, "list_windows", json!({})).await);
    assert!(!bobs.contains("alpha"), "{bobs}");
    let alices = text(&call(&alice, "list_windows", json!({})).await);
    assert!(alices.contains("alpha"), "{alices}");
    let read = call(&bob, "read_window", json!({"window": "alpha"})).await;
    assert_eq!(read.is_error, Some(true), "{}", text(&read));
    alice.cancel().await.unwrap();
    bob.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_window_cancelled_by_the_client_ends_at_once() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    wait_prompt(&client, "main").await;
    let sent = send_line(&client, "main", "sleep 60").await;
    assert_eq!(sent.is_error, Some(false));
    let mut arguments = JsonObject::new();
    arguments.insert("window".into(), json!("main"));
    arguments.insert("max_seconds".into(), json!(50));
    let handle = client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
                CallToolRequestParams::new("wait_window").with_arguments(arguments),
            )),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("wait sent");
    wait_started(&served, "wait_window").await;
    let cancelled = Instant::now();
    handle
        .cancel(Some("test".into()))
        .await
        .expect("cancel sent");
    // At once, not after the 50 s asked: a bound a loaded machine can not reach (the
    // latency itself is measured in benches, not asserted here).
    while served.in_flight.waits() > 0 {
        assert!(
            cancelled.elapsed() < Duration::from_secs(10),
            "the wait still runs {:?} after the client cancelled it",
            cancelled.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_answers_waits_at_once_then_stops_tmux() {
    let mut served = Served::start(&["alice"]).await;
    let socket = served.guard.socket.clone();
    let client = served.mcp("alice").await;
    wait_prompt(&client, "main").await;
    send_line(&client, "main", "sleep 60").await;
    let waiting = {
        let peer = client.peer().clone();
        tokio::spawn(async move {
            let mut arguments = JsonObject::new();
            arguments.insert("window".into(), json!("main"));
            arguments.insert("max_seconds".into(), json!(50));
            peer.call_tool(CallToolRequestParams::new("wait_window").with_arguments(arguments))
                .await
        })
    };
    wait_started(&served, "wait_window").await;
    let stopping = Instant::now();
    served.shutdown.cancel();
    let answered = waiting.await.unwrap().expect("the wait is answered");
    // At once, not after the 50 s asked nor the 10 s of grace.
    assert!(
        stopping.elapsed() < Duration::from_secs(8),
        "{:?}",
        stopping.elapsed()
    );
    insta::assert_snapshot!(text(&answered));
    served.stop().await;
    assert!(!tmux_server_running(&socket), "the tmux server is left");
    // And the door is closed.
    let refused = tokio::net::TcpStream::connect(served.addr).await;
    assert!(refused.is_err(), "ratd still accepts connections");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_tmux_is_told_after_10_seconds() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    wait_prompt(&client, "main").await;
    let pid = crate::common::tmux_server_pid(&served.guard.socket).expect("tmux server pid");
    let pid = nix::unistd::Pid::from_raw(pid as i32);
    // This test's own tmux server (its private socket), stopped then resumed.
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGSTOP).unwrap();
    struct Resume(nix::unistd::Pid);
    impl Drop for Resume {
        fn drop(&mut self) {
            let _ = nix::sys::signal::kill(self.0, nix::sys::signal::Signal::SIGCONT);
        }
    }
    let resume = Resume(pid);
    let started = Instant::now();
    let stuck = call(&client, "list_windows", json!({})).await;
    let took = started.elapsed();
    drop(resume);
    assert_eq!(stuck.is_error, Some(true));
    assert_eq!(
        text(&stuck),
        "The terminals did not answer in time: retrying may work."
    );
    // Told after tmux's 10 s, not later than a loaded machine can explain.
    assert!(took < Duration::from_secs(25), "{took:?}");
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mistyped_arguments_name_the_argument_and_what_is_allowed() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let cases = [
        (
            "read_window",
            json!({"window": "main", "scrollback_rows": -1}),
        ),
        (
            "read_window",
            json!({"window": "main", "scrollback_rows": "ten"}),
        ),
        ("send_text", json!({"window": "main", "text": "ls"})),
        (
            "send_text",
            json!({"window": "main", "text": 5, "enter": true}),
        ),
        ("send_keys", json!({"window": "main", "keys": "Enter"})),
        (
            "wait_window",
            json!({"window": "main", "max_seconds": 10_000_000_000u64}),
        ),
        (
            "read_file",
            json!({"path": "/etc/hostname", "max_lines": -1}),
        ),
        ("write_file", json!({"path": "/tmp/x"})),
        ("create_window", json!({"name": ["a"]})),
    ];
    let mut out = Vec::new();
    for (tool, args) in cases {
        let result = call(&client, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{}", text(&result));
        out.push(format!("{tool} {args}\n  {}", text(&result)));
    }
    insta::assert_snapshot!(out.join("\n"));
    client.cancel().await.unwrap();
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrollback_rows_beyond_32_bits_read_all_the_history() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    let ready = wait_window(&client, "main").await;
    assert_eq!(ready.is_error, Some(false), "{}", text(&ready));
    let sent = send_line(&client, "main", "seq 100").await;
    assert_eq!(sent.is_error, Some(false), "{}", text(&sent));
    let done = wait_window(&client, "main").await;
    assert!(text(&done).contains("exit status 0"), "{}", text(&done));
    let all = call(
        &client,
        "read_window",
        json!({"window": "main", "scrollback_rows": 10_000}),
    )
    .await;
    assert_eq!(all.is_error, Some(false), "{}", text(&all));
    assert!(text(&all).contains("\n1\n2\n3\n"), "{}", text(&all));
    for rows in [
        json!(4_294_967_296u64),
        json!(9_223_372_036_854_775_808u64),
        json!(1e30),
    ] {
        let more = call(
            &client,
            "read_window",
            json!({"window": "main", "scrollback_rows": rows}),
        )
        .await;
        assert_eq!(more.is_error, Some(false), "{rows}: {}", text(&more));
        assert_eq!(text(&more), text(&all), "{rows}");
    }
    client.cancel().await.unwrap();
    served.stop().await;
}

/// The three calls that wait: (tool, arguments) of each, once `main` runs `sleep 60` or is
/// about to (a send that waits sends it itself), after what each needs sent before.
async fn waiting_calls(client: &Client, way: &str) -> (&'static str, JsonObject) {
    let arguments = |value: serde_json::Value| match value {
        serde_json::Value::Object(map) => map,
        _ => unreachable!(),
    };
    match way {
        "wait_window" => {
            call(
                client,
                "send_text",
                json!({"window": "main", "text": "sleep 60", "enter": true}),
            )
            .await;
            (
                "wait_window",
                arguments(json!({"window": "main", "max_seconds": 50})),
            )
        }
        "send_text" => (
            "send_text",
            arguments(
                json!({"window": "main", "text": "sleep 60", "enter": true, "wait_seconds": 50}),
            ),
        ),
        "send_keys" => {
            call(
                client,
                "send_text",
                json!({"window": "main", "text": "sleep 60", "enter": false}),
            )
            .await;
            (
                "send_keys",
                arguments(json!({"window": "main", "keys": ["Enter"], "wait_seconds": 50})),
            )
        }
        other => panic!("no way {other}"),
    }
}

/// A send that waits is a wait as wait_window is: counted among the waits in flight (the
/// status line's), ended at once by the client's cancellation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_that_waits_is_counted_and_cancelled_as_a_wait() {
    for way in ["send_text", "send_keys"] {
        let mut served = Served::start(&["alice"]).await;
        let client = served.mcp("alice").await;
        wait_prompt(&client, "main").await;
        let (tool, arguments) = waiting_calls(&client, way).await;
        let handle = client
            .send_cancellable_request(
                ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
                    CallToolRequestParams::new(tool).with_arguments(arguments),
                )),
                PeerRequestOptions::no_options(),
            )
            .await
            .expect("the call sent");
        wait_started(&served, way).await;
        assert_eq!(served.in_flight.waits(), 1, "{way}");
        let cancelled = Instant::now();
        handle
            .cancel(Some("test".into()))
            .await
            .expect("cancel sent");
        while served.in_flight.waits() > 0 {
            assert!(
                cancelled.elapsed() < Duration::from_secs(10),
                "{way}: the wait still runs {:?} after the client cancelled it",
                cancelled.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        // What it sent was sent: sleep runs.
        let waited = call(
            &client,
            "wait_window",
            json!({"window": "main", "max_seconds": 1}),
        )
        .await;
        assert!(
            text(&waited).contains("sleep in the foreground"),
            "{way}: {}",
            text(&waited)
        );
        client.cancel().await.unwrap();
        served.stop().await;
    }
}

/// ratd stopping answers a send that waits at once, as it answers wait_window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_answers_a_send_that_waits_at_once() {
    for way in ["send_text", "send_keys"] {
        let mut served = Served::start(&["alice"]).await;
        let client = served.mcp("alice").await;
        wait_prompt(&client, "main").await;
        let (tool, arguments) = waiting_calls(&client, way).await;
        let waiting = {
            let peer = client.peer().clone();
            tokio::spawn(async move {
                peer.call_tool(CallToolRequestParams::new(tool).with_arguments(arguments))
                    .await
            })
        };
        wait_started(&served, way).await;
        let stopping = Instant::now();
        served.shutdown.cancel();
        let answered = waiting.await.unwrap().expect("the wait is answered");
        assert!(
            stopping.elapsed() < Duration::from_secs(8),
            "{way}: {:?}",
            stopping.elapsed()
        );
        assert_eq!(
            text(&answered),
            "main: rat is stopping, so the wait ended early; what runs in the window stops with it.",
            "{way}"
        );
        served.stop().await;
    }
}

/// ratd's 10 s for a call is sized by the wait a send asks: a command of 12 s, waited for,
/// is answered with its end, not cut at 10 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_waiting_beyond_ten_seconds_is_answered_with_the_end() {
    let mut served = Served::start(&["alice"]).await;
    let client = served.mcp("alice").await;
    wait_prompt(&client, "main").await;
    let answered = call(
        &client,
        "send_text",
        json!({"window": "main", "text": "sleep 12; echo slept", "enter": true, "wait_seconds": 40}),
    )
    .await;
    assert_eq!(answered.is_error, Some(false), "{}", text(&answered));
    let told = text(&answered);
    assert!(
        told.starts_with("main: the command finished ")
            && told.ends_with(", exit status 0.\n[1 row printed]\nslept"),
        "{told}"
    );
    client.cancel().await.unwrap();
    served.stop().await;
}
