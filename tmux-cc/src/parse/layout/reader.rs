//! The reader of a layout's cells: the grammar [`Layout`](super::Layout) documents, with an
//! explicit stack rather than recursion, so depth costs heap, never stack.

use std::str::FromStr;

use nom::Parser as _;
use nom::character::complete::digit1;

use super::{Cell, CellKind, LayoutError, MAX_LAYOUT_DEPTH};
use crate::parse::PaneId;

pub(super) fn is_lower_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

type In<'a> = &'a [u8];

/// Offsets into the whole input, from the length of what is left.
pub(super) struct Reader {
    pub(super) len: usize,
}

impl Reader {
    pub(super) fn offset(&self, rest: In<'_>) -> usize {
        self.len.saturating_sub(rest.len())
    }

    pub(super) fn unexpected(&self, rest: In<'_>, expected: &'static str) -> LayoutError {
        LayoutError::Unexpected {
            offset: self.offset(rest),
            expected,
            found: rest.first().copied(),
        }
    }

    /// Decimal digits (nom's `digit1`), canonical, that fit a `T`.
    fn digits<'a, T: FromStr>(
        &self,
        i: In<'a>,
        expected: &'static str,
    ) -> Result<(In<'a>, T), LayoutError> {
        let (rest, digits) = digit1::<In<'a>, nom::error::Error<In<'a>>>
            .parse(i)
            .map_err(|_| self.unexpected(i, expected))?;
        let offset = self.offset(i);
        if digits.len() > 1 && digits.first() == Some(&b'0') {
            return Err(LayoutError::NonCanonicalNumber { offset });
        }
        let value = std::str::from_utf8(digits)
            .ok()
            .and_then(|d| d.parse::<T>().ok())
            .ok_or(LayoutError::NumberTooLarge { offset })?;
        Ok((rest, value))
    }

    fn offset_number<'a>(&self, i: In<'a>) -> Result<(In<'a>, i32), LayoutError> {
        let Some(digits) = i.strip_prefix(b"-") else {
            return self.digits(i, "a decimal offset");
        };
        let offset = self.offset(i);
        // Number errors point at the `-`, where the number starts.
        let (rest, magnitude): (_, i64) =
            self.digits(digits, "a decimal offset")
                .map_err(|e| match e {
                    LayoutError::NumberTooLarge { .. } => LayoutError::NumberTooLarge { offset },
                    LayoutError::NonCanonicalNumber { .. } => {
                        LayoutError::NonCanonicalNumber { offset }
                    }
                    other => other,
                })?;
        if magnitude == 0 {
            return Err(LayoutError::NonCanonicalNumber { offset });
        }
        let value =
            i32::try_from(-magnitude).map_err(|_| LayoutError::NumberTooLarge { offset })?;
        Ok((rest, value))
    }

    fn tag<'a>(&self, i: In<'a>, byte: u8, expected: &'static str) -> Result<In<'a>, LayoutError> {
        match i {
            [b, rest @ ..] if *b == byte => Ok(rest),
            _ => Err(self.unexpected(i, expected)),
        }
    }

    /// One cell and its subtree, and what follows it. Iterative, with an explicit stack of the
    /// splits still open, so that the nesting depth costs heap, not call stack.
    pub(super) fn cell<'a>(&self, mut i: In<'a>) -> Result<(In<'a>, Cell), LayoutError> {
        let mut open: Vec<OpenSplit> = Vec::new();
        loop {
            if open.len() >= MAX_LAYOUT_DEPTH {
                return Err(LayoutError::TooDeep {
                    offset: self.offset(i),
                });
            }
            let (rest, geometry, head) = self.head(i)?;
            i = rest;
            let mut done = match head {
                Head::Pane(id) => geometry.with(CellKind::Pane(id)),
                Head::Split { left_right } => {
                    open.push(OpenSplit {
                        geometry,
                        left_right,
                        children: Vec::new(),
                    });
                    continue;
                }
            };
            // Attach the finished cell to its split; close every split whose bracket follows.
            loop {
                let Some(top) = open.last_mut() else {
                    return Ok((i, done));
                };
                top.children.push(done);
                let (close, expected) = if top.left_right {
                    (b'}', "`,` or `}`")
                } else {
                    (b']', "`,` or `]`")
                };
                match i {
                    [b',', tail @ ..] => {
                        i = tail;
                        break;
                    }
                    [b, tail @ ..] if *b == close => {
                        i = tail;
                        let Some(split) = open.pop() else {
                            return Err(self.unexpected(i, expected));
                        };
                        done = split.geometry.with(if split.left_right {
                            CellKind::LeftRight(split.children)
                        } else {
                            CellKind::TopBottom(split.children)
                        });
                    }
                    _ => return Err(self.unexpected(i, expected)),
                }
            }
        }
    }

    /// A cell's `WxH,X,Y` and what comes next: `,ID` (a pane) or the opening bracket of a split
    /// (consumed).
    fn head<'a>(&self, i: In<'a>) -> Result<(In<'a>, Geometry, Head), LayoutError> {
        let (i, width) = self.digits(i, "a decimal width")?;
        let i = self.tag(i, b'x', "`x`")?;
        let (i, height) = self.digits(i, "a decimal height")?;
        let i = self.tag(i, b',', "`,`")?;
        let (i, x) = self.offset_number(i)?;
        let i = self.tag(i, b',', "`,`")?;
        let (i, y) = self.offset_number(i)?;
        let geometry = Geometry {
            width,
            height,
            x,
            y,
        };
        match i {
            [b',', after @ ..] => {
                // `,` then digits: the pane id, unless an `x` follows (then they are the next
                // cell's width, as in tmux's `layout_construct`, and this pane has no id).
                let next_is_cell = after
                    .iter()
                    .position(|b| !b.is_ascii_digit())
                    .is_some_and(|n| n > 0 && after.get(n) == Some(&b'x'));
                if next_is_cell {
                    return Err(LayoutError::MissingPaneId {
                        offset: self.offset(after),
                    });
                }
                let (rest, id) = self.digits(after, "a decimal pane id")?;
                if let [b'{' | b'[', ..] = rest {
                    return Err(LayoutError::PaneIdOnSplit {
                        offset: self.offset(rest),
                    });
                }
                Ok((rest, geometry, Head::Pane(PaneId(id))))
            }
            [b'{', rest @ ..] => Ok((rest, geometry, Head::Split { left_right: true })),
            [b'[', rest @ ..] => Ok((rest, geometry, Head::Split { left_right: false })),
            [b'}' | b']' | b'<' | b'>', ..] | [] => Err(LayoutError::MissingPaneId {
                offset: self.offset(i),
            }),
            _ => Err(self.unexpected(i, "`,`, `{` or `[`")),
        }
    }
}

#[derive(Clone, Copy)]
struct Geometry {
    width: u32,
    height: u32,
    x: i32,
    y: i32,
}

impl Geometry {
    fn with(self, kind: CellKind) -> Cell {
        Cell {
            width: self.width,
            height: self.height,
            x: self.x,
            y: self.y,
            kind,
        }
    }
}

enum Head {
    Pane(PaneId),
    Split { left_right: bool },
}

struct OpenSplit {
    geometry: Geometry,
    left_right: bool,
    children: Vec<Cell>,
}
