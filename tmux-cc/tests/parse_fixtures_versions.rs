//! The parser on the transcripts recorded with every other tmux release of the version matrix
//! (`tests/fixtures/VERSION/`, each made by `record.sh` with that tmux first on PATH): each one
//! fed whole and in pieces gives the same events, without a parse error, and exactly the events
//! of its snapshot (`tests/snapshots/`). Beside them, `parse_fixtures.rs` asserts the 3.3a
//! transcripts event by event.

use tmux_cc::parse::{Event, Notification, ParseError, Parser};

const VERSIONS: [&str; 5] = ["3.2a", "3.4", "3.5a", "3.6b", "3.7c"];
const TRANSCRIPTS: [&str; 5] = [
    "attach_replies_exit.out",
    "capture_guards_detached.out",
    "notifications.out",
    "output_bytes_server_exited.out",
    "pause_subscriptions_killed.out",
];

type Item = Result<Event, ParseError>;

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
            Ok(Event::Notification(Notification::Output { pane, data })) => {
                out.push_str(&format!(
                    "output {pane} {:?}\n",
                    data.escape_ascii().to_string()
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
                !whole.iter().any(|item| matches!(
                    item,
                    Ok(Event::Notification(Notification::Unknown { .. }))
                )),
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
