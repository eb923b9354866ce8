//! tmux window layouts: the strings of `#{window_layout}`, `#{window_visible_layout}` and
//! `%layout-change`, read into a tree and written back byte for byte.
//!
//! The grammar and how it compares with tmux's own parser are in [`Layout`]'s documentation.

use std::fmt;
use std::str::FromStr;

use super::PaneId;
use reader::{Reader, is_lower_hex};

/// The deepest nesting of splits accepted (the root cell is at depth 1). tmux writes a layout
/// into a buffer of 8192 bytes (`layout_dump`) and each level takes at least 8 (`1x1,0,0{`), so
/// tmux cannot print a deeper one; the bound keeps parsing, printing and dropping a tree within
/// a small stack.
pub const MAX_LAYOUT_DEPTH: usize = 1024;

/// A parsed window layout: the tiled tree and, on tmux 3.7 and later, the floating panes.
///
/// Displays as tmux prints it, checksum included: for a layout read by [`Layout::parse`], exactly
/// the input.
///
/// # The format (tmux 3.2a to 3.7c, `layout-custom.c`)
///
/// `CSUM,CELL` where CSUM is [`layout_checksum`] of everything after the comma, printed by tmux as
/// `%04hx` (four lowercase hex digits), and CELL is, with every number in decimal:
///
/// - a pane: `WIDTHxHEIGHT,X,Y,ID` (`ID` is the pane's id, the `N` of `%N`);
/// - a split: `WIDTHxHEIGHT,X,Y` then its children, comma-separated, between `{` and `}`
///   (side by side, left to right) or `[` and `]` (stacked, top to bottom).
///
/// Sizes and offsets are in terminal cells; `X`,`Y` is the top-left corner from the window's
/// top-left corner. tmux 3.7 adds floating panes: after the tiled tree it prints them, topmost
/// first, between `<` and `>` (`layout_dump`), e.g. `57ad,159x47,0,0{...}<30x10,100,30,43>`;
/// it prints their offsets with `%d`, so they may be negative. (3.7c also lists each floating
/// pane as a child of the tiled root, where the sizes no longer add up: see
/// `tests/fixtures/layouts/tmux-3.7c.txt`.)
///
/// # How this parser compares with tmux's own (`layout_parse`, `layout_construct`)
///
/// It reads exactly what tmux's `layout_dump` prints, so that rendering a parsed layout gives the
/// input back byte for byte; it is stricter than `select-layout` in these points, each reported as
/// a [`LayoutError`]:
///
/// - the checksum must be four lowercase hex digits (`sscanf("%hx,")` would take uppercase);
/// - numbers have no leading zeros and no `-0` (tmux's `%u`/`%d` never print them);
/// - a pane must carry its id, and a split must not: tmux accepts a pane without one (as in
///   hand-written layouts) and reads and ignores one on a split; it ignores the ids anyway
///   when applying a layout, giving the cells the window's panes in order (`layout_assign`);
/// - splits may nest at most [`MAX_LAYOUT_DEPTH`] deep.
///
/// Like tmux: the checksum must match ([`LayoutError::ChecksumMismatch`]); a split has at least
/// one child (`{}` is refused; tmux accepts, and never prints, a split of one child, and so does
/// this parser); nothing may follow the tree. tmux then checks that the children's sizes add up
/// to their parent's (`layout_check`, after closing cells to fit the window's pane count and
/// correcting a wrong root size): this parser does not, since tmux 3.7c prints layouts that fail
/// it; [`Cell::sizes_fit`] runs the same check on demand.
///
/// Parsing never panics, on any bytes; it is iterative, and the tree's depth is bounded by
/// [`MAX_LAYOUT_DEPTH`] so that printing, comparing and dropping it stay within a small stack.
///
/// # Example
///
/// ```
/// use tmux_cc::parse::{CellKind, Layout, PaneId};
///
/// let layout: Layout = "4364,159x47,0,0{79x47,0,0,1,79x47,80,0,2}".parse()?;
/// assert_eq!((layout.root.width, layout.root.height), (159, 47));
/// assert!(matches!(layout.root.kind, CellKind::LeftRight(ref c) if c.len() == 2));
/// let panes: Vec<_> = layout.panes().map(|p| (p.id, p.x, p.width)).collect();
/// assert_eq!(panes, [(PaneId(1), 0, 79), (PaneId(2), 80, 79)]);
/// assert_eq!(layout.checksum(), 0x4364);
/// assert_eq!(layout.to_string(), "4364,159x47,0,0{79x47,0,0,1,79x47,80,0,2}");
/// # Ok::<(), tmux_cc::parse::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The tiled tree: the whole window (for `#{window_visible_layout}` of a zoomed window, the
    /// zoomed pane alone).
    pub root: Cell,
    /// The floating panes (tmux 3.7+), topmost first, as printed between `<` and `>`; empty when
    /// tmux printed no `<...>`.
    pub floating: Vec<Cell>,
}

