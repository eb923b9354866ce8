//! The transcript through the tools' answers, against ground truth: the differential test of
//! `transcript` (a seeded generator of commands whose output is known), each command sent by
//! send_text with a wait, as an agent sends it, in one after another, or back to back (a
//! second client's command typed while the first runs: each answer tells its own command's
//! rows and status, the first that a later input ran after it). Every answer must be the one
//! the expected rendering makes.
//!
//! `RAT_ANSWERS_SEQUENCES` (300 by default; `scripts/tmux-matrix` runs fewer) and
//! `RAT_ANSWERS_SEED` set the run.

use rat_core::terminals::SendText;
use rat_core::terminals::controller::TERMINAL_SIZE;
use rat_core::terminals::transcript::render;

use crate::common::*;
use crate::transcript::{Rng, env_or, onlcr, piece};

/// The rows an answer holds at most, and its bytes (as `output::KEPT_ROWS`, `KEPT_BYTES`).
const KEPT_ROWS: usize = 40;
const KEPT_BYTES: usize = 8 * 1024;

/// The block an answer must end with for `output`, what the command printed.
fn expected_block(output: &[u8]) -> (String, Vec<String>) {
    let (w, h) = TERMINAL_SIZE;
    let lines = render(w as u16, h as u16, &onlcr(output));
    let all = lines.lines;
    if all.is_empty() {
        return ("Nothing printed.".into(), Vec::new());
    }
    let (mut kept, mut bytes) = (0, 0);
    for line in all.iter().rev() {
        if kept == KEPT_ROWS || bytes + line.len() + 1 > KEPT_BYTES {
            break;
        }
        kept += 1;
        bytes += line.len() + 1;
    }
    let total = all.len();
    let rows = if total == 1 { "row" } else { "rows" };
    let mut header = if lines.gone > 0 {
        format!(
            "[its first {} {} went past the history's 10000 rows before they could be told: {total} {rows} left",
            lines.gone,
            if lines.gone == 1 { "row" } else { "rows" }
        )
    } else {
        format!("[{total} {rows} printed")
    };
    if kept < total {
        header.push_str(&format!(", the last {kept} below"));
    } else {
        header.push(']');
    }
    (header, all[total - kept..].to_vec())
}

/// Checks `answer` against the head and the block expected; `what` names the command.
fn check(answer: &str, head: &str, output: &[u8], what: &dyn Fn() -> String) {
    let (header, rows) = expected_block(output);
    let left_on = {
        let on = output.windows(8).rposition(|w| w == b"\x1b[?1049h");
        let off = output.windows(8).rposition(|w| w == b"\x1b[?1049l");
        on.is_some_and(|on| off.is_none_or(|off| off < on))
    };
    let mut answer = answer.to_string();
    if left_on {
        let note = answer
            .rfind("\n[It left full-screen mode on")
            .unwrap_or_else(|| {
                panic!(
                    "{}: no word of full-screen mode left on in {answer:?}",
                    what()
                )
            });
        answer.truncate(note);
    }
    let Some(rest) = answer.strip_prefix(&format!("{head}\n")) else {
        panic!("{}: {answer:?} does not start with {head:?}", what());
    };
    if rows.is_empty() {
        assert_eq!(rest, header, "{}", what());
        return;
    }
    let (got_header, got_rows) = rest
        .split_once("]\n")
        .map(|(h, r)| (format!("{h}]"), r))
        .unwrap_or_else(|| panic!("{}: no header in {rest:?}", what()));
    if header.ends_with(']') {
        assert_eq!(got_header, header, "{}", what());
    } else {
        assert!(
            got_header.starts_with(&header),
            "{}: {got_header:?}",
            what()
        );
    }
    assert_eq!(got_rows, rows.join("\n"), "{}", what());
}

fn send(line: &str, seconds: u32) -> SendText {
    run_text("main", line, seconds)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_tells_its_own_command_s_rows_and_status() {
    let sequences = env_or("RAT_ANSWERS_SEQUENCES", 300);
    let seed = env_or("RAT_ANSWERS_SEED", 0x5eed_a45e_0027);
    let mut rng = Rng(seed | 1);
    let f = start_ready().await;
    let t = f.controller.session("s");
    let dir = f.home().to_path_buf();
    let (mut commands, mut raced) = (0u64, 0u64);
    let make = |rng: &mut Rng, commands: &mut u64| {
        let big = rng.below(40) == 0;
        let mut output = Vec::new();
        for _ in 0..1 + rng.below(4) {
            output.extend(piece(rng, big));
        }
        let status = rng.below(4);
        let file = format!("o{commands}");
        std::fs::write(dir.join(&file), &output).unwrap();
        *commands += 1;
        (file, output, status)
    };
    for sequence in 0..sequences {
        for _ in 0..1 + rng.below(3) {
            if rng.below(4) == 0 {
                // Back to back: the second typed while the first runs, by another client.
                let (file_a, out_a, status_a) = make(&mut rng, &mut commands);
                let (file_b, out_b, status_b) = make(&mut rng, &mut commands);
                let a = f.controller.session("s");
                let line_a = format!("sleep 0.3; cat {file_a}; (exit {status_a})");
                let first = tokio::spawn(async move { a.send_text(send(&line_a, 30)).await });
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                let second = t
                    .send_text(send(&format!("cat {file_b}; (exit {status_b})"), 30))
                    .await;
                let first = first.await.unwrap();
                let what = |out: &[u8]| {
                    let out = String::from_utf8_lossy(out).into_owned();
                    move || format!("sequence {sequence} (seed {seed:#x}), raced: {out:?}")
                };
                check(
                    &f.redact(&first.text),
                    &format!(
                        "main: the command finished, exit status {status_a}. A later input ran \
                         after it (another client's, or typed ahead): wait_window main tells the \
                         last one."
                    ),
                    &out_a,
                    &what(&out_a),
                );
                check(
                    &f.redact(&second.text),
                    &format!("main: the command finished Ns ago, exit status {status_b}."),
                    &out_b,
                    &what(&out_b),
                );
                raced += 1;
            } else {
                let (file, output, status) = make(&mut rng, &mut commands);
                let r = t
                    .send_text(send(&format!("cat {file}; (exit {status})"), 30))
                    .await;
                let out = String::from_utf8_lossy(&output).into_owned();
                check(
                    &f.redact(&r.text),
                    &format!("main: the command finished Ns ago, exit status {status}."),
                    &output,
                    &|| format!("sequence {sequence} (seed {seed:#x}): {out:?}"),
                );
            }
        }
    }
    println!("{sequences} sequences, {commands} commands ({raced} races), 0 wrong");
}
