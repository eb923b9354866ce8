//! Properties of the control-mode parser: any sequence of events tmux can print, rendered and
//! split at arbitrary byte boundaries, parses back to the same events; arbitrary bytes never
//! make it panic, and give the same items however they are split.

use proptest::collection::vec;
use proptest::prelude::*;
use tmux_cc::parse::{
    BadLayout, Event, Notification as N, PaneId, ParseError, Parser, Reply, SessionId, WindowId,
    render,
};

/// Every item for `input` fed in pieces cut at `cuts` (sorted, deduplicated here), then
/// `finish`.
fn parse_split(input: &[u8], cuts: &[usize]) -> Vec<Result<Event, ParseError>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (input.len() + 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut parser = Parser::new();
    let mut items = Vec::new();
    let mut from = 0;
    for cut in cuts.into_iter().chain([input.len()]) {
        parser.feed(input.get(from..cut).unwrap_or_default());
        from = cut;
        while let Some(item) = parser.next_item() {
            items.push(item);
        }
    }
    items.extend(parser.finish());
    items
}

/// Text without LF (tmux prints names and messages on one line).
fn line_text() -> impl Strategy<Value = String> {
    "[^\n]{0,12}"
}

/// One word: no space, no LF, not empty.
fn word() -> impl Strategy<Value = String> {
    "[^ \n]{1,10}"
}

/// Bytes without LF, biased towards the ones that matter to the parser.
fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
    vec(
        prop_oneof![
            any::<u8>().prop_filter("no LF", |b| *b != b'\n'),
            Just(b'%'),
            Just(b' '),
            Just(b'\\'),
        ],
        0..24,
    )
}

/// A `%layout-change` layout: one tmux printed (it parses), or any word (mostly not a layout,
/// kept with its bytes as a [`BadLayout`]).
fn layout_field() -> impl Strategy<Value = Result<tmux_cc::parse::Layout, BadLayout>> {
    prop_oneof![
        prop::sample::select(vec![
            "b25d,80x24,0,0,0",
            "4196,80x24,0,0[80x12,0,0,0,80x11,0,13,2]",
            "4364,159x47,0,0{79x47,0,0,1,79x47,80,0,2}",
        ])
        .prop_map(|l| BadLayout::parse(l.as_bytes())),
        word().prop_map(|w| BadLayout::parse(w.as_bytes())),
    ]
}

fn pane() -> impl Strategy<Value = PaneId> {
    any::<u32>().prop_map(PaneId)
}

fn window() -> impl Strategy<Value = WindowId> {
    any::<u32>().prop_map(WindowId)
}

fn session() -> impl Strategy<Value = SessionId> {
    any::<u32>().prop_map(SessionId)
}

fn notification() -> impl Strategy<Value = N> {
    prop_oneof![
        (pane(), vec(any::<u8>(), 0..40)).prop_map(|(pane, data)| N::Output { pane, data }),
        (pane(), any::<u64>(), vec(any::<u8>(), 0..40))
            .prop_map(|(pane, age_ms, data)| N::ExtendedOutput { pane, age_ms, data }),
        pane().prop_map(|pane| N::Pause { pane }),
        pane().prop_map(|pane| N::Continue { pane }),
        proptest::option::of("[^\n]{1,12}").prop_map(|reason| N::Exit { reason }),
        (session(), line_text()).prop_map(|(session, name)| N::SessionChanged { session, name }),
        (word(), session(), line_text()).prop_map(|(client, session, name)| {
            N::ClientSessionChanged {
                client,
                session,
                name,
            }
        }),
        (session(), line_text()).prop_map(|(session, name)| N::SessionRenamed { session, name }),
        Just(N::SessionsChanged),
        (session(), window())
            .prop_map(|(session, window)| N::SessionWindowChanged { session, window }),
        window().prop_map(|window| N::WindowAdd { window }),
        window().prop_map(|window| N::UnlinkedWindowAdd { window }),
        window().prop_map(|window| N::WindowClose { window }),
        window().prop_map(|window| N::UnlinkedWindowClose { window }),
        (window(), line_text()).prop_map(|(window, name)| N::WindowRenamed { window, name }),
        (window(), line_text())
            .prop_map(|(window, name)| N::UnlinkedWindowRenamed { window, name }),
        (window(), pane()).prop_map(|(window, pane)| N::WindowPaneChanged { window, pane }),
        (window(), layout_field(), layout_field(), line_text()).prop_map(
            |(window, layout, visible_layout, flags)| N::LayoutChange {
                window,
                layout,
                visible_layout,
                flags
            }
        ),
        pane().prop_map(|pane| N::PaneModeChanged { pane }),
        line_text().prop_map(|client| N::ClientDetached { client }),
        line_text().prop_map(|name| N::PasteBufferChanged { name }),
        line_text().prop_map(|name| N::PasteBufferDeleted { name }),
        (
            word(),
            session(),
            proptest::option::of(window()),
            proptest::option::of(any::<u32>()),
            proptest::option::of(pane()),
            line_text()
        )
            .prop_map(|(name, session, window, window_index, pane, value)| {
                N::SubscriptionChanged {
                    name,
                    session,
                    window,
                    window_index,
                    pane,
                    value,
                }
            }),
        line_text().prop_map(|message| N::Message { message }),
        line_text().prop_map(|error| N::ConfigError { error }),
        ("x-[a-z-]{0,10}", line_bytes()).prop_map(|(name, rest)| N::Unknown { name, rest }),
    ]
}