/// One cell of a layout: a rectangle of the window, a pane or a split into cells.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    /// Width in terminal cells (columns).
    pub width: u32,
    /// Height in terminal cells (rows).
    pub height: u32,
    /// Column of the left edge, from the window's left edge (0). Negative only for a floating
    /// pane placed partly off the window (tmux 3.7+).
    pub x: i32,
    /// Row of the top edge, from the window's top edge (0). Negative only as for `x`.
    pub y: i32,
    /// A pane, or how the cell is split.
    pub kind: CellKind,
}

/// What a [`Cell`] holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CellKind {
    /// A pane, by its id (`ID` in the layout, `%ID` elsewhere).
    Pane(PaneId),
    /// Children side by side, left to right, each as tall as the cell: `{...}`.
    LeftRight(Vec<Cell>),
    /// Children stacked, top to bottom, each as wide as the cell: `[...]`.
    TopBottom(Vec<Cell>),
}

/// A pane and its geometry, as [`Layout::panes`] and [`Cell::panes`] give them (in cells).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LayoutPane {
    /// The pane.
    pub id: PaneId,
    /// Width (`#{pane_width}`).
    pub width: u32,
    /// Height (`#{pane_height}`).
    pub height: u32,
    /// Left column (`#{pane_left}`).
    pub x: i32,
    /// Top row (`#{pane_top}`).
    pub y: i32,
}

/// Why a string is not a layout as tmux prints it. Every variant but `ChecksumMismatch` gives
/// the byte offset, from the start of the whole string (checksum included), where reading
/// stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// The string does not start with four lowercase hex digits and a comma.
    #[error("tmux layout: expected a checksum of four lowercase hex digits and `,` at byte 0")]
    BadChecksumField,
    /// The checksum is not that of the rest of the string (see [`layout_checksum`]).
    #[error("tmux layout: checksum is {stated:04x} but the layout's is {computed:04x}")]
    ChecksumMismatch {
        /// The checksum the string starts with.
        stated: u16,
        /// The checksum of the bytes after its comma.
        computed: u16,
    },
    /// A byte other than the grammar allows here (or the end of the string).
    #[error(
        "tmux layout: expected {expected} at byte {offset}, found {}",
        found_text(found)
    )]
    Unexpected {
        /// Where.
        offset: usize,
        /// What would have been accepted, in words.
        expected: &'static str,
        /// The byte found, `None` at the end of the string.
        found: Option<u8>,
    },
    /// A number that does not fit its type (`u32` for sizes and ids, `i32` for offsets).
    #[error("tmux layout: number too large at byte {offset}")]
    NumberTooLarge {
        /// Where the number starts.
        offset: usize,
    },
    /// A number with a leading zero, or `-0`: tmux never prints one.
    #[error("tmux layout: number with a leading zero (or -0) at byte {offset}")]
    NonCanonicalNumber {
        /// Where the number starts.
        offset: usize,
    },
    /// A pane cell without a pane id (`80x24,0,0` then `,`+next cell, a bracket or the end).
    #[error("tmux layout: pane cell without a pane id at byte {offset}")]
    MissingPaneId {
        /// Where the id should have been.
        offset: usize,
    },
    /// A split cell with a pane id (`80x24,0,0,3{...}`).
    #[error("tmux layout: a split cell has a pane id, at byte {offset}")]
    PaneIdOnSplit {
        /// Where the split's bracket is.
        offset: usize,
    },
    /// Splits nested deeper than [`MAX_LAYOUT_DEPTH`].
    #[error("tmux layout: splits nested deeper than {MAX_LAYOUT_DEPTH}, at byte {offset}")]
    TooDeep {
        /// Where the cell too deep starts.
        offset: usize,
    },
    /// Bytes after a complete layout.
    #[error("tmux layout: unexpected bytes after the layout at byte {offset}")]
    TrailingInput {
        /// Where they start.
        offset: usize,
    },
}

