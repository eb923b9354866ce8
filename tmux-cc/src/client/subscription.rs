//! A subscriber's view of the notifications: every one, or word of how many it missed.

use tokio::sync::broadcast;

use crate::parse::Notification;

/// What [`Subscription::recv`] yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The next notification, in the order tmux printed it.
    Notification(Notification),
    /// This subscriber fell more than
    /// [`notification_capacity`](crate::ClientOptions::notification_capacity) behind and the
    /// `missed` oldest notifications were dropped for it; the ones after follow. State built
    /// from notifications is then stale: list again (`list-sessions`, `list-windows -a`,
    /// [`Client::list_windows`](crate::Client::list_windows)) and carry on from what the
    /// listing says.
    Lagged {
        /// How many notifications were dropped for this subscriber.
        missed: u64,
    },
}

/// The notifications of one connection, from the moment of [`Client::subscribe`](crate::Client::subscribe)
/// on. Never loses one unseen: a subscriber too slow for the buffer gets the count of those it
/// missed ([`Delivery::Lagged`]) before it gets the next ones.
#[derive(Debug)]
pub struct Subscription {
    rx: broadcast::Receiver<Notification>,
}

impl Subscription {
    pub(super) fn new(rx: broadcast::Receiver<Notification>) -> Self {
        Subscription { rx }
    }

    /// The next delivery; `None` once the connection has ended (every notification before
    /// the end delivered first). `%exit` is not delivered: it ends the connection
    /// ([`Client::closed`](crate::Client::closed) says why).
    pub async fn recv(&mut self) -> Option<Delivery> {
        match self.rx.recv().await {
            Ok(notification) => Some(Delivery::Notification(notification)),
            Err(broadcast::error::RecvError::Lagged(missed)) => Some(Delivery::Lagged { missed }),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }

    /// The next delivery if one is ready now: `Ok(None)` when none is, `Err(())` once the
    /// connection has ended.
    #[allow(clippy::result_unit_err)]
    pub fn try_recv(&mut self) -> Result<Option<Delivery>, ()> {
        match self.rx.try_recv() {
            Ok(notification) => Ok(Some(Delivery::Notification(notification))),
            Err(broadcast::error::TryRecvError::Lagged(missed)) => {
                Ok(Some(Delivery::Lagged { missed }))
            }
            Err(broadcast::error::TryRecvError::Empty) => Ok(None),
            Err(broadcast::error::TryRecvError::Closed) => Err(()),
        }
    }
}
