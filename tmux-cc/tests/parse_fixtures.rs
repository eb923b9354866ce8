//! The parser on byte transcripts recorded from a real tmux 3.3a (`tests/fixtures/record.sh`):
//! every event of each transcript asserted exactly, fed whole and one byte at a time; and on
//! those recorded with every other release of the version matrix, against their snapshots.

use tmux_cc::parse::{
    Event, Notification as N, PaneId, ParseError, Parser, Reply, SessionId, WindowId,
};

type Item = Result<Event, ParseError>;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// Every item the parser gives for `bytes` fed in chunks of `chunk` bytes, then `finish`.
fn items(bytes: &[u8], chunk: usize) -> Vec<Item> {
    let mut parser = Parser::new();
    let mut out = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        parser.feed(piece);
        while let Some(item) = parser.next_item() {
            out.push(item);
        }
    }
    out.extend(parser.finish());
    out
}

/// The one check of this file: the transcript parses to exactly `expected`, whole and split.
fn check(name: &str, expected: Vec<Item>) {
    let bytes = fixture(name);
    let whole = items(&bytes, bytes.len());
    assert_eq!(whole, expected, "{name}, fed whole");
    for chunk in [1, 2, 3, 7, 64] {
        assert_eq!(
            items(&bytes, chunk),
            expected,
            "{name}, fed {chunk} bytes at a time"
        );
    }
}

fn reply(time: i64, number: u64, flags: u32, success: bool, lines: &[&[u8]]) -> Item {
    Ok(Event::Reply(Reply {
        time,
        number,
        flags,
        success,
        lines: lines.iter().map(|l| l.to_vec()).collect(),
    }))
}

fn ok(time: i64, number: u64, lines: &[&[u8]]) -> Item {
    reply(time, number, 1, true, lines)
}

fn note(n: N) -> Item {
    Ok(Event::Notification(n))
}

/// A layout of a `%layout-change` as the parser gives it: parsed, checksum checked.
fn lay(text: &str) -> Result<tmux_cc::parse::Layout, tmux_cc::parse::BadLayout> {
    Ok(text.parse().expect("a layout tmux printed"))
}

fn s(text: &str) -> String {
    text.to_owned()
}

#[test]
fn attach_block_replies_errors_and_reasonless_exit() {
    check(
        "attach_replies_exit.out",
        vec![
            // The initial attach block has flags 0.
            reply(1796040337, 267, 0, true, &[]),
            note(N::SessionChanged {
                session: SessionId(0),
                name: s("main"),
            }),
            ok(1796040337, 272, &[b"hello"]),
            // Two commands on one line joined by `;`: one block each.
            ok(1796040337, 273, &[b"a"]),
            ok(1796040337, 274, &[b"b"]),
            ok(1796040337, 275, &[b"ends;"]),
            reply(1796040338, 276, 1, false, &[b"can't find window: @99"]),
            reply(
                1796040338,
                277,
                1,
                false,
                &[b"parse error: unknown command: bogus-command"],
            ),
            ok(1796040338, 278, &[]),
            note(N::WindowAdd {
                window: WindowId(1),
            }),
            ok(1796040338, 280, &[]),
            // Window names are the rest of the line, spaces kept.
            note(N::WindowRenamed {
                window: WindowId(1),
                name: s("new name  x"),
            }),
            ok(1796040339, 282, &[]),
            note(N::SessionRenamed {
                session: SessionId(0),
                name: s("renamed"),
            }),
            ok(1796040339, 284, &[b"@0 bash", b"@1 new name  x"]),
            // An empty line sent: `%exit` with no reason.
            note(N::Exit { reason: None }),
        ],
    );
}

