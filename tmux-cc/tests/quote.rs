//! Quoting, pure: the exact words written, and the property that the model of tmux 3.3a's
//! lexer (`quote::model`) reads every argument back byte for byte. The round trip through a
//! real tmux server is an integration test of its own.

use proptest::collection::vec;
use proptest::prelude::*;
use tmux_cc::quote::model::{LexError, Token, lex};
use tmux_cc::quote::{command_line, quote_arg};

fn word(w: &[u8]) -> Token {
    Token::Word(w.to_vec())
}

#[test]
fn quoted_words_are_exactly_these() {
    let table: &[(&[u8], &[u8])] = &[
        (b"", b"''"),
        (b"plain", b"'plain'"),
        (b"it's", b"'it'\\''s'"),
        (b"'", b"\\'"),
        (b"''x", b"\\'\\''x'"),
        (b"a\nb", b"'a'\\n'b'"),
        (b"\r\n", b"\\r\\n"),
        (b"\xff", b"\\377"),
        (b"caf\xc3\xa9 \xff\xfe", b"'caf\xc3\xa9 '\\377'\xfe'"),
        (b"ends with;", b"'ends with;'"),
        (b"$HOME ~ #{pane_id}", b"'$HOME ~ #{pane_id}'"),
        (b"# first", b"'# first'"),
        (b"%if", b"'%if'"),
        (b"{}", b"'{}'"),
        (b"-leading", b"'-leading'"),
        (b"back\\slash\\", b"'back\\slash\\'"),
        (b"\x1b[31m\ttab", b"'\x1b[31m\ttab'"),
        (b"\x01\x7f\x80", b"'\x01\x7f\x80'"),
    ];
    for (arg, expected) in table {
        let quoted = quote_arg(arg).unwrap();
        assert_eq!(
            quoted.escape_ascii().to_string(),
            expected.escape_ascii().to_string(),
            "quote_arg({})",
            arg.escape_ascii()
        );
        assert_eq!(
            lex(&quoted),
            Ok(vec![word(arg)]),
            "lexing {}",
            quoted.escape_ascii()
        );
    }
}

#[test]
fn command_lines_are_exactly_these() {
    assert_eq!(command_line("kill-server", &[]).unwrap(), b"kill-server");
    assert_eq!(
        command_line("send-keys", &[b"-t", b"%3", b"-l", b"--", b"echo 'hi';"]).unwrap(),
        b"send-keys '-t' '%3' '-l' '--' 'echo '\\''hi'\\'';'"
    );
    assert_eq!(
        command_line("set-buffer", &[b"-b", b"rat", b"--", b""]).unwrap(),
        b"set-buffer '-b' 'rat' '--' ''"
    );
}

#[test]
fn errors_say_where_and_what_to_do() {
    let nul = quote_arg(b"ab\0cd").unwrap_err();
    assert_eq!((nul.offset(), nul.argument()), (2, None));
    let nul_in_line = command_line("set-buffer", &[b"--", b"\0"]).unwrap_err();
    assert_eq!((nul_in_line.offset(), nul_in_line.argument()), (0, Some(1)));
    let bad_names: Vec<String> = ["", "set-buffer;", "Kill", "new-window 'x'"]
        .iter()
        .map(|name| command_line(name, &[]).unwrap_err().to_string())
        .collect();
    insta::assert_snapshot!(
        [
            nul.to_string(),
            nul_in_line.to_string(),
            bad_names.join("\n")
        ]
        .join("\n")
    );
}

/// The model itself, on lines whose meaning in tmux 3.3a is known (cmd-parse.y, and the
/// transcripts: `a;display-message -p b` ran two commands).
#[test]
fn the_lexer_model_reads_tmux_syntax() {
    let ok = |line: &[u8], tokens: Vec<Token>| assert_eq!(lex(line), Ok(tokens), "{line:?}");
    ok(
        b"display-message -p a;display-message -p b",
        vec![
            word(b"display-message"),
            word(b"-p"),
            word(b"a"),
            Token::Semicolon,
            word(b"display-message"),
            word(b"-p"),
            word(b"b"),
        ],
    );
    ok(
        b"a 'b c' \"d e\"  f\tg",
        vec![
            word(b"a"),
            word(b"b c"),
            word(b"d e"),
            word(b"f"),
            word(b"g"),
        ],
    );
    ok(b"x'y'\\'z", vec![word(b"xy'z")]);
    ok(b"\\e\\t\\s\\101\\377", vec![word(b"\x1b\t A\xff")]);
    ok(b"'\\n'", vec![word(b"\\n")]);
    ok(b"a # comment 'x", vec![word(b"a")]);
    ok(b"a\\\nb", vec![word(b"ab")]);
    ok(b"a\nb", vec![word(b"a"), Token::Newline, word(b"b")]);
    ok(
        b"{ a }",
        vec![Token::OpenBrace, word(b"a"), Token::CloseBrace],
    );
    ok(b"%1 %%", vec![word(b"%1"), word(b"%%")]);
    // Checked on tmux 3.3a: an unclosed quote is closed by the end of the line; a raw 0xFF is
    // EOF: inside a word it cuts the word in two (`'ab<FF>cd' x` is three words, `ab`, `cd x`
    // after the reopened quote), between words it ends the command (a syntax error there).
    ok(b"'open", vec![word(b"open")]);
    ok(b"'ab\xffcd' x", vec![word(b"ab"), word(b"cd x")]);
    ok(b"a \xff b", vec![word(b"a"), Token::Newline, word(b"b")]);
    assert_eq!(
        lex(b"$HOME"),
        Err(LexError::Expansion("`$` environment variable"))
    );
    assert_eq!(lex(b"~/x"), Err(LexError::Expansion("`~` home directory")));
    assert_eq!(lex(b"%if 1"), Err(LexError::Condition));
    assert_eq!(lex(b"\\9"), Ok(vec![word(b"9")]));
    assert_eq!(lex(b"\\4"), Err(LexError::Syntax("invalid octal escape")));
}

/// Any byte but NUL, with the troublesome ones frequent.
fn arg() -> impl Strategy<Value = Vec<u8>> {
    vec(
        prop_oneof![
            1..=255u8,
            Just(b'\''),
            Just(b'\\'),
            Just(b'\n'),
            Just(b'\r'),
            Just(0xff),
            Just(b';'),
            Just(b'$'),
            Just(b'~'),
            Just(b'#'),
            Just(b' '),
        ],
        0..40,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn quote_then_lex_gives_the_argument_back(arg in arg()) {
        let quoted = quote_arg(&arg).unwrap();
        for bad in [b'\n', b'\r', 0, 0xff] {
            prop_assert!(!quoted.contains(&bad), "byte {:#04x} in {:?}", bad, quoted);
        }
        prop_assert_eq!(lex(&quoted), Ok(vec![word(&arg)]));
    }

    #[test]
    fn a_command_line_lexes_back_to_name_and_arguments(args in vec(arg(), 0..6)) {
        let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        let line = command_line("set-buffer", &refs).unwrap();
        prop_assert!(!line.contains(&b'\n') && !line.contains(&b'\r'));
        let mut expected = vec![word(b"set-buffer")];
        expected.extend(args.iter().map(|a| word(a)));
        prop_assert_eq!(lex(&line), Ok(expected));
    }

    #[test]
    fn nul_is_refused_at_its_offset(before in arg(), after in vec(any::<u8>(), 0..10)) {
        let input = [before.as_slice(), b"\0", after.as_slice()].concat();
        let err = quote_arg(&input).unwrap_err();
        prop_assert_eq!(err.offset(), before.len());
    }
}
