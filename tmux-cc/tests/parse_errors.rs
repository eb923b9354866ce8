//! Bad lines: each is reported once, as a `ParseError` naming the line and what was expected,
//! and the line after it parses as if the bad one had not been there.

use tmux_cc::parse::{Event, Notification, PaneId, ParseError, Parser, Reply};

/// Items for `input` fed whole, then `finish`.
fn parse(input: &[u8]) -> Vec<Result<Event, ParseError>> {
    let mut parser = Parser::new();
    parser.feed(input);
    let mut items: Vec<_> = std::iter::from_fn(|| parser.next_item()).collect();
    items.extend(parser.finish());
    items
}

/// The bad line alone gives exactly one error; followed by a good line, that good line's event
/// comes next, intact. Returns the error's message, as a user sees it.
fn bad_line(line: &[u8]) -> String {
    let good = b"%output %7 ok\n";
    let input = [line, b"\n", good].concat();
    let items = parse(&input);
    let [Err(error), Ok(event)] = &items[..] else {
        panic!("expected one error then the good line, got {items:?}");
    };
    assert_eq!(error.line, line, "the error carries the whole line");
    assert_eq!(
        *event,
        Event::Notification(Notification::Output {
            pane: PaneId(7),
            data: b"ok".to_vec()
        })
    );
    error.to_string()
}

#[test]
fn each_bad_line_is_reported_then_skipped() {
    let cases: &[&[u8]] = &[
        b"%output",
        b"%output %",
        b"%output 7 data",
        b"%output %7",
        b"%output %99999999999 data",
        b"%output %7 bad\\9escape",
        b"%output %7 cut\\01",
        b"%output %7 too big\\400",
        b"%extended-output %1 x : data",
        b"%extended-output %1 5 no colon",
        b"%pause",
        b"%pause %1 extra",
        b"%window-add 1",
        b"%window-pane-changed @1",
        b"%session-changed 0 main",
        b"%session-window-changed $1 %2",
        b"%layout-change @1",
        b"%subscription-changed name $1 @2 x %3 : v",
        b"%",
        b"% space",
        b"garbage outside any block",
        b"",
        b"%end 1 2 1",
        b"%error 1 2 1",
        b"%begin",
        b"%begin 1 2",
        b"%begin 1 x 1",
        b"%begin 01 2 1",
        b"%begin -0 2 1",
        b"%begin 1 2 1 extra",
        b"\xff\xfe binary \x1b[31m",
    ];
    let report: String = cases
        .iter()
        .map(|line| format!("{}\n  -> {}\n", line.escape_ascii(), bad_line(line)))
        .collect();
    insta::assert_snapshot!(report);
}

#[test]
fn a_bad_begin_does_not_open_a_block() {
    // The body and `%end` of a block whose `%begin` was malformed are reported line by line;
    // the next good block parses.
    let items = parse(b"%begin 1 x 1\nbody\n%end 1 x 1\n%begin 3 4 1\nok\n%end 3 4 1\n");
    let lines: Vec<_> = items
        .iter()
        .filter_map(|i| i.as_ref().err())
        .map(|e| e.line.as_slice())
        .collect();
    assert_eq!(lines, vec![&b"%begin 1 x 1"[..], b"body", b"%end 1 x 1"]);
    assert_eq!(
        items.last(),
        Some(&Ok(Event::Reply(Reply {
            time: 3,
            number: 4,
            flags: 1,
            success: true,
            lines: vec![b"ok".to_vec()],
        })))
    );
}

#[test]
fn only_the_exact_guard_closes_a_block() {
    // Lines close to the guard (other fields, extra space, CR, leading zero) are body.
    let items = parse(
        b"%begin 10 20 1\n%end 10 20 0\n%end 10 21 1\n%end 10 20 1 \n%end 10 20 1\r\n%end  10 20 1\n%error 010 20 1\n%begin 10 20 1\n%error 10 20 1\n",
    );
    assert_eq!(
        items,
        vec![Ok(Event::Reply(Reply {
            time: 10,
            number: 20,
            flags: 1,
            success: false,
            lines: vec![
                b"%end 10 20 0".to_vec(),
                b"%end 10 21 1".to_vec(),
                b"%end 10 20 1 ".to_vec(),
                b"%end 10 20 1\r".to_vec(),
                b"%end  10 20 1".to_vec(),
                b"%error 010 20 1".to_vec(),
                b"%begin 10 20 1".to_vec(),
            ],
        }))]
    );
}

