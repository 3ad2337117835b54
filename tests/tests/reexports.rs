//! Every runtime crate re-exports the same names (from one list, `mcpwire_host::facade`), and the
//! runtime-neutral ones are the very same types: code moves between `mcpwire-tokio`, `mcpwire-smol` and
//! `mcpwire-blocking` by changing one path.

use std::any::TypeId;

/// Imports the common set from `$krate` (a missing name fails the build) and returns the
/// `TypeId`s of its runtime-neutral types; the names of a feature are in the set when it is on.
macro_rules! common_set {
    ($krate:ident) => {{
        #[allow(unused_imports)]
        use $krate::{
            calls, connect, schema, set_deprecation_notices, tool_formats, tool_result_message, types,
            BatchRequest, CallToolResult, CancelToken, Client, ClientBuilder, ClientError, ClientList,
            CreateMessageResult, DeprecationNotices, ElicitResult, ElicitationRequest, Event, EventHook,
            FromServer, Handler, HandlerError, HandlerOutput, ListenRequest, Notification, Pending,
            ProgressFn, ProgressStream, ProtocolMode, Provider, RequestBuilder, RequestError, RequestOptions,
            RequestUpdate, Root, RootsListRequest, SamplingRequest, Server, ServerInfo, ServerRequest,
            ServerSpec, StartedTask, StdioCommand, Subscription, SubscriptionFilter, Tool, Warning,
            DEFAULT_MAX_CONCURRENT_SERVERS,
        };
        assert_eq!(DEFAULT_MAX_CONCURRENT_SERVERS, mcpwire_host::DEFAULT_MAX_CONCURRENT_SERVERS);
        let _: fn() -> ClientBuilder = Client::builder;
        #[allow(unused_mut)]
        let mut ids = vec![
            TypeId::of::<ClientError>(),
            TypeId::of::<Event>(),
            TypeId::of::<EventHook>(),
            TypeId::of::<ProgressFn>(),
            TypeId::of::<ProtocolMode>(),
            TypeId::of::<RequestOptions>(),
            TypeId::of::<ServerInfo>(),
            TypeId::of::<ServerRequest>(),
            TypeId::of::<ServerSpec>(),
            TypeId::of::<CallToolResult>(),
            TypeId::of::<CreateMessageResult>(),
            TypeId::of::<RequestError>(),
            TypeId::of::<types::Tool>(),
            TypeId::of::<Tool>(),
            TypeId::of::<calls::ReadResource>(),
            TypeId::of::<HandlerError>(),
            TypeId::of::<Root>(),
            TypeId::of::<SamplingRequest>(),
            TypeId::of::<ElicitationRequest>(),
            TypeId::of::<RootsListRequest>(),
        ];
        #[cfg(feature = "http")]
        {
            use $krate::{AccessTokenAnswer, HttpClientConfig, ProxySetting};
            ids.extend([
                TypeId::of::<HttpClientConfig>(),
                TypeId::of::<ProxySetting>(),
                TypeId::of::<AccessTokenAnswer>(),
            ]);
        }
        #[cfg(feature = "oauth")]
        {
            use $krate::{auth, oauth};
            ids.extend([TypeId::of::<auth::OAuthOptions>(), TypeId::of::<oauth::OAuthError>()]);
        }
        #[cfg(feature = "schema")]
        {
            use $krate::ValidationMode;
            ids.push(TypeId::of::<ValidationMode>());
        }
        ids
    }};
}

#[test]
fn every_runtime_crate_exports_the_same_runtime_neutral_types() {
    let tokio = common_set!(mcpwire_tokio);
    assert_eq!(tokio, common_set!(mcpwire_smol));
    assert_eq!(tokio, common_set!(mcpwire_blocking));
}

#[test]
fn every_client_is_one_generic_type() {
    // One API for every runtime: the client types differ only by their family.
    assert_eq!(
        TypeId::of::<mcpwire_tokio::Client>(),
        TypeId::of::<mcpwire_host::Client<mcpwire_async::Async<mcpwire_tokio::TokioRuntime>>>()
    );
    assert_eq!(
        TypeId::of::<mcpwire_smol::Client>(),
        TypeId::of::<mcpwire_host::Client<mcpwire_async::Async<mcpwire_smol::SmolRuntime>>>()
    );
    assert_eq!(
        TypeId::of::<mcpwire_blocking::Client>(),
        TypeId::of::<mcpwire_host::Client<mcpwire_blocking::Blocking>>()
    );
    // The async crates share their handlers.
    assert_eq!(TypeId::of::<mcpwire_tokio::Handler>(), TypeId::of::<mcpwire_smol::Handler>());
}