#[test]
fn capture_holding_guard_lines_stays_one_reply() {
    check(
        "capture_guards_detached.out",
        vec![
            reply(1796040340, 267, 0, true, &[]),
            note(N::SessionChanged {
                session: SessionId(0),
                name: s("main"),
            }),
            note(N::WindowRenamed {
                window: WindowId(0),
                name: s("sleep"),
            }),
            // The pane shows lines that look like guards and a notification: all body.
            ok(
                1796040340,
                273,
                &[
                    b"%end 1796040283 269 1",
                    b"%begin 1796040283 269 1",
                    b"%error 1 2 1",
                    b"%output %0 fake",
                    b"",
                ],
            ),
            ok(1796040341, 274, &[]),
            // detach-client: 3.3a prints `%exit` without a reason.
            note(N::Exit { reason: None }),
        ],
    );
}

/// Bytes 0x01 to 0x1f and `\` (escaped by tmux as \ooo), then 0x7f, 0x80, 0xfe, 0xff, `%end`
/// and UTF-8 `é` (raw), then LF (escaped): what `bytes.sh` in record.sh prints.
fn printed_bytes() -> Vec<u8> {
    let mut data: Vec<u8> = (0x01..=0x1f).collect();
    data.extend_from_slice(b"\\|\x7f\x80\xfe\xff|%end|caf\xc3\xa9\n");
    data
}

#[test]
fn output_unescapes_every_escaped_byte_and_keeps_raw_bytes() {
    check(
        "output_bytes_server_exited.out",
        vec![
            reply(1796040341, 267, 0, true, &[]),
            note(N::SessionChanged {
                session: SessionId(0),
                name: s("main"),
            }),
            ok(1796040342, 272, &[]),
            note(N::Output {
                pane: PaneId(0),
                data: printed_bytes(),
            }),
            note(N::WindowRenamed {
                window: WindowId(0),
                name: s("sh"),
            }),
            ok(1796040343, 275, &[]),
            note(N::SessionsChanged),
            // kill-server sent by this client: `%exit` without a reason.
            note(N::Exit { reason: None }),
        ],
    );
}

#[test]
fn window_pane_session_and_client_notifications() {
    let layout = lay("4196,80x24,0,0[80x12,0,0,0,80x11,0,13,2]");
    check(
        "notifications.out",
        vec![
            reply(1796040344, 272, 0, true, &[]),
            note(N::SessionChanged {
                session: SessionId(0),
                name: s("main"),
            }),
            ok(1796040344, 277, &[]),
            note(N::LayoutChange {
                window: WindowId(0),
                layout: layout.clone(),
                visible_layout: layout.clone(),
                flags: s("*"),
            }),
            ok(1796040344, 279, &[]),
            note(N::WindowPaneChanged {
                window: WindowId(0),
                pane: PaneId(2),
            }),
            note(N::WindowRenamed {
                window: WindowId(0),
                name: s("sleep"),
            }),
            ok(1796040345, 282, &[]),
            note(N::PaneModeChanged { pane: PaneId(2) }),
            note(N::WindowRenamed {
                window: WindowId(0),
                name: s("[tmux]"),
            }),
            ok(1796040345, 285, &[]),
            note(N::WindowAdd {
                window: WindowId(2),
            }),
            note(N::WindowRenamed {
                window: WindowId(2),
                name: s("bash"),
            }),
            ok(1796040345, 288, &[]),
            // A window that is not the current one: empty flags (the line ends with a space).
            note(N::LayoutChange {
                window: WindowId(2),
                layout: lay("41a3,80x24,0,0[80x12,0,0,3,80x11,0,13,4]"),
                visible_layout: lay("41a3,80x24,0,0[80x12,0,0,3,80x11,0,13,4]"),
                flags: s(""),
            }),
            ok(1796040346, 290, &[]),
            note(N::SessionWindowChanged {
                session: SessionId(0),
                window: WindowId(2),
            }),
            ok(1796040346, 292, &[]),
            note(N::UnlinkedWindowAdd {
                window: WindowId(3),
            }),
            note(N::UnlinkedWindowRenamed {
                window: WindowId(3),
                name: s("bash"),
            }),
            ok(1796040346, 295, &[]),
            note(N::UnlinkedWindowRenamed {
                window: WindowId(3),
                name: s("elsewhere"),
            }),
            ok(1796040346, 297, &[]),
            note(N::UnlinkedWindowClose {
                window: WindowId(3),
            }),
            ok(1796040347, 299, &[]),
            note(N::SessionWindowChanged {
                session: SessionId(0),
                window: WindowId(0),
            }),
            note(N::UnlinkedWindowClose {
                window: WindowId(2),
            }),
            ok(1796040347, 302, &[]),
            note(N::UnlinkedWindowAdd {
                window: WindowId(4),
            }),
            note(N::SessionsChanged),
            note(N::UnlinkedWindowRenamed {
                window: WindowId(4),
                name: s("bash"),
            }),
            ok(1796040347, 306, &[]),
            note(N::WindowPaneChanged {
                window: WindowId(0),
                pane: PaneId(0),
            }),
            note(N::LayoutChange {
                window: WindowId(0),
                layout,
                visible_layout: lay("b25d,80x24,0,0,0"),
                flags: s("*Z"),
            }),
            note(N::WindowRenamed {
                window: WindowId(0),
                name: s("sleep"),
            }),
            note(N::ClientSessionChanged {
                client: s("client-18842"),
                session: SessionId(0),
                name: s("main"),
            }),
            note(N::ClientSessionChanged {
                client: s("client-18842"),
                session: SessionId(1),
                name: s("other"),
            }),
            note(N::ClientDetached {
                client: s("client-18842"),
            }),
            ok(1796040349, 319, &[]),
            note(N::SessionsChanged),
            note(N::UnlinkedWindowClose {
                window: WindowId(4),
            }),
            note(N::Exit { reason: None }),
        ],
    );
}

