//! `tmux_cc::parse::Layout` against real tmux: every layout recorded by
//! `tests/fixtures/layouts/record.sh` (tmux 3.2a to 3.7c) parses, has tmux's checksum, renders
//! back byte for byte, and gives the pane geometry `list-panes` printed for the same window.
//! Then properties: any tree renders and parses back to itself, and no input panics.

use std::collections::{BTreeMap, BTreeSet};

use proptest::collection::vec;
use proptest::prelude::*;
use tmux_cc::parse::{Cell, CellKind, Layout, PaneId, layout_checksum};

/// One window of a fixture file.
struct Window {
    name: String,
    zoomed: bool,
    layout: String,
    visible: String,
    /// `#{pane_id}` -> (width, height, left, top, active).
    panes: BTreeMap<PaneId, (u32, u32, i32, i32, bool)>,
}

fn fixtures() -> Vec<(String, Vec<Window>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/layouts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixture directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("fixture");
            let mut windows = Vec::new();
            let mut current: Option<Window> = None;
            for line in text.lines().filter(|l| !l.starts_with('#')) {
                let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
                match key {
                    "window" => {
                        let (name, zoomed) = rest.rsplit_once(" zoomed=").expect("zoomed=");
                        current = Some(Window {
                            name: name.to_owned(),
                            zoomed: zoomed == "1",
                            layout: String::new(),
                            visible: String::new(),
                            panes: BTreeMap::new(),
                        });
                    }
                    "layout" => current.as_mut().expect("window").layout = rest.to_owned(),
                    "visible" => current.as_mut().expect("window").visible = rest.to_owned(),
                    "pane" => {
                        let f: Vec<&str> = rest.split(' ').collect();
                        let [id, w, h, l, t, active] = f[..] else {
                            panic!("pane line {line:?}")
                        };
                        current.as_mut().expect("window").panes.insert(
                            id.parse().expect("pane id"),
                            (
                                w.parse().unwrap(),
                                h.parse().unwrap(),
                                l.parse().unwrap(),
                                t.parse().unwrap(),
                                active == "1",
                            ),
                        );
                    }
                    "end" => windows.push(current.take().expect("window")),
                    other => panic!("unknown fixture line {other:?}"),
                }
            }
            (path.display().to_string(), windows)
        })
        .collect()
}

/// Every pane of the layout, tiled and floating, with its geometry.
fn geometry(layout: &Layout) -> Vec<(PaneId, (u32, u32, i32, i32))> {
    layout
        .panes()
        .chain(layout.floating.iter().flat_map(Cell::panes))
        .map(|p| (p.id, (p.width, p.height, p.x, p.y)))
        .collect()
}

fn check_round_trip(text: &str) -> Layout {
    let layout: Layout = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(layout.to_string(), text);
    let stated = u16::from_str_radix(&text[..4], 16).unwrap();
    assert_eq!(layout.checksum(), stated);
    assert_eq!(layout_checksum(&text.as_bytes()[5..]), stated);
    layout
}

#[test]
fn every_recorded_layout_parses_renders_back_and_matches_list_panes() {
    let fixtures = fixtures();
    assert_eq!(
        fixtures.len(),
        6,
        "one fixture per tmux version, 3.2a to 3.7c"
    );
    let mut windows = 0;
    let mut panes_checked = 0;
    for (file, recorded) in &fixtures {
        assert!(recorded.len() >= 10, "{file}: {} windows", recorded.len());
        for w in recorded {
            let ctx = format!("{file}, window {}", w.name);
            let layout = check_round_trip(&w.layout);
            let visible = check_round_trip(&w.visible);
            windows += 1;

            // The layout holds exactly the window's panes (3.7c lists a floating pane twice:
            // in the tiled root and in `<...>`, with the same geometry).
            let geometry = geometry(&layout);
            let ids: BTreeSet<PaneId> = geometry.iter().map(|(id, _)| *id).collect();
            assert_eq!(ids, w.panes.keys().copied().collect(), "{ctx}");
            let active = w.panes.iter().find(|(_, p)| p.4).map(|(id, _)| *id);
            for (id, geo) in geometry {
                let (width, height, left, top, _) = w.panes[&id];
                if w.zoomed && Some(id) == active {
                    // Zoomed: list-panes gives the zoomed pane's full-window size.
                    continue;
                }
                assert_eq!(geo, (width, height, left, top), "{ctx}, pane {id}");
                panes_checked += 1;
            }
            if layout.floating.is_empty() {
                assert!(layout.root.sizes_fit(), "{ctx}: sizes do not add up");
            }

            if w.zoomed {
                // The visible layout is the zoomed (active) pane alone, at the window's size.
                let id = active.expect("a zoomed window has an active pane");
                let (width, height, left, top, _) = w.panes[&id];
                assert_eq!(visible.root.kind, CellKind::Pane(id), "{ctx}");
                assert_eq!(
                    (visible.root.width, visible.root.height),
                    (layout.root.width, layout.root.height),
                    "{ctx}"
                );
                assert_eq!(
                    self::geometry(&visible),
                    vec![(id, (width, height, left, top))],
                    "{ctx}"
                );
                panes_checked += 1;
            } else {
                assert_eq!(visible, layout, "{ctx}");
            }
        }
    }
    // 10 windows per version, 12 on 3.7c (floating panes); counted so a lost block shows.
    assert_eq!((windows, panes_checked), (62, 248));
}

