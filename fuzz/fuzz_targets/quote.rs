//! Fuzzes `tmux_cc::quote` with arbitrary argument bytes. Properties checked on every input:
//! - an argument with a NUL byte is refused, and the error names the first NUL's offset;
//! - otherwise the quoted word is one line (no LF, CR, NUL, or 0xFF byte that tmux would take
//!   for the end of input), and lexing it with the model of tmux 3.3a's lexer
//!   (`tmux_cc::quote::model`) gives back exactly one word, the input;
//! - a whole command line of such arguments lexes back to the name and the arguments.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tmux_cc::quote::model::{Token, lex};
use tmux_cc::quote::{command_line, quote_arg};

fuzz_target!(|data: &[u8]| {
    if let Some(nul) = data.iter().position(|&b| b == 0) {
        let err = quote_arg(data).expect_err("a NUL byte must be refused");
        assert_eq!(err.offset(), nul);
        return;
    }
    let quoted = quote_arg(data).expect("no NUL: quoting cannot fail");
    for bad in [b'\n', b'\r', 0, 0xff] {
        assert!(!quoted.contains(&bad), "quoted word holds byte {bad:#04x}: {quoted:?}");
    }
    assert_eq!(lex(&quoted), Ok(vec![Token::Word(data.to_vec())]), "quoted: {quoted:?}");

    // Split the input in two arguments to check a whole line, `;` at ends included.
    let (a, b) = data.split_at(data.len() / 2);
    let line = command_line("set-buffer", &[b"--", a, b]).expect("no NUL");
    let expected = [&b"set-buffer"[..], b"--", a, b].map(|w| Token::Word(w.to_vec())).to_vec();
    assert_eq!(lex(&line), Ok(expected), "line: {line:?}");
});