#[test]
fn end_of_output_inside_a_block_and_mid_line() {
    // The server died in the middle of a reply: the client printed its `%exit` there.
    let items = parse(b"%begin 5 6 1\npartial body\n%exit server exited unexpectedly\n");
    let report: String = items.iter().map(|i| format!("{i:?}\n")).collect();
    insta::assert_snapshot!(report, @r#"
    Err(ParseError { line: "%begin 5 6 1", reason: "the output ended inside the reply block of command 6 (body lines read: 1; no `%end`/`%error`): the command's result is unknown" })
    Ok(Notification(Exit { reason: Some("server exited unexpectedly") }))
    "#);

    let items = parse(b"%output %1 abc");
    let [Err(error)] = &items[..] else {
        panic!("{items:?}")
    };
    insta::assert_snapshot!(error.to_string(), @r#"tmux control mode: the output ended in the middle of a line (no LF after it), in line "%output %1 abc""#);

    // A parser is reusable after finish.
    let mut parser = Parser::new();
    parser.feed(b"%begin 1 2 1\nbody\n%end 1");
    assert_eq!(parser.next_item(), None);
    assert!(parser.in_block());
    assert_eq!(
        format!("{parser:?}"),
        "Parser { pending_bytes: 6, open_block: %begin 1 2 1 (1 body lines) }"
    );
    assert_eq!(parser.finish().len(), 2);
    assert_eq!(
        format!("{parser:?}"),
        "Parser { pending_bytes: 0, open_block: None }"
    );
    assert!(!parser.in_block());
    parser.feed(b"%sessions-changed\n");
    assert_eq!(
        parser.next_item(),
        Some(Ok(Event::Notification(Notification::SessionsChanged)))
    );
}

#[test]
fn long_bad_lines_are_shortened_in_messages() {
    let line = [b"x".repeat(300), b"\x1b".to_vec()].concat();
    let message = bad_line(&line);
    assert_eq!(
        message,
        format!(
            "tmux control mode: a line outside any reply block that is not a notification (no \
             leading `%`), in line \"{}\"... (301 bytes)",
            "x".repeat(200)
        )
    );
}

#[test]
fn ids_display_and_parse_as_tmux_prints_them() {
    use tmux_cc::parse::{SessionId, WindowId};
    assert_eq!(PaneId(3).to_string(), "%3");
    assert_eq!(WindowId(0).to_string(), "@0");
    assert_eq!(SessionId(12).to_string(), "$12");
    assert_eq!("%3".parse(), Ok(PaneId(3)));
    assert_eq!("@0".parse(), Ok(WindowId(0)));
    assert_eq!("$12".parse(), Ok(SessionId(12)));
    let errors: Vec<String> = ["3", "%", "%+3", "@-1", "$4294967296", "@1 "]
        .iter()
        .map(|t| match t.chars().next() {
            Some('@') => t.parse::<WindowId>().map(|_| ()).unwrap_err().to_string(),
            Some('$') => t.parse::<SessionId>().map(|_| ()).unwrap_err().to_string(),
            _ => t.parse::<PaneId>().map(|_| ()).unwrap_err().to_string(),
        })
        .collect();
    insta::assert_snapshot!(errors.join("\n"));
}

/// A `%layout-change` whose layout does not parse (a wrong checksum, bytes that are not a
/// layout) still arrives, the bad layout kept with its bytes and the reason, the good one
/// parsed: a caller still learns that the window changed.
#[test]
fn a_layout_change_with_a_bad_layout_is_kept() {
    use tmux_cc::parse::{BadLayout, Layout, LayoutError, WindowId};
    let items = parse(b"%layout-change @4 0000,80x24,0,0,0 b25d,80x24,0,0,0 *Z\n%layout-change @5 \xffnot-a-layout b25d,80x24,0,0,0 \n");
    let good: Layout = "b25d,80x24,0,0,0".parse().unwrap();
    assert_eq!(
        items,
        vec![
            Ok(Event::Notification(Notification::LayoutChange {
                window: WindowId(4),
                layout: Err(BadLayout {
                    text: b"0000,80x24,0,0,0".to_vec(),
                    error: Layout::parse(b"0000,80x24,0,0,0").unwrap_err(),
                }),
                visible_layout: Ok(good.clone()),
                flags: "*Z".into(),
            })),
            Ok(Event::Notification(Notification::LayoutChange {
                window: WindowId(5),
                layout: Err(BadLayout {
                    text: b"\xffnot-a-layout".to_vec(),
                    error: Layout::parse(b"\xffnot-a-layout").unwrap_err(),
                }),
                visible_layout: Ok(good),
                flags: String::new(),
            })),
        ]
    );
    let Some(Ok(Event::Notification(Notification::LayoutChange {
        layout: Err(bad), ..
    }))) = items.first()
    else {
        unreachable!()
    };
    assert!(
        matches!(bad.error, LayoutError::ChecksumMismatch { .. }),
        "{bad}"
    );
    assert_eq!(
        bad.to_string(),
        format!("{} in \"0000,80x24,0,0,0\"", bad.error)
    );
}