fn reply() -> impl Strategy<Value = Reply> {
    (
        any::<i64>(),
        any::<u64>(),
        any::<u32>(),
        any::<bool>(),
        vec(
            prop_oneof![
                line_bytes(),
                // Lines that look like guards and notifications, and empty lines.
                Just(b"%end 1 2 1".to_vec()),
                Just(b"%begin 1 2 1".to_vec()),
                Just(b"%error 0 0 0".to_vec()),
                Just(b"%output %1 x".to_vec()),
                Just(Vec::new()),
            ],
            0..6,
        ),
    )
        .prop_map(|(time, number, flags, success, lines)| {
            // A body line equal to the block's own closing guard is the one thing tmux's
            // protocol cannot carry (it would close the block): tmux cannot print it either.
            let fields = format!(" {time} {number} {flags}");
            let lines = lines
                .into_iter()
                .filter(|l| {
                    *l != [b"%end".as_slice(), fields.as_bytes()].concat()
                        && *l != [b"%error".as_slice(), fields.as_bytes()].concat()
                })
                .collect();
            Reply {
                time,
                number,
                flags,
                success,
                lines,
            }
        })
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        reply().prop_map(Event::Reply),
        notification().prop_map(Event::Notification)
    ]
}

/// Bytes that look like control-mode output, half-broken: guards, notifications, escapes.
fn noisy_output() -> impl Strategy<Value = Vec<u8>> {
    vec(
        prop_oneof![
            vec(any::<u8>(), 0..8),
            Just(b"%begin 1 2 1\n".to_vec()),
            Just(b"%end 1 2 1\n".to_vec()),
            Just(b"%error 1 2 1\n".to_vec()),
            Just(b"%begin 1 x 1\n".to_vec()),
            Just(b"%output %1 a\\012b\\".to_vec()),
            Just(b"%extended-output %2 5 : z\n".to_vec()),
            Just(b"%exit\n".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"%".to_vec()),
        ],
        0..20,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn rendered_events_split_anywhere_parse_back(
        events in vec(event(), 0..12),
        cuts in vec(any::<usize>(), 0..12),
    ) {
        let bytes: Vec<u8> = events.iter().flat_map(render).collect();
        let expected: Vec<_> = events.into_iter().map(Ok).collect();
        prop_assert_eq!(parse_split(&bytes, &cuts), expected);
    }

    #[test]
    fn any_bytes_never_panic_and_split_equals_whole(
        bytes in prop_oneof![vec(any::<u8>(), 0..200), noisy_output()],
        cuts in vec(any::<usize>(), 0..16),
    ) {
        let whole = parse_split(&bytes, &[]);
        prop_assert_eq!(parse_split(&bytes, &cuts), whole.clone());
        // Whatever was parsed, rendered again, parses to the same event.
        for event in whole.into_iter().flatten() {
            prop_assert_eq!(parse_split(&render(&event), &[]), vec![Ok(event)]);
        }
    }
}
