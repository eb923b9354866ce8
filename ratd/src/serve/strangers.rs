//! Connections before the end of their TLS handshake: nobody's yet, so none of them counts
//! against `--max-connections`, which is for clients holding a certificate. They are bounded
//! apart ([`MAX_HANDSHAKING`]): beyond, the oldest is closed to make room for the newest, so
//! that a flood of connections sending nothing or sending slowly never keeps a certificate
//! holder out (it only needs its handshake to end before [`MAX_HANDSHAKING`] newer connections
//! arrive). A flood ([`FLOOD_AT`] strangers at once) is logged when it begins and when it is
//! over, never per connection
//! (`docs/design/transport.md`, Connections before the handshake).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

/// The most connections held before the end of their TLS handshake; beyond, the oldest is
/// closed (and when no file descriptor is left for a new one). Large on purpose: a connection
/// neither held nor closed waits in the kernel's listen backlog, and once the backlog is full
/// the kernel drops new connections, a certificate holder's as well. A stranger sending nothing
/// costs a file descriptor and a few KiB; one in its handshake, rustls' state too.
pub const MAX_HANDSHAKING: usize = 16384;

/// How long strangers must have been fewer than half of [`FLOOD_AT`] before the end of a flood
/// is logged, with the next connection.
const FLOOD_QUIET: Duration = Duration::from_secs(10);

/// The connections before the end of their handshake, oldest first.
pub(crate) struct Strangers {
    state: Mutex<State>,
    /// The most held: [`MAX_HANDSHAKING`], or what the open file limit leaves them
    /// (`service::warnings::file_limit`).
    most: usize,
}

#[derive(Default)]
struct State {
    next: u64,
    /// Each connection's number and the token that closes it, in the order they came.
    waiting: BTreeMap<u64, CancellationToken>,
    /// The flood going on, if any.
    flood: Option<Flood>,
}

/// A flood: [`FLOOD_AT`] strangers or more at once.
struct Flood {
    began: Instant,
    /// When strangers were last [`FLOOD_AT`] or more.
    last_high: Instant,
    /// The most strangers at once.
    peak: usize,
    /// Strangers closed to make room.
    closed: u64,
}

/// How many strangers at once make a flood, logged once when it begins; it is over once they
/// are fewer than half as many for [`FLOOD_QUIET`].
pub(crate) const FLOOD_AT: usize = 1024;

/// A connection's place among the strangers, given back when dropped (its handshake ended,
/// or it closed). `evicted` fires when it is closed to make room.
pub(crate) struct Place {
    strangers: Arc<Strangers>,
    id: u64,
    pub(crate) evicted: CancellationToken,
}

impl Place {
    /// When this connection's handshake must have ended, counted from `accepted`: between half
    /// of [`HANDSHAKE_TIMEOUT`](super::HANDSHAKE_TIMEOUT) and all of it, spread by the
    /// connection's number, so that the connections a flood opened at once are not all closed
    /// at once (each would come back at once, and overflow the listen backlog).
    pub(crate) fn deadline(&self, accepted: tokio::time::Instant) -> tokio::time::Instant {
        let full = super::HANDSHAKE_TIMEOUT;
        // A multiplicative hash of the number: spread evenly, whatever the order of arrival.
        let spread = (self.id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 48) as u32; // 0..65536
        accepted + full / 2 + (full / 2) * spread / 65536
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut state = self
            .strangers
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        state.waiting.remove(&self.id);
    }
}

impl Strangers {
    /// No stranger yet; at most `most` held at once.
    pub(crate) fn new(most: usize) -> Strangers {
        Strangers {
            state: Mutex::default(),
            most: most.max(1),
        }
    }

    /// Closes the oldest connection still in its handshake, when accepting failed for want of
    /// file descriptors. Whether there was one.
    pub(crate) fn evict_oldest(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some((_, oldest)) = state.waiting.pop_first() else {
            return false;
        };
        oldest.cancel();
        let now = Instant::now();
        self.high(&mut state, now);
        if let Some(flood) = &mut state.flood {
            flood.closed += 1;
        }
        true
    }

    /// Strangers are many (or ratd ran out of file descriptors): the flood begins (logged,
    /// once) or goes on.
    fn high(&self, state: &mut State, now: Instant) {
        let count = state.waiting.len();
        match &mut state.flood {
            Some(flood) => {
                flood.last_high = now;
                flood.peak = flood.peak.max(count);
            }
            None => {
                state.flood = Some(Flood {
                    began: now,
                    last_high: now,
                    peak: count,
                    closed: 0,
                });
                tracing::warn!(
                    connections = count,
                    max_handshaking = self.most,
                    "a flood of connections that do not finish their TLS handshake: each gets {} seconds, the oldest are closed beyond {}, clients holding a certificate are served meanwhile",
                    super::HANDSHAKE_TIMEOUT.as_secs(),
                    self.most
                );
            }
        }
    }

    /// A place for a connection just accepted: at the bound ([`MAX_HANDSHAKING`] at most), the
    /// oldest connection still in its handshake is closed first.
    pub(crate) fn admit(self: &Arc<Self>) -> Place {
        let evicted = CancellationToken::new();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let id = state.next;
        state.next += 1;
        state.waiting.insert(id, evicted.clone());
        let now = Instant::now();
        let count = state.waiting.len();
        if count > self.most
            && let Some((_, oldest)) = state.waiting.pop_first()
        {
            oldest.cancel();
            if let Some(flood) = &mut state.flood {
                flood.closed += 1;
            }
        }
        if count >= FLOOD_AT {
            self.high(&mut state, now);
        } else if let Some(flood) = &state.flood
            && count < FLOOD_AT / 2
            && now.duration_since(flood.last_high) >= FLOOD_QUIET
        {
            tracing::info!(
                peak = flood.peak,
                closed = flood.closed,
                seconds = flood.last_high.duration_since(flood.began).as_secs(),
                "the flood of connections that did not finish their TLS handshake is over"
            );
            state.flood = None;
        }
        drop(state);
        Place {
            strangers: self.clone(),
            id,
            evicted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_stranger_makes_room_for_the_newest() {
        let strangers = Arc::new(Strangers::new(MAX_HANDSHAKING));
        let mut places: Vec<Place> = (0..MAX_HANDSHAKING).map(|_| strangers.admit()).collect();
        assert!(places.iter().all(|p| !p.evicted.is_cancelled()));
        let newest = strangers.admit();
        assert!(places[0].evicted.is_cancelled());
        assert!(places[1..].iter().all(|p| !p.evicted.is_cancelled()));
        assert!(!newest.evicted.is_cancelled());
        // A place given back makes room: nobody is closed for the next one.
        places.truncate(10);
        let _next = strangers.admit();
        assert!(places[1..].iter().all(|p| !p.evicted.is_cancelled()));
    }
}