#[test]
fn the_zoomed_and_floating_shapes_were_recorded() {
    let fixtures = fixtures();
    let all: Vec<&Window> = fixtures.iter().flat_map(|(_, w)| w).collect();
    assert!(all.iter().any(|w| w.zoomed));
    assert!(all.iter().any(|w| w.name == "nested4"));
    let floating: Vec<Layout> = all
        .iter()
        .filter(|w| w.layout.contains('<'))
        .map(|w| w.layout.parse().unwrap())
        .collect();
    assert_eq!(
        floating.len(),
        2,
        "3.7c: a window with floating panes, one with only one"
    );
    assert!(floating.iter().all(|l| !l.floating.is_empty()));
}

fn cell() -> impl Strategy<Value = Cell> {
    let leaf = (
        any::<u32>(),
        any::<u32>(),
        any::<i32>(),
        any::<i32>(),
        any::<u32>(),
    )
        .prop_map(|(width, height, x, y, id)| Cell {
            width,
            height,
            x,
            y,
            kind: CellKind::Pane(PaneId(id)),
        });
    leaf.prop_recursive(6, 64, 5, |inner| {
        (
            any::<u32>(),
            any::<u32>(),
            any::<i32>(),
            any::<i32>(),
            any::<bool>(),
            vec(inner, 1..5),
        )
            .prop_map(|(width, height, x, y, lr, children)| Cell {
                width,
                height,
                x,
                y,
                kind: if lr {
                    CellKind::LeftRight(children)
                } else {
                    CellKind::TopBottom(children)
                },
            })
    })
}

fn layout() -> impl Strategy<Value = Layout> {
    (cell(), vec(cell(), 0..3)).prop_map(|(root, floating)| Layout { root, floating })
}

/// Bytes that look like layouts: the grammar's own bytes, behind a right checksum, so parsing
/// gets past the header and the checksum and into the structure.
fn layoutish() -> impl Strategy<Value = String> {
    "[0-9x,{}\\[\\]<>-]{0,60}"
        .prop_map(|body| format!("{:04x},{body}", layout_checksum(body.as_bytes())))
}

proptest! {
    #[test]
    fn any_tree_renders_and_parses_back_to_itself(layout in layout()) {
        let text = layout.to_string();
        let back: Layout = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&back, &layout);
        prop_assert_eq!(back.to_string(), text);
        prop_assert_eq!(back.checksum(), u16::from_str_radix(&back.to_string()[..4], 16).unwrap());
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_a_parse_renders_back(bytes in vec(any::<u8>(), 0..200)) {
        if let Ok(layout) = Layout::parse(&bytes) {
            prop_assert_eq!(layout.to_string().into_bytes(), bytes);
        }
    }

    #[test]
    fn layoutish_text_never_panics_and_a_parse_renders_back(text in layoutish()) {
        if let Ok(layout) = text.parse::<Layout>() {
            prop_assert_eq!(layout.to_string(), text);
        }
    }

    #[test]
    fn a_damaged_layout_never_panics_and_a_parse_renders_back(
        layout in layout(),
        at in any::<usize>(),
        byte in any::<u8>(),
        delete in any::<bool>(),
    ) {
        let mut bytes = layout.to_string().into_bytes();
        let at = at % bytes.len();
        if delete {
            bytes.remove(at);
        } else {
            bytes[at] = byte;
        }
        // Fix the checksum up half the time, so that the damage is seen by the structure.
        if at % 2 == 0 && bytes.len() >= 5 {
            let sum = format!("{:04x}", layout_checksum(&bytes[5..]));
            bytes[..4].copy_from_slice(sum.as_bytes());
        }
        if let Ok(parsed) = Layout::parse(&bytes) {
            prop_assert_eq!(parsed.to_string().into_bytes(), bytes);
        }
    }
}

/// The `%layout-change` notifications of the control-mode transcripts (tmux 3.3a,
/// `tests/fixtures/*.out`, read through the control-mode parser) carry layouts this parser reads.
#[test]
fn layout_change_notifications_of_the_transcripts_parse() {
    use tmux_cc::parse::{Event, Notification, Parser};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "out") {
            continue;
        }
        let mut parser = Parser::new();
        parser.feed(&std::fs::read(&path).expect("transcript"));
        while let Some(item) = parser.next_item() {
            if let Ok(Event::Notification(Notification::LayoutChange {
                layout,
                visible_layout,
                flags,
                ..
            })) = item
            {
                let full = layout.expect("the transcripts' layouts parse");
                let visible = visible_layout.expect("the transcripts' layouts parse");
                check_round_trip(&full.to_string());
                check_round_trip(&visible.to_string());
                if flags.contains('Z') {
                    assert_eq!(visible.panes().count(), 1, "{}", path.display());
                } else {
                    assert_eq!(visible, full);
                }
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 3, "the transcripts hold three %layout-change lines");
}
