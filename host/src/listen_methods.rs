//! The push API of a family's `Server`, written once: listen streams and resource
//! subscriptions. Expanded by [`listen_methods!`](crate::listen_methods) inside each family's
//! `impl Server`, which supplies `fn open_listen(&self, Request, ListenOptions, host_reads: bool)
//! -> Result<SubscriptionCore, ClientError>`, `fn resource_subscriptions(&self) ->
//! &ResourceSubscriptions`, and a `Subscription` type in scope ([`crate::AsyncSubscription`] or
//! [`crate::BlockingSubscription`]).

/// Defines the listen and resource-subscription methods of a family's `Server`:
/// `listen_methods!(async await)` or `listen_methods!()`.
#[macro_export]
macro_rules! listen_methods {
    ($($async:ident $await:ident)?) => {
        /// Opens a `subscriptions/listen` stream (2026-07-28 servers) for what `filter` asks,
        /// and waits for the server's acknowledgment (bounded by the request timeout). Read
        /// its notifications with `next()`; `acknowledged()` / `unsupported()` say what the
        /// server agreed to. The stream re-opens by itself after a dropped HTTP stream or a
        /// restarted server process; dropping the handle closes it.
        pub $($async)? fn listen(
            &self,
            filter: $crate::mcp_core::SubscriptionFilter,
        ) -> Result<Subscription, $crate::mcp_core::ClientError> {
            self.listen_with(filter, $crate::ListenOptions::default())$(.$await)?
        }

        /// [`Self::listen`] with options (acknowledgment timeout, queue bounds).
        pub $($async)? fn listen_with(
            &self,
            filter: $crate::mcp_core::SubscriptionFilter,
            opts: $crate::ListenOptions,
        ) -> Result<Subscription, $crate::mcp_core::ClientError> {
            let request = $crate::mcp_core::Request::Listen { filter, require_all: false };
            let sub = Subscription::new(self.open_listen(request, opts, true)?);
            sub.acknowledgment()$(.$await)??;
            Ok(sub)
        }

        /// Subscribes to updates of resource `uri`; `Ok` only once the server confirmed it
        /// (`resources/subscribe` on handshake servers, which must declare
        /// `resources.subscribe`; on 2026-07-28 servers a listen stream whose acknowledgment
        /// names the URI, and that ends if a later acknowledgment leaves it out). Updates
        /// arrive as `Notification::ResourceUpdated` events. A handshake server's
        /// subscriptions are sent again to a restarted process or a new HTTP session; one it
        /// refuses then ends, with an `Event::ResourceSubscriptionDropped`.
        pub $($async)? fn subscribe_resource(&self, uri: &str) -> Result<(), $crate::mcp_core::ClientError> {
            let info = self.connect()$(.$await)??;
            if info.era == $crate::mcp_core::Era::Legacy {
                let request = $crate::mcp_core::Request::SubscribeResource { uri: uri.to_owned() };
                // The connection keeps it once the server confirmed it.
                self.request(request, $crate::mcp_core::RequestOptions::default())$(.$await)??;
                return Ok(());
            }
            let filter = $crate::mcp_core::SubscriptionFilter::new().resource(uri);
            let request = $crate::mcp_core::Request::Listen { filter, require_all: true };
            let sub = Subscription::new(self.open_listen(request, $crate::ListenOptions::default(), false)?);
            sub.acknowledgment()$(.$await)??;
            $crate::ResourceSubscriptions::check_granted(&sub, uri)?;
            self.resource_subscriptions().insert(uri, sub.into_core());
            Ok(())
        }

        /// Ends a subscription made with [`Self::subscribe_resource`] (`resources/unsubscribe`
        /// on handshake servers; closing its listen stream on 2026-07-28 servers).
        pub $($async)? fn unsubscribe_resource(&self, uri: &str) -> Result<(), $crate::mcp_core::ClientError> {
            if let Some(stream) = self.resource_subscriptions().remove(uri) {
                stream.close();
                return Ok(());
            }
            let info = self.connect()$(.$await)??;
            if info.era == $crate::mcp_core::Era::Legacy {
                let request = $crate::mcp_core::Request::UnsubscribeResource { uri: uri.to_owned() };
                self.request(request, $crate::mcp_core::RequestOptions::default())$(.$await)??;
            }
            Ok(())
        }

        /// The resources subscribed to (and not ended since), in URI order: on handshake
        /// servers those the connection holds (renewed after restarts, dropped when a renewal
        /// is refused), on 2026-07-28 servers those whose listen stream is open. Answers at
        /// once (callbacks may call it too).
        pub fn subscribed_resources(&self) -> Vec<String> {
            let mut uris = self.resource_subscriptions().live();
            self.inspect(&mut |conn, _| uris.extend(conn.resource_subscriptions().map(str::to_owned)));
            uris.sort_unstable();
            uris.dedup();
            uris
        }
    };
}