#[test]
fn extended_output_pause_in_block_subscriptions_and_exit_reason() {
    check(
        "pause_subscriptions_killed.out",
        vec![
            reply(1796040349, 269, 0, true, &[]),
            note(N::SessionChanged {
                session: SessionId(0),
                name: s("main"),
            }),
            ok(1796040350, 274, &[]),
            ok(1796040350, 275, &[]),
            ok(1796040350, 276, &[]),
            // The value is the rest of the line after the first ` : `, which may hold ` : `.
            note(N::SubscriptionChanged {
                name: s("pcmd"),
                session: SessionId(0),
                window: Some(WindowId(0)),
                window_index: Some(0),
                pane: Some(PaneId(0)),
                value: s("%0 : 80"),
            }),
            note(N::SubscriptionChanged {
                name: s("sname"),
                session: SessionId(0),
                window: None,
                window_index: None,
                pane: None,
                value: s("main"),
            }),
            note(N::SubscriptionChanged {
                name: s("wname"),
                session: SessionId(0),
                window: Some(WindowId(0)),
                window_index: Some(0),
                pane: None,
                value: s("bash x"),
            }),
            ok(1796040352, 277, &[]),
            note(N::ExtendedOutput {
                pane: PaneId(0),
                age_ms: 0,
                data: printed_bytes(),
            }),
            note(N::WindowRenamed {
                window: WindowId(0),
                name: s("sleep"),
            }),
            note(N::SubscriptionChanged {
                name: s("wname"),
                session: SessionId(0),
                window: Some(WindowId(0)),
                window_index: Some(0),
                pane: None,
                value: s("sleep x"),
            }),
            // 3.3a prints %pause/%continue inside the refresh-client's block: body lines.
            ok(1796040353, 280, &[b"%pause %0"]),
            ok(1796040353, 281, &[b"%continue %0"]),
            note(N::Exit {
                reason: Some(s("server exited unexpectedly")),
            }),
        ],
    );
}

