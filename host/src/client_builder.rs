//! [`ClientBuilder`]: servers, handlers, hooks, OAuth and HTTP settings, then `build`.

use crate::client::Client;
use crate::family::{Family, FamilyHandler, HasRuntimeOptions};
use crate::server::Server;
use crate::style::{typed_handler, HandlerOutput};

/// Builds a [`Client`]: servers, handlers, event hook, HTTP client setup, then
/// [`build`](ClientBuilder::build).
pub struct ClientBuilder<F: Family> {
    parts: BuilderParts<FamilyHandler<F>>,
    options: F::Options,
}

impl<F: Family> Default for ClientBuilder<F> {
    fn default() -> Self {
        Self { parts: BuilderParts::default(), options: F::Options::default() }
    }
}

impl<F: Family> std::fmt::Debug for ClientBuilder<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.parts.fmt(f)?;
        self.options.fmt(f)
    }
}

impl<F: Family> ClientBuilder<F> {
    /// Adds a server.
    pub fn server(mut self, spec: mcpwire_core::ServerSpec) -> Self {
        self.parts.specs.push(spec);
        self
    }

    /// How many servers a client-wide request (`Client::connect`, `list_tools`, the
    /// prompt, resource and template lists, `set_log_level`, routing by name, `close`) asks
    /// at once; default [`DEFAULT_MAX_CONCURRENT_SERVERS`],
    /// so ten servers take about as long as the slowest one. 1 asks them one after the
    /// other. 0 is refused by `build` with [`ClientError::Config`](mcpwire_core::ClientError::Config).
    pub fn max_concurrent_servers(mut self, limit: usize) -> Self {
        self.parts.max_concurrent_servers = limit;
        self
    }

    /// Sets up the HTTP client every HTTP server of this client shares (one keep-alive
    /// pool): extra root certificates and the proxy. The default trusts the webpki roots
    /// and takes the proxy from the environment.
    #[cfg(feature = "http")]
    pub fn http_client(mut self, config: crate::HttpClientConfig) -> Self {
        self.parts.http = config;
        self
    }

    /// The client's roots, answered by the client itself (declares `roots` with
    /// `listChanged`); `Client::set_roots` / `Server::set_roots` change them while connected.
    /// Replaces a roots handler.
    pub fn roots<I>(mut self, roots: I) -> Self
    where
        I: IntoIterator<Item = mcpwire_core::Root>,
    {
        self.parts.handlers.fixed_roots = Some(roots.into_iter().collect());
        self.parts.handlers.roots = None;
        self
    }

    /// Installs a roots handler (declares the `roots` capability): it gets a
    /// [`RootsListRequest`](crate::RootsListRequest) and answers the roots
    /// (`Vec<Root>`) or a [`HandlerError`](mcpwire_core::HandlerError). Replaces roots given
    /// with `roots`.
    pub fn roots_handler<H, O>(mut self, f: H) -> Self
    where
        H: Fn(crate::RootsListRequest) -> O + Send + Sync + 'static,
        O: HandlerOutput<F::Style, Vec<mcpwire_core::Root>>,
    {
        self.parts.handlers.roots = Some(typed_handler::<F::Style, _, _, _>(f));
        self.parts.handlers.fixed_roots = None;
        self
    }

    /// Installs a sampling handler (declares the `sampling` capability): it gets a
    /// [`SamplingRequest`](crate::SamplingRequest) (checked and decoded; the server's name
    /// in `server`) and answers a
    /// [`CreateMessageResult`](mcpwire_core::types::CreateMessageResult) or a
    /// [`HandlerError`](mcpwire_core::HandlerError) (sent as a constant `-32603` unless it
    /// names a code).
    pub fn sampling_handler<H, O>(mut self, f: H) -> Self
    where
        H: Fn(crate::SamplingRequest) -> O + Send + Sync + 'static,
        O: HandlerOutput<F::Style, mcpwire_core::types::CreateMessageResult>,
    {
        self.parts.handlers.sampling = Some(typed_handler::<F::Style, _, _, _>(f));
        self
    }

