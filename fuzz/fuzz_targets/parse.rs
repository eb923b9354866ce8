//! Fuzzes `tmux_cc::parse::Parser` with arbitrary bytes. Properties checked on every input:
//! - no panic, whatever the bytes;
//! - feeding the input in chunks (sizes taken from the input's first bytes) gives exactly the
//!   items of feeding it whole, `finish` included;
//! - every event parsed, rendered back with `render` and parsed again, is the same event.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tmux_cc::parse::{Event, ParseError, Parser, render};

fn items(chunks: &mut dyn Iterator<Item = &[u8]>) -> Vec<Result<Event, ParseError>> {
    let mut parser = Parser::new();
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk);
        while let Some(item) = parser.next_item() {
            out.push(item);
        }
    }
    out.extend(parser.finish());
    out
}

fuzz_target!(|data: &[u8]| {
    // The first 8 bytes choose chunk sizes (1 to 64, cycled); the rest is tmux's output.
    let (sizes, input) = data.split_at(data.len().min(8));
    let whole = items(&mut std::iter::once(input));

    let mut rest = input;
    let mut chunked_pieces = Vec::new();
    let mut i = 0;
    while !rest.is_empty() {
        let size = sizes.get(i % sizes.len().max(1)).map_or(1, |s| usize::from(s % 64) + 1);
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        chunked_pieces.push(piece);
        rest = tail;
        i += 1;
    }
    let chunked = items(&mut chunked_pieces.into_iter());
    assert_eq!(whole, chunked, "chunked feeding differs from whole feeding");

    for event in whole.iter().flatten() {
        let bytes = render(event);
        let again = items(&mut std::iter::once(&bytes[..]));
        assert_eq!(again, vec![Ok(event.clone())], "render then parse changed {event:?}");
    }
});