fn found_text(found: &Option<u8>) -> String {
    match found {
        None => "the end".to_owned(),
        Some(b) if b.is_ascii_graphic() => format!("`{}`", char::from(*b)),
        Some(b) => format!("byte 0x{b:02x}"),
    }
}

/// tmux's layout checksum (`layout_checksum`, the same from 3.2a to 3.7c): a 16-bit
/// rotate-right-by-one then add of each byte, over the layout after `CSUM,`.
///
/// tmux adds a C `char`, signed on most machines, so for bytes of 0x80 and above this is tmux's
/// value only where `char` is unsigned; no layout holds such bytes.
///
/// ```
/// assert_eq!(tmux_cc::parse::layout_checksum(b"80x24,0,0,0"), 0xb25d);
/// ```
pub fn layout_checksum(body: &[u8]) -> u16 {
    body.iter().fold(0u16, |csum, &b| {
        csum.rotate_right(1).wrapping_add(u16::from(b))
    })
}

impl Layout {
    /// Reads a layout as tmux prints it (see the module documentation for the exact grammar and
    /// how it compares with tmux's). The checksum is checked after the structure, so a damaged
    /// layout reports where it is damaged rather than only a wrong checksum.
    pub fn parse(input: &[u8]) -> Result<Layout, LayoutError> {
        let body = match input {
            [a, b, c, d, b',', ..] if [a, b, c, d].iter().all(|&&h| is_lower_hex(h)) => {
                input.get(5..).unwrap_or_default()
            }
            _ => return Err(LayoutError::BadChecksumField),
        };
        let stated = input
            .get(..4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u16::from_str_radix(h, 16).ok())
            .ok_or(LayoutError::BadChecksumField)?;
        let p = Reader { len: input.len() };
        let (rest, root) = p.cell(body)?;
        let mut floating = Vec::new();
        let mut rest = rest;
        if let [b'<', tail @ ..] = rest {
            rest = tail;
            loop {
                let (tail, cell) = p.cell(rest)?;
                floating.push(cell);
                match tail {
                    [b',', tail @ ..] => rest = tail,
                    [b'>', tail @ ..] => {
                        rest = tail;
                        break;
                    }
                    _ => return Err(p.unexpected(tail, "`,` or `>`")),
                }
            }
        }
        if !rest.is_empty() {
            return Err(LayoutError::TrailingInput {
                offset: p.offset(rest),
            });
        }
        let computed = layout_checksum(body);
        if stated != computed {
            return Err(LayoutError::ChecksumMismatch { stated, computed });
        }
        Ok(Layout { root, floating })
    }

    /// The checksum tmux prints before this layout: [`layout_checksum`] of its rendering after `CSUM,`.
    pub fn checksum(&self) -> u16 {
        layout_checksum(self.body().as_bytes())
    }