    /// Installs an elicitation handler (declares form-mode `elicitation`): it gets an
    /// [`ElicitationRequest`](crate::ElicitationRequest) and answers an
    /// [`ElicitResult`](mcpwire_core::types::ElicitResult) (accepted content is checked against
    /// the requested form before it is sent) or a [`HandlerError`](mcpwire_core::HandlerError).
    pub fn elicitation_handler<H, O>(mut self, f: H) -> Self
    where
        H: Fn(crate::ElicitationRequest) -> O + Send + Sync + 'static,
        O: HandlerOutput<F::Style, mcpwire_core::types::ElicitResult>,
    {
        self.parts.handlers.elicitation = Some(typed_handler::<F::Style, _, _, _>(f));
        self
    }

    /// Installs a URL-mode elicitation handler (declares `elicitation.url`): it gets the
    /// `elicitation/create` requests with `mode: "url"` (the form handler gets the others).
    /// Its answer is consent, not data: an [`ElicitResult`](mcpwire_core::types::ElicitResult)
    /// whose `content` is dropped (`_meta` kept). A 2025-11-25 request carries
    /// `elicitation_id`, whose completion arrives as
    /// [`Event::ElicitationComplete`](mcpwire_core::Event::ElicitationComplete).
    pub fn elicitation_url_handler<H, O>(mut self, f: H) -> Self
    where
        H: Fn(crate::ElicitationRequest) -> O + Send + Sync + 'static,
        O: HandlerOutput<F::Style, mcpwire_core::types::ElicitResult>,
    {
        self.parts.handlers.elicitation_url = Some(typed_handler::<F::Style, _, _, _>(f));
        self
    }

    /// Lets the sampling handler take tool-enabled requests (`tools`, `toolChoice`;
    /// declares `sampling.tools`, SEP-1577). Off by default: such requests are refused
    /// without calling the handler. Needs a sampling handler to have an effect.
    pub fn sampling_tools(mut self, enabled: bool) -> Self {
        self.parts.handlers.sampling_tools = enabled;
        self
    }

    /// Lets the sampling handler see `includeContext` values other than `"none"` (declares
    /// `sampling.context`, deprecated in 2026-07-28). Off by default: the handler sees
    /// `"none"`. Needs a sampling handler to have an effect.
    pub fn sampling_context(mut self, enabled: bool) -> Self {
        self.parts.handlers.sampling_context = enabled;
        self
    }

    /// Calls `hook` with every non-response event of every server (notifications, logs,
    /// stderr lines, warnings, connects and disconnects). It runs outside the server's
    /// engine lock, in the order of the server's events and never beside another callback
    /// of the same server, so it may call the client, even the same server, and wait for
    /// the answer (what that request routes meanwhile comes after the hook returns).
    pub fn on_event<H>(mut self, hook: H) -> Self
    where
        H: Fn(&str, &mcpwire_core::Event) + Send + Sync + 'static,
    {
        self.parts.hook = Some(std::sync::Arc::new(hook));
        self
    }

    /// Calls `trace` with every [`WireRecord`](mcpwire_core::WireRecord) of every server: each
    /// JSON-RPC message sent and received (as its JSON text), process starts and exits, HTTP
    /// requests, status lines and failures, credentials redacted (see the record's docs). It
    /// gets the server's name and the wall-clock time the record was taken. Off unless
    /// installed: without it nothing is copied for a trace. Like the event hook, it runs
    /// outside the server's engine lock, in order, never beside another callback of the same
    /// server; a callback that panics is skipped.
    pub fn wire_trace<H>(mut self, trace: H) -> Self
    where
        H: Fn(&str, std::time::SystemTime, &mcpwire_core::WireRecord) + Send + Sync + 'static,
    {
        self.parts.wire_trace = Some(std::sync::Arc::new(trace));
        self
    }

