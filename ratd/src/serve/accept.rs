//! The accept loop, on a thread of its own (`docs/design/transport.md`, Connections before the
//! handshake).
//!
//! Why a thread: a connection the kernel completed waits in the listen backlog (4096 at most,
//! `net.core.somaxconn`) until ratd accepts it, and once the backlog is full the kernel drops
//! every new connection's SYN, a certificate holder's as well, which its client sends again only
//! after 1 s, then 3 s. A flood of strangers closed and reopened fills the backlog by bursts
//! (6,300 connections opened at once overflowed it by 174). On a task of the async runtime,
//! accepting waits its turn behind every task the flood made ready; on a thread that sleeps in
//! poll(2) until a connection arrives, the kernel runs it as soon as one does, ahead of threads
//! that were busy (its scheduler favours threads that slept), so the backlog is emptied as fast
//! as the flood fills it. Each connection accepted is then served on a task of the runtime.

use std::io;
use std::os::fd::AsFd;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::runtime::Handle;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::strangers::Strangers;
use super::{ConnectionCap, RefusalLog, serve_connection};
use crate::mcp::McpState;

/// How often the accept thread looks whether ratd stops, when no connection arrives.
const STOP_CHECK: Duration = Duration::from_millis(100);

/// What every connection of a listener is served with.
struct Door {
    cap: Arc<ConnectionCap>,
    acceptor: TlsAcceptor,
    shared: Arc<McpState>,
    tracker: TaskTracker,
    stop: CancellationToken,
    hard_stop: CancellationToken,
    runtime: Handle,
}

/// Accepts connections on `listener` until `stop` fires, each served on a task of `tracker`.
/// `hard_stop` drops the connections still open. The accepting itself runs on a thread of its
/// own (see the module's doc); this future ends with it.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn accept_loop(
    listener: TcpListener,
    cap: Arc<ConnectionCap>,
    acceptor: TlsAcceptor,
    shared: Arc<McpState>,
    tracker: TaskTracker,
    stop: CancellationToken,
    hard_stop: CancellationToken,
) {
    let listener = match listener.into_std() {
        Ok(listener) => listener,
        Err(error) => {
            tracing::error!(%error, "the listener can not be handed to the accept thread");
            return;
        }
    };
    let door = Door {
        cap,
        acceptor,
        shared,
        tracker,
        stop,
        hard_stop,
        runtime: Handle::current(),
    };
    // Cancelled when this future ends or is dropped: the thread then ends too.
    let gone = CancellationToken::new();
    let _gone = gone.clone().drop_guard();
    let (ended, has_ended) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("ratd-accept".into())
        .spawn(move || {
            accept_thread(&listener, &door, &gone);
            drop(ended);
        });
    if let Err(error) = thread {
        tracing::error!(%error, "no thread to accept connections on");
        return;
    }
    let _ = has_ended.await;
}

/// The accept thread: waits in poll(2) for connections, accepts every one waiting, hands each
/// to the runtime, until `door.stop` or `gone`.
fn accept_thread(listener: &std::net::TcpListener, door: &Door, gone: &CancellationToken) {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    let refusals = Arc::new(RefusalLog::default());
    let strangers = Arc::new(Strangers::new(door.cap.max_handshaking));
    let timeout = PollTimeout::try_from(STOP_CHECK).unwrap_or(PollTimeout::NONE);
    while !door.stop.is_cancelled() && !gone.is_cancelled() {
        let mut ready = [PollFd::new(listener.as_fd(), PollFlags::POLLIN)];
        match poll(&mut ready, timeout) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) => {}
            Err(error) => {
                tracing::warn!(%error, "waiting for connections failed");
                std::thread::sleep(STOP_CHECK);
                continue;
            }
        }
        // Every connection waiting, before sleeping again.
        loop {
            match listener.accept() {
                Ok((tcp, addr)) => hand_over(tcp, addr, door, &strangers, &refusals),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => break,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => {
                    // EMFILE and friends: a stranger gives its file descriptor back if there is
                    // one (a flood, logged as such; its task closes it); else say so, breathe,
                    // and keep the door open.
                    if strangers.evict_oldest() {
                        std::thread::sleep(Duration::from_millis(1));
                    } else {
                        tracing::warn!(%error, "accepting a connection failed");
                        std::thread::sleep(STOP_CHECK);
                    }
                    break;
                }
            }
        }
    }
}

/// A connection just accepted: a place among the strangers (the oldest is closed beyond
/// `MAX_HANDSHAKING`), then served on a task of the runtime.
fn hand_over(
    tcp: std::net::TcpStream,
    addr: std::net::SocketAddr,
    door: &Door,
    strangers: &Arc<Strangers>,
    refusals: &Arc<RefusalLog>,
) {
    let place = strangers.admit();
    let _ = tcp.set_nodelay(true);
    if let Err(error) = tcp.set_nonblocking(true) {
        tracing::debug!(%addr, %error, "connection dropped: it can not be made non-blocking");
        return;
    }
    let cap = door.cap.clone();
    let acceptor = door.acceptor.clone();
    let shared = door.shared.clone();
    let refusals = refusals.clone();
    let stop = door.stop.clone();
    let hard_stop = door.hard_stop.clone();
    door.tracker.spawn_on(
        async move {
            // Registered with the runtime's reactor, on the runtime.
            let tcp = match tokio::net::TcpStream::from_std(tcp) {
                Ok(tcp) => tcp,
                Err(error) => {
                    tracing::debug!(%addr, %error, "connection dropped: not registered");
                    return;
                }
            };
            serve_connection(
                place, cap, tcp, addr, acceptor, shared, refusals, stop, hard_stop,
            )
            .await;
        },
        &door.runtime,
    );
}
