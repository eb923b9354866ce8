//! Fuzzes `tmux_cc::parse::Layout` with arbitrary bytes. Properties checked on every input:
//! - no panic, whatever the bytes (and no stack overflow: nesting is bounded);
//! - when the bytes parse, rendering the layout gives back exactly the input: the parser
//!   accepts only the form tmux's `layout_dump` prints (lowercase checksum, no leading zeros,
//!   ids on panes only), so there is no normalisation to allow for;
//! - the checksum of a parsed layout is the one its first four bytes state;
//! - the same bytes behind a recomputed checksum (so the structure, not the checksum, is what
//!   decides) parse to a layout that renders back to them, or fail with an error other than
//!   a checksum mismatch.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tmux_cc::parse::{Layout, LayoutError, layout_checksum};

fn check(input: &[u8]) -> Result<Layout, LayoutError> {
    let result = Layout::parse(input);
    if let Ok(layout) = &result {
        assert_eq!(layout.to_string().as_bytes(), input, "rendering differs from the input");
        let stated = std::str::from_utf8(&input[..4]).expect("hex");
        assert_eq!(format!("{:04x}", layout.checksum()), stated);
        // Walking the panes terminates and sees every pane once.
        let _ = layout.panes().count();
    }
    result
}

fuzz_target!(|data: &[u8]| {
    let _ = check(data);
    // The body behind a right checksum: exercises the structure whatever the first bytes were.
    let body = data.get(5..).unwrap_or(data);
    let mut fixed = format!("{:04x},", layout_checksum(body)).into_bytes();
    fixed.extend_from_slice(body);
    if let Err(e) = check(&fixed) {
        assert!(
            !matches!(e, LayoutError::ChecksumMismatch { .. }),
            "recomputed checksum reported as a mismatch: {e}"
        );
    }
});