    /// Calls `hook` when a request starts a paced wait before retrying a 2026-07-28
    /// state-only `input_required` (the server said "not yet": the wait grows from 50 ms to
    /// at most 2 s and never outlasts the request's timeout), with the server's name and the
    /// wait. [`InputWaitDecision::Cancel`](mcpwire_core::InputWaitDecision::Cancel) fails the
    /// request with [`RequestError::InputWaitCancelled`](mcpwire_core::RequestError::InputWaitCancelled),
    /// which `Server::resume` can go on from. The waits are also events
    /// ([`Event::InputWait`](mcpwire_core::Event::InputWait)). Like the event hook (right after
    /// it, for the same wait), it runs outside the server's engine lock, in order, and may
    /// call the client; a `Cancel` is applied when it returns, unless the wait is over.
    pub fn on_input_wait<H>(mut self, hook: H) -> Self
    where
        H: Fn(&str, &mcpwire_core::InputWait) -> mcpwire_core::InputWaitDecision + Send + Sync + 'static,
    {
        self.parts.input_wait_hook = Some(std::sync::Arc::new(hook));
        self
    }

    /// Computes extra `_meta` for each request when it is submitted (e.g. a trace id), from
    /// its server, method and tool, prompt or resource name. The map goes over the server's
    /// static `_meta` ([`ServerSpec::request_meta`](mcpwire_core::ServerSpec::request_meta))
    /// and under a request's own `RequestOptions::meta`; keys the protocol sets
    /// (`progressToken`, the 2026-07-28 envelope) are dropped. Like any `_meta`, its keys
    /// are part of the cache key of lists and reads: a value unique to every request (a
    /// trace id) keeps those from being served from the cache, so add it only for the
    /// methods that need it (`ctx.method`). It runs on the caller's thread before the
    /// request reaches the server's engine (no lock held), so it may call the client; a
    /// request it makes gets a `_meta` from it too (look at `ctx.method` to stop there). A
    /// provider that panics fails that request.
    pub fn request_meta_provider<H>(mut self, provider: H) -> Self
    where
        H: Fn(
                &mcpwire_core::RequestMetaContext<'_>,
            ) -> crate::serde_json::Map<String, crate::serde_json::Value>
            + Send
            + Sync
            + 'static,
    {
        self.parts.meta_provider = Some(std::sync::Arc::new(provider));
        self
    }
    /// Installs the authorization handler OAuth servers with the authorization code grant
    /// need ([`ServerSpec::oauth`](mcpwire_core::ServerSpec::oauth)): it gets an
    /// [`AuthorizationPrompt`](crate::AuthorizationPrompt) (the URL to open and the
    /// redirect URI the browser comes back to) and answers an
    /// [`AuthorizationCallback`](mcpwire_core::types::AuthorizationCallback) with the redirect
    /// URL (or its query), or a [`HandlerError`](mcpwire_core::HandlerError). See
    /// [`Self::browser_authorization`] for the ready-made one.
    #[cfg(feature = "oauth")]
    pub fn authorization_handler<H, O>(mut self, f: H) -> Self
    where
        H: Fn(crate::AuthorizationPrompt) -> O + Send + Sync + 'static,
        O: HandlerOutput<F::Style, mcpwire_core::types::AuthorizationCallback>,
    {
        self.parts.handlers.authorization = Some(typed_handler::<F::Style, _, _, _>(f));
        self
    }

    /// Signs in through a browser: for each authorization, listens at the redirect URI
    /// (a loopback `http` URI such as [`OAuthOptions::browser`](crate::auth::OAuthOptions::browser)
    /// sets up), opens the URL with `opener`, and answers with the redirect once it
    /// arrives (at most 5 minutes; see
    /// [`BrowserAuthorization`](crate::auth::BrowserAuthorization) for another
    /// timeout). Replaces an authorization handler.
    #[cfg(feature = "oauth")]
    pub fn browser_authorization(mut self, opener: crate::auth::BrowserOpener) -> Self
    where
        crate::auth::AuthorizationWait: HandlerOutput<F::Style, mcpwire_core::types::AuthorizationCallback>,
    {
        let browser = crate::auth::BrowserAuthorization::new(opener);
        self.parts.handlers.authorization =
            Some(typed_handler::<F::Style, _, _, _>(move |req: crate::AuthorizationPrompt| {
                browser.start(&req)
            }));
        self
    }

