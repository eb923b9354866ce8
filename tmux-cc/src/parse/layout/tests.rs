use super::*;

fn pane(width: u32, height: u32, x: i32, y: i32, id: u32) -> Cell {
    Cell {
        width,
        height,
        x,
        y,
        kind: CellKind::Pane(PaneId(id)),
    }
}

fn parse(s: &str) -> Result<Layout, LayoutError> {
    s.parse()
}

/// A layout string with its right checksum.
fn with_sum(body: &str) -> String {
    format!("{:04x},{body}", layout_checksum(body.as_bytes()))
}

#[test]
fn single_pane() {
    let layout = parse("b25d,80x24,0,0,0").unwrap();
    assert_eq!(
        layout,
        Layout {
            root: pane(80, 24, 0, 0, 0),
            floating: vec![]
        }
    );
    assert_eq!(layout.checksum(), 0xb25d);
    assert_eq!(layout.to_string(), "b25d,80x24,0,0,0");
    assert_eq!(parse("b25f,80x24,0,0,2").unwrap().checksum(), 0xb25f);
}

#[test]
fn nested_split() {
    let s = "9c40,159x47,0,0{79x47,0,0,1,79x47,80,0[79x23,80,0,2,79x23,80,24,3]}";
    let layout = parse(s).unwrap();
    let expected = Layout {
        root: Cell {
            width: 159,
            height: 47,
            x: 0,
            y: 0,
            kind: CellKind::LeftRight(vec![
                pane(79, 47, 0, 0, 1),
                Cell {
                    width: 79,
                    height: 47,
                    x: 80,
                    y: 0,
                    kind: CellKind::TopBottom(vec![
                        pane(79, 23, 80, 0, 2),
                        pane(79, 23, 80, 24, 3),
                    ]),
                },
            ]),
        },
        floating: vec![],
    };
    assert_eq!(layout, expected);
    assert!(layout.root.sizes_fit());
    let panes: Vec<_> = layout.panes().collect();
    assert_eq!(
        panes,
        [
            LayoutPane {
                id: PaneId(1),
                width: 79,
                height: 47,
                x: 0,
                y: 0
            },
            LayoutPane {
                id: PaneId(2),
                width: 79,
                height: 23,
                x: 80,
                y: 0
            },
            LayoutPane {
                id: PaneId(3),
                width: 79,
                height: 23,
                x: 80,
                y: 24
            },
        ]
    );
    assert_eq!(layout.to_string(), s);
}

#[test]
fn floating_and_negative_offsets() {
    let s = "57ad,159x47,0,0{79x47,0,0,40,79x47,80,0,41,20x5,2,3,42,30x10,100,30,43}<30x10,100,30,43,20x5,2,3,42>";
    let layout = parse(s).unwrap();
    assert_eq!(
        layout.floating,
        [pane(30, 10, 100, 30, 43), pane(20, 5, 2, 3, 42)]
    );
    assert_eq!(layout.panes().count(), 4);
    assert!(!layout.root.sizes_fit());
    assert_eq!(layout.to_string(), s);

    let s = with_sum("80x24,0,0,1<10x5,-3,-2,7>");
    let layout = parse(&s).unwrap();
    assert_eq!(layout.floating, [pane(10, 5, -3, -2, 7)]);
    assert_eq!(layout.to_string(), s);
}

#[test]
fn one_child_split_is_accepted_like_tmux() {
    let s = with_sum("80x24,0,0{80x24,0,0,1}");
    let layout = parse(&s).unwrap();
    assert!(layout.root.sizes_fit());
    assert_eq!(layout.to_string(), s);
}

#[test]
fn sizes_fit_is_tmux_layout_check() {
    let split = |kind: fn(Vec<Cell>) -> CellKind, w, h, children| Cell {
        width: w,
        height: h,
        x: 0,
        y: 0,
        kind: kind(children),
    };
    // 79 + 1 border + 79 = 159 columns, every child 47 rows.
    let good = split(
        CellKind::LeftRight,
        159,
        47,
        vec![pane(79, 47, 0, 0, 1), pane(79, 47, 80, 0, 2)],
    );
    assert!(good.sizes_fit());
    let too_wide = split(
        CellKind::LeftRight,
        160,
        47,
        vec![pane(79, 47, 0, 0, 1), pane(79, 47, 80, 0, 2)],
    );
    assert!(!too_wide.sizes_fit());
    let short_child = split(
        CellKind::LeftRight,
        159,
        47,
        vec![pane(79, 46, 0, 0, 1), pane(79, 47, 80, 0, 2)],
    );
    assert!(!short_child.sizes_fit());
    let stacked = split(
        CellKind::TopBottom,
        80,
        24,
        vec![pane(80, 11, 0, 0, 1), pane(80, 12, 0, 12, 2)],
    );
    assert!(stacked.sizes_fit());
    // The check goes down the tree.
    let nested = split(CellKind::TopBottom, 159, 47, vec![too_wide.clone()]);
    assert!(!nested.sizes_fit());
    assert!(pane(1, 1, 0, 0, 0).sizes_fit());
}

#[test]
fn checksum_matches_tmux() {
    // Values tmux 3.3a printed (tests/fixtures/layouts/tmux-3.3a.txt).
    assert_eq!(layout_checksum(b"159x47,0,0,0"), 0xcc3d);
    assert_eq!(layout_checksum(b"159x47,0,0,36"), 0x6656);
    assert_eq!(layout_checksum(b""), 0);
}

