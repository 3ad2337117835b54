//! Compile-time proof that the handles users share between threads and tasks are `Send + Sync`
//! and that request values (and the futures awaiting them) are `Send`: a request can be built
//! on one thread and awaited or sent on another, and an async call can run in a spawned task.
//! A type that loses one of these auto traits fails this file's build.

use std::future::IntoFuture;

fn send_sync<T: Send + Sync>() {}
fn is_send<T: Send>(_: &T) {}

/// The handle types, checked for one runtime crate `$krate`.
macro_rules! handles {
    ($krate:ident) => {{
        use $krate::*;
        send_sync::<Client>();
        send_sync::<Server>();
        send_sync::<ClientError>();
        send_sync::<RequestError>();
        send_sync::<ServerSpec>();
        send_sync::<RequestOptions>();
        send_sync::<CancelToken>();
        send_sync::<Event>();
        send_sync::<Subscription>();
    }};
}

/// Never called: it only has to compile.
#[allow(dead_code)]
fn async_request_values(client: &mcpwire_tokio::Client, smol_client: &mcpwire_smol::Client) {
    is_send(&mcpwire_tokio::Client::builder());
    is_send(&client.call_tool("echo", ()));
    is_send(&client.call_tool("echo", ()).into_future());
    is_send(&client.list_tools().into_future());
    is_send(&client.servers()[0].read_resource("a://b").into_future());
    is_send(&client.servers()[0].listen(mcpwire_tokio::SubscriptionFilter::new()).into_future());
    is_send(&smol_client.call_tool("echo", ()).into_future());
    is_send(&smol_client.call_tool("echo", ()).stream());
}

/// Never called: it only has to compile.
#[allow(dead_code)]
fn blocking_request_values(client: &mcpwire_blocking::Client) {
    is_send(&mcpwire_blocking::Client::builder());
    is_send(&client.call_tool("echo", ()));
    is_send(&client.list_tools());
    is_send(&client.servers()[0].listen(mcpwire_blocking::SubscriptionFilter::new()));
}

#[test]
fn handles_are_send_and_sync_in_every_runtime() {
    handles!(mcpwire_tokio);
    handles!(mcpwire_smol);
    handles!(mcpwire_blocking);
}