    /// Installs the token provider servers set up with
    /// [`ServerSpec::token_provider`](mcpwire_core::ServerSpec::token_provider) need: on a
    /// `401`/`403` it gets a [`TokenRequest`](crate::TokenRequest) (the server's URL,
    /// status, `WWW-Authenticate` and attempt number) and answers an
    /// [`AccessTokenAnswer`](mcpwire_core::types::AccessTokenAnswer), or a
    /// [`HandlerError`](mcpwire_core::HandlerError) to give up.
    #[cfg(feature = "http")]
    pub fn token_provider<H, O>(mut self, f: H) -> Self
    where
        H: Fn(crate::TokenRequest) -> O + Send + Sync + 'static,
        O: HandlerOutput<F::Style, mcpwire_core::types::AccessTokenAnswer>,
    {
        self.parts.handlers.access_token = Some(typed_handler::<F::Style, _, _, _>(f));
        self
    }

    /// Keeps OAuth records across runs: each OAuth server starts from the store's record
    /// for its canonical URL (a record that cannot be read is reported as a
    /// [`Warning::TokenStore`](mcpwire_core::Warning::TokenStore) event and ignored), and
    /// every [`Event::AuthorizationSaved`](mcpwire_core::Event::AuthorizationSaved) is saved
    /// (from the server's driver, before the event hook sees it).
    #[cfg(feature = "oauth")]
    pub fn token_store(mut self, store: std::sync::Arc<dyn crate::auth::TokenStore>) -> Self {
        self.parts.token_store = Some(store);
        self
    }

    /// Starts one engine per server. Servers start lazily, on first use (or on
    /// [`Client::connect`]). Fails for an empty or inconsistent server list, a
    /// `max_concurrent_servers` of 0, an unusable `HttpClientConfig` (a bad certificate or
    /// proxy URL), or a server that is not stdio when the `http` feature is off.
    pub fn build(self) -> Result<Client<F>, mcpwire_core::ClientError> {
        let limit = self.parts.max_concurrent_servers;
        let servers = F::start(self.parts, self.options)?;
        Ok(Client::new(servers.into_iter().map(Server::new).collect(), limit))
    }
}

impl<F: HasRuntimeOptions> ClientBuilder<F> {
    /// How the client's background work runs: the runtime and how TCP connections are opened
    /// (the runtime crate's `RuntimeOptions`).
    pub fn runtime_options(mut self, options: F::Options) -> Self {
        self.options = options;
        self
    }
}

/// What every family's `ClientBuilder` collects: servers, handlers, the event hook and the
/// HTTP client settings.
pub struct BuilderParts<H> {
    /// The servers, in order.
    pub specs: Vec<mcpwire_core::ServerSpec>,
    /// The host's handlers.
    pub handlers: crate::HandlerSet<H>,
    /// The event hook.
    pub hook: Option<crate::EventHook>,
    /// The HTTP client settings.
    #[cfg(feature = "http")]
    pub http: crate::HttpClientConfig,
    /// The per-request `_meta` provider.
    pub meta_provider: Option<crate::MetaProvider>,
    /// The input-wait hook.
    pub input_wait_hook: Option<crate::InputWaitHook>,
    /// The wire trace callback.
    pub wire_trace: Option<crate::WireTrace>,
    /// Where OAuth records are loaded from and saved to.
    #[cfg(feature = "oauth")]
    pub token_store: Option<std::sync::Arc<dyn crate::auth::TokenStore>>,
    /// How many servers a client-wide request asks at once (checked by `prepare`: at least 1).
    pub max_concurrent_servers: usize,
}

/// How many servers a client-wide request asks at once unless the builder says otherwise
/// (`ClientBuilder::max_concurrent_servers`).
pub const DEFAULT_MAX_CONCURRENT_SERVERS: usize = 16;

impl<H> Default for BuilderParts<H> {
    fn default() -> Self {
        Self {
            specs: Vec::new(),
            handlers: Default::default(),
            hook: None,
            #[cfg(feature = "http")]
            http: Default::default(),
            meta_provider: None,
            input_wait_hook: None,
            wire_trace: None,
            #[cfg(feature = "oauth")]
            token_store: None,
            max_concurrent_servers: DEFAULT_MAX_CONCURRENT_SERVERS,
        }
    }
}