#[test]
fn transcripts_are_lf_terminated_without_cr() {
    for name in [
        "attach_replies_exit.out",
        "capture_guards_detached.out",
        "output_bytes_server_exited.out",
        "notifications.out",
        "pause_subscriptions_killed.out",
    ] {
        let bytes = fixture(name);
        assert_eq!(bytes.last(), Some(&b'\n'), "{name} ends with LF");
        assert!(!bytes.contains(&b'\r'), "{name}: tmux 3.3a printed a CR");
    }
}

// ---- The transcripts recorded with every other release of the version matrix
// (`tests/fixtures/VERSION/`, each made by `record.sh` with that tmux first on PATH): each one
// fed whole and in pieces gives the same events, without a parse error or an unknown
// notification, and exactly the events of its snapshot (`tests/snapshots/`).

const VERSIONS: [&str; 5] = ["3.2a", "3.4", "3.5a", "3.6b", "3.7c"];
const TRANSCRIPTS: [&str; 5] = [
    "attach_replies_exit.out",
    "capture_guards_detached.out",
    "notifications.out",
    "output_bytes_server_exited.out",
    "pause_subscriptions_killed.out",
];

/// One line per event: replies with their fields and body lines (lossy UTF-8), notifications
/// as their Debug form with `%output` data as a byte string.
fn render(items: &[Item]) -> String {
    let mut out = String::new();
    for item in items {
        match item {
            Ok(Event::Reply(r)) => {
                out.push_str(&format!(
                    "reply {} {} {} {}\n",
                    r.time,
                    r.number,
                    r.flags,
                    if r.success { "end" } else { "error" }
                ));
                for line in &r.lines {
                    out.push_str(&format!("  | {}\n", String::from_utf8_lossy(line)));
                }
            }
            Ok(Event::Notification(N::Output { pane, data })) => {
                out.push_str(&format!(
                    "output {pane} {:?}\n",
                    data.escape_ascii().to_string()
                ));
            }
            // A layout as its text (the tree's Debug form would take a screen a line).
            Ok(Event::Notification(N::LayoutChange {
                window,
                layout,
                visible_layout,
                flags,
            })) => {
                let text = |l: &Result<tmux_cc::parse::Layout, tmux_cc::parse::BadLayout>| match l {
                    Ok(layout) => format!("Ok({:?})", layout.to_string()),
                    Err(bad) => format!("Err({bad})"),
                };
                out.push_str(&format!(
                    "LayoutChange {{ window: {window:?}, layout: {}, visible_layout: {}, flags: {flags:?} }}\n",
                    text(layout),
                    text(visible_layout)
                ));
            }
            Ok(Event::Notification(n)) => out.push_str(&format!("{n:?}\n")),
            Err(e) => out.push_str(&format!("PARSE ERROR {e}\n")),
        }
    }
    out
}

#[test]
fn every_version_s_transcripts_parse_the_same_whole_and_in_pieces() {
    for version in VERSIONS {
        for name in TRANSCRIPTS {
            let path = format!(
                "{}/tests/fixtures/{version}/{name}",
                env!("CARGO_MANIFEST_DIR")
            );
            let bytes = std::fs::read(&path).unwrap_or_else(|e| {
                panic!("reading {path}: {e} (record it: PATH=TMUX_BIN:$PATH sh tests/fixtures/record.sh tests/fixtures/{version})")
            });
            let whole = items(&bytes, bytes.len());
            assert!(
                whole.iter().all(|item| item.is_ok()),
                "{version}/{name}: parse errors:\n{}",
                render(&whole)
            );
            assert!(
                !whole
                    .iter()
                    .any(|item| matches!(item, Ok(Event::Notification(N::Unknown { .. })))),
                "{version}/{name}: a notification the parser does not know:\n{}",
                render(&whole)
            );
            for chunk in [1, 2, 3, 7, 64] {
                assert_eq!(
                    items(&bytes, chunk),
                    whole,
                    "{version}/{name}, fed {chunk} bytes at a time"
                );
            }
            insta::assert_snapshot!(
                format!("{version}_{}", name.trim_end_matches(".out")),
                render(&whole)
            );
        }
    }
}
