//! The bounded line reader: stdin read as newline-delimited JSON-RPC messages, each at most
//! [`MAX_MESSAGE`] bytes, 16 MiB, as much as MCP SDKs' stdio transports read
//! (`docs/design/bridge.md`, Relay).
//!
//! A line is everything before a `\n` (a `\r` before it stays part of the line: the bytes are
//! relayed exactly as read). A line longer than the limit is never held whole: once past the
//! limit its bytes are drained up to its `\n` and only its length is kept, so the reader holds at
//! most the limit of a line whatever comes in (plus the buffer of the underlying reader).

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// The largest message relayed: 16 MiB (16 777 216 bytes), the line ending excluded.
pub const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// One line of input, without its `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A line of at most the limit, its bytes exactly as read.
    Message(Vec<u8>),
    /// A line over the limit, drained and dropped: only its length in bytes is kept.
    TooLong {
        /// The length of the line in bytes, its `\n` excluded.
        len: u64,
    },
}

/// Reads lines of at most `limit` bytes from an [`AsyncBufRead`].
///
/// The last line of the input is returned even without a final `\n`.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    limit: usize,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// A reader of lines of at most [`MAX_MESSAGE`] bytes.
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_MESSAGE)
    }

    /// A reader of lines of at most `limit` bytes (the fuzz target and tests use small limits).
    pub fn with_limit(inner: R, limit: usize) -> Self {
        Self { inner, limit }
    }

    /// The next line, or `None` at the end of the input.
    ///
    /// # Errors
    /// The errors of the underlying reader; a line cut by an error is lost.
    pub async fn next_line(&mut self) -> io::Result<Option<Line>> {
        let mut line: Vec<u8> = Vec::new();
        let mut len: u64 = 0;
        let mut too_long = false;
        let mut started = false;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                if !started {
                    return Ok(None);
                }
                break;
            }
            started = true;
            let (chunk_len, consumed, ended) = match memchr::memchr(b'\n', available) {
                Some(at) => (at, at + 1, true),
                None => (available.len(), available.len(), false),
            };
            len += chunk_len as u64;
            if !too_long {
                if line.len() + chunk_len > self.limit {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(&available[..chunk_len]);
                }
            }
            self.inner.consume(consumed);
            if ended {
                break;
            }
        }
        Ok(Some(if too_long {
            Line::TooLong { len }
        } else {
            Line::Message(line)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::{AsyncRead, BufReader, ReadBuf};

    /// An input handed out in chunks of the given sizes, to cut lines at any byte.
    struct Chunked {
        data: Vec<u8>,
        at: usize,
        sizes: Vec<usize>,
        next: usize,
    }

    impl AsyncRead for Chunked {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let size = if self.sizes.is_empty() {
                usize::MAX
            } else {
                self.sizes[self.next % self.sizes.len()].max(1)
            };
            self.next += 1;
            let end = (self.at + size.min(buf.remaining())).min(self.data.len());
            let at = self.at;
            buf.put_slice(&self.data[at..end]);
            self.at = end;
            Poll::Ready(Ok(()))
        }
    }

    /// What the reader must give: the input split at each `\n`, the last piece only if not
    /// empty, lines over the limit reduced to their length.
    fn expected(data: &[u8], limit: usize) -> Vec<Line> {
        let mut pieces: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        if pieces.last().is_some_and(|p| p.is_empty()) {
            pieces.pop();
        }
        pieces
            .into_iter()
            .map(|p| {
                if p.len() > limit {
                    Line::TooLong {
                        len: p.len() as u64,
                    }
                } else {
                    Line::Message(p.to_vec())
                }
            })
            .collect()
    }

    fn read_all(data: &[u8], limit: usize, sizes: Vec<usize>, capacity: usize) -> Vec<Line> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let input = Chunked {
                data: data.to_vec(),
                at: 0,
                sizes,
                next: 0,
            };
            let mut reader =
                LineReader::with_limit(BufReader::with_capacity(capacity.max(1), input), limit);
            let mut out = Vec::new();
            while let Some(line) = reader.next_line().await.unwrap() {
                out.push(line);
            }
            out
        })
    }

    #[test]
    fn lines_at_the_limit_pass_and_over_it_are_drained() {
        let data = b"abcd\nabcde\n\nxy\r\nlast";
        assert_eq!(
            read_all(data, 4, vec![3], 2),
            vec![
                Line::Message(b"abcd".to_vec()),
                Line::TooLong { len: 5 },
                Line::Message(Vec::new()),
                Line::Message(b"xy\r".to_vec()),
                Line::Message(b"last".to_vec()),
            ]
        );
    }

    #[test]
    fn sixteen_mib_passes_and_one_byte_more_is_too_long() {
        let mut data = vec![b'a'; MAX_MESSAGE];
        data.push(b'\n');
        data.extend(std::iter::repeat_n(b'b', MAX_MESSAGE + 1));
        data.extend_from_slice(b"\n{}\n");
        let lines = read_all(&data, MAX_MESSAGE, vec![], 8192);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], Line::Message(vec![b'a'; MAX_MESSAGE]));
        assert_eq!(
            lines[1],
            Line::TooLong {
                len: MAX_MESSAGE as u64 + 1
            }
        );
        assert_eq!(lines[2], Line::Message(b"{}".to_vec()));
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_lines_of_the_input(
            data in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'x'), any::<u8>()], 0..300),
            limit in 0usize..20,
            sizes in proptest::collection::vec(1usize..17, 0..5),
            capacity in 1usize..9,
        ) {
            prop_assert_eq!(read_all(&data, limit, sizes, capacity), expected(&data, limit));
        }
    }
}