impl<H> std::fmt::Debug for BuilderParts<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ClientBuilder");
        d.field("specs", &self.specs)
            .field("handlers", &self.handlers)
            .field("hook", &self.hook.as_ref().map(|_| "installed"));
        #[cfg(feature = "http")]
        d.field("http", &self.http);
        d.field("meta_provider", &self.meta_provider.as_ref().map(|_| "installed"))
            .field("input_wait_hook", &self.input_wait_hook.as_ref().map(|_| "installed"))
            .field("wire_trace", &self.wire_trace.as_ref().map(|_| "installed"));
        #[cfg(feature = "oauth")]
        d.field("token_store", &self.token_store.as_ref().map(|_| "installed"));
        d.field("max_concurrent_servers", &self.max_concurrent_servers).finish()
    }
}

/// One server of a client being built: its connection, its engine's bookkeeping, and the view
/// its API handles read.
#[derive(Debug)]
pub struct ServerStart<R, W> {
    /// The server's name.
    pub name: std::sync::Arc<str>,
    /// Its connection, created at the build's `now`.
    pub conn: mcpwire_core::Connection,
    /// Its driver's bookkeeping.
    pub dispatch: crate::Dispatch<R, W>,
    /// What its API handles read.
    pub view: crate::SharedView,
}

/// A client ready to be started: its servers, the handlers every driver shares, and the
/// HTTP client settings.
#[derive(Debug)]
pub struct Prepared<H, R, W> {
    /// The servers, in order.
    pub servers: Vec<ServerStart<R, W>>,
    /// The host's handlers.
    pub handlers: std::sync::Arc<crate::HandlerSet<H>>,
    /// The HTTP client settings.
    #[cfg(feature = "http")]
    pub http: crate::HttpClientConfig,
    /// How many servers a client-wide request asks at once (at least 1).
    pub max_concurrent_servers: usize,
}

impl<H> BuilderParts<H> {
    /// Checks the server list (one at least, unique names, stdio only without the `http`
    /// feature, the handlers a server's auth needs) and the fan-out limit (at least 1), gives
    /// every server the features of the installed handlers and a jitter seed, completes OAuth
    /// setups (entropy, wall clock, stored record: `auth::prepare_auth`), and sets up each
    /// one's connection at `now`.
    pub fn prepare<R: crate::Reply, W: crate::Waiter>(
        self,
        now: std::time::Instant,
    ) -> Result<Prepared<H, R, W>, mcpwire_core::ClientError> {
        if self.max_concurrent_servers == 0 {
            let refusal =
                "max_concurrent_servers must be at least 1 (1 asks the servers one after the other)";
            return Err(mcpwire_core::ClientError::Config(refusal.into()));
        }
        #[cfg(not(feature = "http"))]
        refuse_http_servers(&self.specs, "mcpwire-host")?;
        let specs = crate::prepare_servers(self.specs, &self.handlers)?;
        #[cfg(feature = "http")]
        check_token_providers(&specs, &self.handlers)?;
        #[cfg(feature = "oauth")]
        let (specs, hook) = prepare_oauth(specs, &self.handlers, self.token_store, self.hook)?;
        #[cfg(not(feature = "oauth"))]
        let hook = self.hook;
        let servers = specs
            .into_iter()
            .map(|spec| {
                let mut config = spec.config;
                crate::seed_config(&mut config);
                // Records only when someone reads them: the host drains them for its callback.
                config.wire_trace = self.wire_trace.is_some();
                let name: std::sync::Arc<str> = spec.name.into();
                let view = crate::SharedView::default();
                let mut dispatch = crate::Dispatch::new(name.clone(), hook.clone(), view.clone());
                dispatch.set_meta_provider(self.meta_provider.clone());
                dispatch.set_input_wait_hook(self.input_wait_hook.clone());
                dispatch.set_wire_trace(self.wire_trace.clone());
                ServerStart { name, conn: mcpwire_core::Connection::new(config, now), dispatch, view }
            })
            .collect();
        Ok(Prepared {
            servers,
            handlers: std::sync::Arc::new(self.handlers),
            #[cfg(feature = "http")]
            http: self.http,
            max_concurrent_servers: self.max_concurrent_servers,
        })
    }
}

