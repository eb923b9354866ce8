//! Fuzzes `rat::lines::LineReader`, the bridge's bounded line reader (`docs/design/bridge.md`,
//! Relay).
//! The input is a limit byte (0 to 63 after `% 64`), a buffer-capacity byte (1 to 16 after
//! `% 16 + 1`: a small buffer cuts lines at many places) and the bytes read. Property checked
//! on every input: the lines read are exactly the input split at each `\n` (no empty piece after
//! a final `\n`, a `\r` kept), each piece over the limit reduced to `Line::TooLong` with its
//! length, and then the end (`None`); no error, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rat::lines::{Line, LineReader};
use tokio::io::BufReader;

fuzz_target!(|input: (u8, u8, &[u8])| {
    let (limit, capacity, data) = input;
    let (limit, capacity) = (limit as usize % 64, capacity as usize % 16 + 1);
    // What the reader must give: the input split at each \n (no empty piece after a final
    // \n), pieces over the limit reduced to their length.
    let mut pieces: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    let expected: Vec<Line> = pieces
        .into_iter()
        .map(|p| {
            if p.len() > limit {
                Line::TooLong {
                    len: p.len() as u64,
                }
            } else {
                Line::Message(p.to_vec())
            }
        })
        .collect();
    let got = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime without drivers")
        .block_on(async {
            let mut reader =
                LineReader::with_limit(BufReader::with_capacity(capacity, data), limit);
            let mut out = Vec::new();
            while let Some(line) = reader
                .next_line()
                .await
                .expect("reading a slice cannot fail")
            {
                out.push(line);
            }
            out
        });
    assert_eq!(got, expected, "limit {limit}, capacity {capacity}");
});