#[test]
fn every_error_kind() {
    use LayoutError as E;
    let cases: &[(&str, LayoutError)] = &[
        ("", E::BadChecksumField),
        ("b25d", E::BadChecksumField),
        ("B25D,80x24,0,0,2", E::BadChecksumField),
        ("b25d 80x24,0,0,2", E::BadChecksumField),
        ("b25,80x24,0,0,2", E::BadChecksumField),
        (
            "b25e,80x24,0,0,0",
            E::ChecksumMismatch {
                stated: 0xb25e,
                computed: 0xb25d,
            },
        ),
        (
            "0000,",
            E::Unexpected {
                offset: 5,
                expected: "a decimal width",
                found: None,
            },
        ),
        (
            "0000,80y24",
            E::Unexpected {
                offset: 7,
                expected: "`x`",
                found: Some(b'y'),
            },
        ),
        (
            "0000,80x24,0,0{}",
            E::Unexpected {
                offset: 15,
                expected: "a decimal width",
                found: Some(b'}'),
            },
        ),
        (
            "0000,80x24,0,0{80x24,0,0,1]",
            E::Unexpected {
                offset: 26,
                expected: "`,` or `}`",
                found: Some(b']'),
            },
        ),
        (
            "0000,80x24,0,0[80x24,0,0,1",
            E::Unexpected {
                offset: 26,
                expected: "`,` or `]`",
                found: None,
            },
        ),
        (
            "0000,80x24,0,0,1<1x1,0,0,2",
            E::Unexpected {
                offset: 26,
                expected: "`,` or `>`",
                found: None,
            },
        ),
        (
            "0000,80x24,0,0;",
            E::Unexpected {
                offset: 14,
                expected: "`,`, `{` or `[`",
                found: Some(b';'),
            },
        ),
        (
            "0000,80x24,0,0,",
            E::Unexpected {
                offset: 15,
                expected: "a decimal pane id",
                found: None,
            },
        ),
        (
            "0000,80x24,0,0,\u{e9}",
            E::Unexpected {
                offset: 15,
                expected: "a decimal pane id",
                found: Some(0xc3),
            },
        ),
        (
            "0000,80x24,-,0,1",
            E::Unexpected {
                offset: 12,
                expected: "a decimal offset",
                found: Some(b','),
            },
        ),
        ("0000,4294967296x1,0,0,1", E::NumberTooLarge { offset: 5 }),
        ("0000,1x1,2147483648,0,1", E::NumberTooLarge { offset: 9 }),
        ("0000,1x1,-2147483649,0,1", E::NumberTooLarge { offset: 9 }),
        (
            "0000,1x1,-99999999999999999999,0,1",
            E::NumberTooLarge { offset: 9 },
        ),
        ("0000,1x1,0,-05,1", E::NonCanonicalNumber { offset: 11 }),
        ("0000,1x1,0,0,4294967296", E::NumberTooLarge { offset: 13 }),
        ("0000,080x24,0,0,1", E::NonCanonicalNumber { offset: 5 }),
        ("0000,80x24,00,0,1", E::NonCanonicalNumber { offset: 11 }),
        ("0000,80x24,-0,0,1", E::NonCanonicalNumber { offset: 11 }),
        ("0000,80x24,0,0,01", E::NonCanonicalNumber { offset: 15 }),
        ("0000,80x24,0,0", E::MissingPaneId { offset: 14 }),
        (
            "0000,80x24,0,0{40x24,0,0,40x24,41,0,2}",
            E::MissingPaneId { offset: 25 },
        ),
        ("0000,80x24,0,0[1x1,0,0]", E::MissingPaneId { offset: 22 }),
        (
            "0000,80x24,0,0,3{80x24,0,0,1}",
            E::PaneIdOnSplit { offset: 16 },
        ),
        ("0000,80x24,0,0,1;", E::TrailingInput { offset: 16 }),
        // `,1x`: digits then `x` are the start of a next cell, as tmux reads them.
        ("0000,80x24,0,0,1x", E::MissingPaneId { offset: 15 }),
        (
            "0000,80x24,0,0,1<1x1,0,0,2>,",
            E::TrailingInput { offset: 27 },
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(parse(input).as_ref(), Err(expected), "input {input:?}");
        // Every error has a message that names the problem.
        assert!(expected.to_string().starts_with("tmux layout: "));
    }
}

#[test]
fn depth_is_bounded() {
    let nest = |depth: usize| {
        let mut s = String::new();
        for _ in 1..depth {
            s.push_str("1x1,0,0{");
        }
        s.push_str("1x1,0,0,1");
        for _ in 1..depth {
            s.push('}');
        }
        with_sum(&s)
    };
    let deepest = nest(MAX_LAYOUT_DEPTH);
    assert_eq!(parse(&deepest).unwrap().to_string(), deepest);
    assert_eq!(
        parse(&nest(MAX_LAYOUT_DEPTH + 1)),
        Err(LayoutError::TooDeep {
            offset: 5 + 8 * MAX_LAYOUT_DEPTH
        })
    );
    // Far deeper input still stops at the bound, without exhausting the stack.
    assert!(matches!(
        parse(&nest(100_000)),
        Err(LayoutError::TooDeep { .. })
    ));
}

#[test]
fn error_messages() {
    assert_eq!(
        parse("0000,80y24").unwrap_err().to_string(),
        "tmux layout: expected `x` at byte 7, found `y`"
    );
    assert_eq!(
        parse("b25e,80x24,0,0,0").unwrap_err().to_string(),
        "tmux layout: checksum is b25e but the layout's is b25d"
    );
    assert_eq!(
        parse("0000,").unwrap_err().to_string(),
        "tmux layout: expected a decimal width at byte 5, found the end"
    );
}