/// Refuses the first server in `specs` that is not a stdio server, naming the feature: what a
/// crate built without its `http` feature does when a client is built (`crate_name` is the
/// crate whose `http` feature would serve it).
pub fn refuse_http_servers(
    specs: &[mcpwire_core::ServerSpec],
    crate_name: &str,
) -> Result<(), mcpwire_core::ClientError> {
    let not_stdio = |s: &&mcpwire_core::ServerSpec| {
        !matches!(s.config.transport, mcpwire_core::TransportConfig::Stdio(_))
    };
    match specs.iter().find(not_stdio) {
        None => Ok(()),
        Some(spec) => Err(mcpwire_core::ClientError::Config(format!(
            "server {:?} is not a stdio server, and HTTP support is not compiled in: enable the \
             `http` feature of {crate_name}",
            spec.name
        ))),
    }
}

/// Completes the OAuth setups of `specs` ([`crate::auth::prepare_auth`]) and gives the event
/// hook the servers get: with a token store, one that saves every new record first
/// ([`crate::auth::persisting_hook`]).
#[cfg(feature = "oauth")]
fn prepare_oauth<H>(
    mut specs: Vec<mcpwire_core::ServerSpec>,
    handlers: &crate::HandlerSet<H>,
    store: Option<std::sync::Arc<dyn crate::auth::TokenStore>>,
    hook: Option<crate::EventHook>,
) -> Result<(Vec<mcpwire_core::ServerSpec>, Option<crate::EventHook>), mcpwire_core::ClientError> {
    crate::auth::prepare_auth(&mut specs, handlers, store.as_deref(), hook.as_ref())?;
    Ok((specs, crate::auth::persisting_hook(store, hook)))
}

/// Checks that a token provider is installed when a server answers its challenges with one
/// ([`HttpAuth::TokenProvider`](mcpwire_core::oauth::HttpAuth::TokenProvider)).
#[cfg(feature = "http")]
fn check_token_providers<H>(
    specs: &[mcpwire_core::ServerSpec],
    handlers: &crate::HandlerSet<H>,
) -> Result<(), mcpwire_core::ClientError> {
    use mcpwire_core::{oauth::HttpAuth, TransportConfig};
    if handlers.access_token.is_some() {
        return Ok(());
    }
    let provided = |s: &&mcpwire_core::ServerSpec| matches!(&s.config.transport, TransportConfig::Http(h) if matches!(h.auth, HttpAuth::TokenProvider));
    match specs.iter().find(provided) {
        None => Ok(()),
        Some(spec) => Err(mcpwire_core::ClientError::Config(format!(
            "server {:?} uses a token provider, but none is installed (ClientBuilder::token_provider)",
            spec.name
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpwire_core::{ServerSpec, StdioCommand};

    #[test]
    fn stdio_servers_pass_without_http() {
        let specs = [ServerSpec::stdio("a", StdioCommand::new("x"))];
        assert_eq!(refuse_http_servers(&specs, "mcpwire-host"), Ok(()));
    }

    #[cfg(feature = "http")]
    #[test]
    fn other_servers_are_refused_naming_the_feature() {
        let specs = [
            ServerSpec::stdio("a", StdioCommand::new("x")),
            ServerSpec::http("web", mcpwire_core::HttpConfig::new("https://web.example/mcp").unwrap()),
        ];
        let err = refuse_http_servers(&specs, "mcpwire-tokio").unwrap_err();
        assert!(
            matches!(&err, mcpwire_core::ClientError::Config(m) if m.contains("\"web\"") && m.contains("`http` feature of mcpwire-tokio")),
            "{err}"
        );
    }

    #[cfg(feature = "http")]
    #[test]
    fn token_providers_need_a_provider() {
        let spec = ServerSpec::http("t", mcpwire_core::HttpConfig::new("https://t.example/mcp").unwrap())
            .token_provider();
        let none: crate::HandlerSet<u8> = crate::HandlerSet::default();
        let err = check_token_providers(std::slice::from_ref(&spec), &none).unwrap_err();
        assert!(
            matches!(&err, mcpwire_core::ClientError::Config(m) if m.contains("token provider")),
            "{err}"
        );
        let with: crate::HandlerSet<u8> = crate::HandlerSet { access_token: Some(1), ..Default::default() };
        check_token_providers(&[spec], &with).unwrap();
    }
}
