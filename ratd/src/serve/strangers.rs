//! Connections before the end of their TLS handshake: nobody's yet, so none of them counts
//! against `--max-connections`, which is for clients holding a certificate. They are bounded
//! apart ([`MAX_HANDSHAKING`]): beyond, the oldest is closed to make room for the newest, so
//! that a flood of connections sending nothing or sending slowly never keeps a certificate
//! holder out (it only needs its handshake to end before [`MAX_HANDSHAKING`] newer connections
//! arrive). A flood is logged when it begins and when it is over, never per connection
//! (`docs/design/transport.md`, Connections before the handshake).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

/// The most connections held before the end of their TLS handshake; beyond, the oldest is
/// closed. Each costs a file descriptor and, once its ClientHello arrived, the TLS state of a
/// handshake (tens of KiB at most).
pub const MAX_HANDSHAKING: usize = 1024;

/// How long a flood must have been quiet (no connection closed to make room) before its end is
/// logged, with the next connection.
const FLOOD_QUIET: Duration = Duration::from_secs(10);

/// The connections before the end of their handshake, oldest first.
#[derive(Default)]
pub(crate) struct Strangers {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next: u64,
    /// Each connection's number and the token that closes it, in the order they came.
    waiting: BTreeMap<u64, CancellationToken>,
    /// The flood going on: when it began, when it last closed a connection, how many it closed.
    flood: Option<(Instant, Instant, u64)>,
}

/// A connection's place among the strangers, given back when dropped (its handshake ended,
/// or it closed). `evicted` fires when it is closed to make room.
pub(crate) struct Place {
    strangers: Arc<Strangers>,
    id: u64,
    pub(crate) evicted: CancellationToken,
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
    /// A place for a connection just accepted: at [`MAX_HANDSHAKING`], the oldest connection
    /// still in its handshake is closed first.
    pub(crate) fn admit(self: &Arc<Self>) -> Place {
        let evicted = CancellationToken::new();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let id = state.next;
        state.next += 1;
        state.waiting.insert(id, evicted.clone());
        let now = Instant::now();
        if state.waiting.len() > MAX_HANDSHAKING {
            if let Some((_, oldest)) = state.waiting.pop_first() {
                oldest.cancel();
            }
            match &mut state.flood {
                Some((_, last, closed)) => {
                    *last = now;
                    *closed += 1;
                }
                None => {
                    state.flood = Some((now, now, 1));
                    tracing::warn!(
                        max_handshaking = MAX_HANDSHAKING,
                        "a flood of connections that do not finish their TLS handshake: the oldest are closed to make room, clients holding a certificate are served meanwhile"
                    );
                }
            }
        } else if let Some((began, last, closed)) = state.flood
            && now.duration_since(last) >= FLOOD_QUIET
        {
            state.flood = None;
            tracing::warn!(
                closed,
                seconds = last.duration_since(began).as_secs(),
                "the flood of connections that did not finish their TLS handshake is over: {closed} closed to make room"
            );
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
        let strangers = Arc::new(Strangers::default());
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