    /// The panes of the tiled tree ([`Layout::root`]) with their geometry, depth first, in the
    /// order tmux prints them (left to right, top to bottom within each split). The floating
    /// panes are in [`Layout::floating`].
    pub fn panes(&self) -> Panes<'_> {
        self.root.panes()
    }

    fn body(&self) -> String {
        let mut s = self.root.to_string();
        for (i, cell) in self.floating.iter().enumerate() {
            s.push(if i == 0 { '<' } else { ',' });
            s.push_str(&cell.to_string());
        }
        if !self.floating.is_empty() {
            s.push('>');
        }
        s
    }
}

impl FromStr for Layout {
    type Err = LayoutError;

    /// [`Layout::parse`] of the string's bytes.
    fn from_str(s: &str) -> Result<Layout, LayoutError> {
        Layout::parse(s.as_bytes())
    }
}

impl fmt::Display for Layout {
    /// `CSUM,CELL[<CELL,...>]` as tmux prints it, the checksum computed from the tree.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let body = self.body();
        write!(f, "{:04x},{body}", layout_checksum(body.as_bytes()))
    }
}

impl Cell {
    /// The panes of this cell's tree with their geometry, depth first, children in order.
    pub fn panes(&self) -> Panes<'_> {
        Panes {
            stack: vec![std::slice::from_ref(self).iter()],
        }
    }

    /// Whether the children's sizes add up as tmux's `layout_check` wants: in a left-right split
    /// every child is as tall as the split and the widths plus one column of border between
    /// each add up to its width; the same across for top-bottom; recursively. Offsets are not
    /// checked (tmux recomputes them). Layouts tmux prints pass, except the tiled root of a
    /// window with floating panes on tmux 3.7c.
    pub fn sizes_fit(&self) -> bool {
        let mut stack = vec![self];
        while let Some(cell) = stack.pop() {
            let (children, across) = match &cell.kind {
                CellKind::Pane(_) => continue,
                CellKind::LeftRight(c) => (c, true),
                CellKind::TopBottom(c) => (c, false),
            };
            let mut total: u64 = 0;
            for child in children {
                let (along, other, cell_other) = if across {
                    (child.width, child.height, cell.height)
                } else {
                    (child.height, child.width, cell.width)
                };
                if other != cell_other {
                    return false;
                }
                total += u64::from(along) + 1;
                stack.push(child);
            }
            let cell_along = if across { cell.width } else { cell.height };
            if total.checked_sub(1) != Some(u64::from(cell_along)) {
                return false;
            }
        }
        true
    }
}

impl fmt::Display for Cell {
    /// The cell as tmux prints it (no checksum): `WxH,X,Y,ID` or `WxH,X,Y{...}` / `[...]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{},{},{}", self.width, self.height, self.x, self.y)?;
        let (children, open, close) = match &self.kind {
            CellKind::Pane(id) => return write!(f, ",{}", id.0),
            CellKind::LeftRight(c) => (c, '{', '}'),
            CellKind::TopBottom(c) => (c, '[', ']'),
        };
        write!(f, "{open}")?;
        for (i, child) in children.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            write!(f, "{child}")?;
        }
        write!(f, "{close}")
    }
}

/// The iterator of [`Layout::panes`] and [`Cell::panes`].
#[derive(Debug, Clone)]
pub struct Panes<'a> {
    stack: Vec<std::slice::Iter<'a, Cell>>,
}

impl Iterator for Panes<'_> {
    type Item = LayoutPane;

    fn next(&mut self) -> Option<LayoutPane> {
        loop {
            let top = self.stack.last_mut()?;
            let Some(cell) = top.next() else {
                self.stack.pop();
                continue;
            };
            match &cell.kind {
                CellKind::Pane(id) => {
                    return Some(LayoutPane {
                        id: *id,
                        width: cell.width,
                        height: cell.height,
                        x: cell.x,
                        y: cell.y,
                    });
                }
                CellKind::LeftRight(c) | CellKind::TopBottom(c) => self.stack.push(c.iter()),
            }
        }
    }
}

mod reader;
#[cfg(test)]
mod tests;
