//! What a server pushes: listen streams ([`ListenRequest`]) and resource subscriptions, and
//! closing the server.

use std::future::IntoFuture;
use std::sync::Arc;
use std::time::Duration;

use mcpwire_core::{ClientError, Era, QueueLimits, Request, SubscriptionFilter};

use crate::family::Family;
use crate::pending_op::{Pending, PendingFuture};
use crate::server::Server;
use crate::style::{Awaiting, Returning};
use crate::subscription::{ListenOptions, ResourceSubscriptions};

impl<F: Family> Server<F> {
    /// Opens a listen stream for what `filter` asks for (list changes, resource updates,
    /// task status, logs): on 2026-07-28 servers a `subscriptions/listen` request, on legacy
    /// servers the notifications of the session's stream. Ready once the server acknowledged
    /// it; dropping the handle closes the stream.
    pub fn listen(&self, filter: SubscriptionFilter) -> ListenRequest<'_, F> {
        ListenRequest { server: self, filter, opts: ListenOptions::default() }
    }

    /// Subscribes to updates of resource `uri`: `resources/subscribe` on legacy servers, a
    /// listen stream the client keeps on 2026-07-28 servers (renewed after a reconnect). The
    /// updates reach the event hook.
    pub fn subscribe_resource(&self, uri: &str) -> Pending<'_, F, Result<(), ClientError>> {
        let uri = uri.to_owned();
        Pending::new(async move {
            let info = self.connect().start().await?;
            if info.era == Era::Legacy {
                // The connection keeps it once the server confirmed it.
                self.request(Request::SubscribeResource { uri }).start().await?;
                return Ok(());
            }
            let filter = SubscriptionFilter::new().resource(&uri);
            let request = Request::Listen { filter, require_all: true };
            let stream = F::open_listen(self.link(), None, request, ListenOptions::default())?;
            stream.acknowledgment().await?;
            ResourceSubscriptions::check_granted(&stream, &uri)?;
            self.inner().resources.insert(&uri, stream);
            Ok(())
        })
    }

    /// Ends the subscription to resource `uri` (nothing to do when there is none).
    pub fn unsubscribe_resource(&self, uri: &str) -> Pending<'_, F, Result<(), ClientError>> {
        let uri = uri.to_owned();
        Pending::new(async move {
            if let Some(stream) = self.inner().resources.remove(&uri) {
                stream.close();
                return Ok(());
            }
            let info = self.connect().start().await?;
            if info.era == Era::Legacy {
                self.request(Request::UnsubscribeResource { uri }).start().await?;
            }
            Ok(())
        })
    }

    /// The resource URIs this server is subscribed to. Answers at once.
    pub fn subscribed_resources(&self) -> Vec<String> {
        let mut uris = self.inner().resources.live();
        F::inspect(self.link(), &mut |conn, _| uris.extend(conn.resource_subscriptions().map(str::to_owned)));
        uris.sort_unstable();
        uris.dedup();
        uris
    }

    /// Shuts the server down (stdin closed, then terminate, then kill) and waits until done.
    /// Later requests fail with a "closed" error.
    pub fn close(&self) -> Pending<'_, F, ()> {
        Pending::new(async move { F::close(self.link()).await })
    }
}

/// A listen stream about to be opened ([`Server::listen`]), with its options; awaited (async
/// client) or sent (blocking client), it gives the stream's handle once acknowledged.
#[must_use = "a listen stream is opened only when awaited or sent"]
pub struct ListenRequest<'a, F: Family> {
    server: &'a Server<F>,
    filter: SubscriptionFilter,
    opts: ListenOptions,
}

impl<F: Family> std::fmt::Debug for ListenRequest<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListenRequest")
            .field("server", &self.server.name())
            .field("filter", &self.filter)
            .field("opts", &self.opts)
            .finish()
    }
}

impl<'a, F: Family> ListenRequest<'a, F> {
    /// How long each acknowledgment may take (the first, and each after a re-open); the
    /// server's request timeout otherwise. One that expires cancels and ends the stream.
    pub fn ack_timeout(mut self, timeout: Duration) -> Self {
        self.opts.ack_timeout = Some(timeout);
        self
    }

    /// Replaces every option at once.
    pub fn options(mut self, opts: ListenOptions) -> Self {
        self.opts = opts;
        self
    }

    /// Bounds of the notifications waiting to be read.
    pub fn queue(mut self, limits: QueueLimits) -> Self {
        self.opts.queue = limits;
        self
    }

    /// Opens the stream and waits for its first acknowledgment.
    fn open(self) -> Pending<'a, F, Result<F::Subscription, ClientError>> {
        let Self { server, filter, opts } = self;
        Pending::new(async move {
            let request = Request::Listen { filter, require_all: false };
            // The handle keeps the server open while it lives.
            let keep = server.inner().clone() as Arc<dyn std::any::Any + Send + Sync>;
            let stream = F::open_listen(server.link(), Some(keep), request, opts)?;
            stream.acknowledgment().await?;
            Ok(F::subscription(stream))
        })
    }
}

impl<'a, F: Family<Style = Awaiting>> IntoFuture for ListenRequest<'a, F> {
    type Output = Result<F::Subscription, ClientError>;
    type IntoFuture = PendingFuture<'a, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        self.open().into_future()
    }
}

impl<F: Family<Style = Returning>> ListenRequest<'_, F> {
    /// Opens the stream and blocks until the server acknowledged it.
    pub fn send(self) -> Result<F::Subscription, ClientError> {
        self.open().send()
    }
}
