//! The client API, written once for every family: each macro expands to the same methods,
//! `async` with `.await` for `mcp-async`, plain for `mcp-blocking`. A family supplies the
//! primitives the methods stand on and invokes the macros inside its own `impl` blocks.
//!
//! - [`server_methods!`](crate::server_methods): needs `fn issue(&self, Request,
//!   RequestOptions, Option<ProgressFn>) -> Outcome` (async or not) and `fn inspect(&self,
//!   &mut dyn FnMut(&mut Connection, Instant))` (plain: [`EngineApi::inspect`](crate::EngineApi::inspect))
//!   on the family's `Server`.
//! - [`client_methods!`](crate::client_methods): needs `servers: Arc<[Server]>` on `Client` and
//!   the family's fan-out primitive, `fn fan_out(&self, per_server) -> Vec<T>` (async or not):
//!   `per_server` run on every server, at most `max_concurrent_servers` at once, the outputs in
//!   configuration order. Every client-wide method that asks each server stands on it.
//! - [`builder_methods!`](crate::builder_methods): needs `parts: BuilderParts<Handler>` on
//!   `ClientBuilder`, and the family's `Handler` type, `HandlerOutput<T>` trait (what a typed
//!   handler closure returns: a future of `Result<T, HandlerError>`, or the result itself) and
//!   `typed_handler` function (closure to `Handler`) in scope.
//!
//! Adding a request kind: a descriptor in `mcp_core::calls` and one method in
//! `server_methods!`; both families get it.

/// Defines the request methods of a family's `Server`: `server_methods!(async await)` or
/// `server_methods!()`.
#[macro_export]
macro_rules! server_methods {
    ($($async:ident $await:ident)?) => {
        /// Sends any request described by a [`Call`](mcp_core::calls::Call) and waits for its
        /// typed outcome.
        pub $($async)? fn send<C: $crate::mcp_core::calls::Call>(
            &self,
            call: C,
        ) -> Result<C::Output, $crate::mcp_core::ClientError> {
            self.send_with(call, $crate::mcp_core::RequestOptions::default())$(.$await)?
        }

        /// [`Self::send`] with options (timeout, `_meta`, `refresh`, ...).
        pub $($async)? fn send_with<C: $crate::mcp_core::calls::Call>(
            &self,
            call: C,
            opts: $crate::mcp_core::RequestOptions,
        ) -> Result<C::Output, $crate::mcp_core::ClientError> {
            C::decode(self.issue(call.into_request(), opts, None)$(.$await)??)
        }

        /// [`Self::send_with`], calling `progress` for each progress notification
        /// (`opts.progress` is switched on). The callback runs outside the server's engine
        /// lock, in order with the server's other callbacks, and may call the client; the call
        /// returns after its last progress callback.
        pub $($async)? fn send_with_progress<C, F>(
            &self,
            call: C,
            mut opts: $crate::mcp_core::RequestOptions,
            progress: F,
        ) -> Result<C::Output, $crate::mcp_core::ClientError>
        where
            C: $crate::mcp_core::calls::Call,
            F: Fn($crate::mcp_core::Progress) + Send + Sync + 'static,
        {
            opts.progress = true;
            C::decode(self.issue(call.into_request(), opts, Some(std::sync::Arc::new(progress)))$(.$await)??)
        }

        /// Sends any request and waits for its untyped response.
        pub $($async)? fn request(
            &self,
            request: $crate::mcp_core::Request,
            opts: $crate::mcp_core::RequestOptions,
        ) -> Result<$crate::mcp_core::Response, $crate::mcp_core::ClientError> {
            self.send_with(request, opts)$(.$await)?
        }

        /// Like [`Self::request`], calling `progress` for each progress notification.
        pub $($async)? fn request_with_progress<F>(
            &self,
            request: $crate::mcp_core::Request,
            opts: $crate::mcp_core::RequestOptions,
            progress: F,
        ) -> Result<$crate::mcp_core::Response, $crate::mcp_core::ClientError>
        where
            F: Fn($crate::mcp_core::Progress) + Send + Sync + 'static,
        {
            self.send_with_progress(request, opts, progress)$(.$await)?
        }

        /// Goes on with a multi-round-trip request (2026-07-28 `input_required`) that stopped
        /// with a resumable error ([`RequestError::input_resume`](mcp_core::RequestError::input_resume):
        /// the input budget ran out, the input-wait hook stopped it, or the server asked for
        /// input this client has no handler for or sent malformed input requests; `resume` is
        /// plain data, so a client built with the missing handlers can go on): the original
        /// request goes out again with the server's last `requestState` and the answers in
        /// `resume`, with a fresh input budget. Answers what the original request would have.
        pub $($async)? fn resume(
            &self,
            resume: $crate::mcp_core::InputResume,
        ) -> Result<$crate::mcp_core::Response, $crate::mcp_core::ClientError> {
            self.resume_with(resume, $crate::mcp_core::RequestOptions::default())$(.$await)?
        }

        /// [`Self::resume`] with options (timeout, `_meta`, ...).
        pub $($async)? fn resume_with(
            &self,
            resume: $crate::mcp_core::InputResume,
            mut opts: $crate::mcp_core::RequestOptions,
        ) -> Result<$crate::mcp_core::Response, $crate::mcp_core::ClientError> {
            let (request, state) = resume.into_parts();
            opts.input_state = Some(state);
            self.request(request, opts)$(.$await)?
        }

        /// Starts the server if needed and waits until its era is known.
        pub $($async)? fn connect(&self) -> Result<$crate::mcp_core::ServerInfo, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::Connect)$(.$await)?
        }

        /// All tools (every page).
        pub $($async)? fn list_tools(
            &self,
        ) -> Result<Vec<$crate::mcp_core::types::Tool>, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::ListTools)$(.$await)?
        }

        /// All prompts.
        pub $($async)? fn list_prompts(
            &self,
        ) -> Result<Vec<$crate::mcp_core::types::Prompt>, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::ListPrompts)$(.$await)?
        }

        /// All resources.
        pub $($async)? fn list_resources(
            &self,
        ) -> Result<Vec<$crate::mcp_core::types::Resource>, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::ListResources)$(.$await)?
        }

        /// All resource templates.
        pub $($async)? fn list_resource_templates(
            &self,
        ) -> Result<Vec<$crate::mcp_core::types::ResourceTemplate>, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::ListResourceTemplates)$(.$await)?
        }

        /// Calls a tool. `arguments` is a JSON object (or `null`); a `_meta` key in it is sent
        /// as the request's `_meta`. A tool failure is a result with `is_error`, not an `Err`.
        pub $($async)? fn call_tool(
            &self,
            name: &str,
            arguments: $crate::serde_json::Value,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::CallTool::new(name, arguments))$(.$await)?
        }

        /// Calls a tool with options (timeout, `_meta`, ...).
        pub $($async)? fn call_tool_with(
            &self,
            name: &str,
            arguments: $crate::serde_json::Value,
            opts: $crate::mcp_core::RequestOptions,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            self.send_with($crate::mcp_core::calls::CallTool::new(name, arguments), opts)$(.$await)?
        }

        /// Calls a tool, reporting progress notifications to `progress` (see
        /// [`Self::send_with_progress`]).
        pub $($async)? fn call_tool_with_progress<F>(
            &self,
            name: &str,
            arguments: $crate::serde_json::Value,
            opts: $crate::mcp_core::RequestOptions,
            progress: F,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError>
        where
            F: Fn($crate::mcp_core::Progress) + Send + Sync + 'static,
        {
            let call = $crate::mcp_core::calls::CallTool::new(name, arguments);
            self.send_with_progress(call, opts, progress)$(.$await)?
        }

        /// Gets a prompt with string arguments.
        pub $($async)? fn get_prompt(
            &self,
            name: &str,
            arguments: $crate::serde_json::Map<String, $crate::serde_json::Value>,
        ) -> Result<$crate::mcp_core::types::GetPromptResult, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::GetPrompt::new(name, arguments))$(.$await)?
        }

        /// Reads a resource.
        pub $($async)? fn read_resource(
            &self,
            uri: &str,
        ) -> Result<$crate::mcp_core::types::ReadResourceResult, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::ReadResource::new(uri))$(.$await)?
        }

        /// Asks for completions of an argument.
        pub $($async)? fn complete(
            &self,
            reference: $crate::mcp_core::types::CompletionReference,
            argument: &str,
            value: &str,
        ) -> Result<$crate::mcp_core::types::CompleteResult, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::Complete::new(reference, argument, value))$(.$await)?
        }

        /// Asks for completions of an argument, given the values of the arguments already
        /// resolved (`context.arguments`; servers on revisions before 2025-06-18 are sent the
        /// request without it).
        pub $($async)? fn complete_with(
            &self,
            reference: $crate::mcp_core::types::CompletionReference,
            argument: &str,
            value: &str,
            context: std::collections::BTreeMap<String, String>,
        ) -> Result<$crate::mcp_core::types::CompleteResult, $crate::mcp_core::ClientError> {
            let call = $crate::mcp_core::calls::Complete::new(reference, argument, value).with_context(context);
            self.send(call)$(.$await)?
        }

        /// Checks the server is alive (`ping`, or `server/discover` on 2026-07-28 servers).
        pub $($async)? fn ping(&self) -> Result<(), $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::Ping)$(.$await)?
        }

        /// Sets the server's log level.
        pub $($async)? fn set_log_level(
            &self,
            level: $crate::mcp_core::types::LoggingLevel,
        ) -> Result<(), $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::SetLogLevel(level))$(.$await)?
        }

        /// What the server is now: on 2026-07-28 servers the last `server/discover` result
        /// while its `ttlMs` keeps it fresh, else a new `server/discover` (whose answer
        /// replaces [`Self::info`]); on legacy servers the `initialize` answer.
        pub $($async)? fn discover(&self) -> Result<$crate::mcp_core::ServerInfo, $crate::mcp_core::ClientError> {
            self.send($crate::mcp_core::calls::Discover)$(.$await)?
        }

        /// What is cached for `key` that a request with default options may be answered from
        /// (see [`Connection::cache_info`](mcp_core::Connection::cache_info)); `None` when
        /// nothing is. Answers at once (callbacks may call it too).
        pub fn cache_info(&self, key: $crate::mcp_core::CacheKey) -> Option<$crate::mcp_core::CacheInfo> {
            let mut key = Some(key);
            let mut info = None;
            self.inspect(&mut |conn, now| info = key.take().and_then(|key| conn.cache_info(now, key)));
            info
        }

        /// Drops every cached result of this server: the next request of each kind goes to it.
        pub fn clear_cache(&self) {
            self.inspect(&mut |conn, _| conn.clear_cache());
        }

        /// Replaces the roots this server is told (set up with `ClientBuilder::roots`). A legacy
        /// server is sent `notifications/roots/list_changed` (the client declared
        /// `roots.listChanged`) and gets the new list when it asks again; a 2026-07-28 server
        /// gets it the next time it asks. Answers at once; fails with
        /// [`CommandError::RootsNotManaged`](mcp_core::CommandError::RootsNotManaged) when the
        /// client answers roots with a handler (or has none). Callbacks may call it too.
        pub fn set_roots<I>(&self, roots: I) -> Result<(), $crate::mcp_core::ClientError>
        where
            I: IntoIterator<Item = $crate::mcp_core::Root>,
        {
            let mut roots = Some(roots.into_iter().collect::<Vec<_>>());
            let mut outcome = Ok(());
            self.inspect(&mut |conn, now| {
                if let Some(roots) = roots.take() {
                    outcome = conn.set_roots(now, roots);
                }
            });
            outcome.map_err($crate::mcp_core::ClientError::Command)
        }
    };
}

/// Defines the multi-server methods of a family's `Client` (routing by tool name):
/// `client_methods!(async await)` or `client_methods!()`.
#[macro_export]
macro_rules! client_methods {
    ($($async:ident $await:ident)?) => {
        /// Every server, in configuration order.
        pub fn servers(&self) -> &[Server] {
            &self.servers
        }

        /// The server with this name.
        pub fn server(&self, name: &str) -> Option<&Server> {
            self.servers.iter().find(|s| s.name() == name)
        }

        fn named(&self, name: &str) -> Result<&Server, $crate::mcp_core::ClientError> {
            self.server(name)
                .ok_or_else(|| $crate::mcp_core::routing::RouteError::UnknownServer(name.to_owned()).into())
        }

        /// Connects every server (era detection included), at most
        /// [`ClientBuilder::max_concurrent_servers`] at once. Every server is tried: the report
        /// names the servers that connected and those that could not
        /// ([`ConnectReport::into_result`](mcp_core::routing::ConnectReport::into_result) for
        /// all or nothing).
        pub $($async)? fn connect(&self) -> $crate::mcp_core::routing::ConnectReport {
            use $crate::mcp_core::routing::{ConnectReport, ConnectedServer, ServerFailure};
            let outcomes = self.fan_out(|s| s.connect())$(.$await)?;
            let mut report = ConnectReport::default();
            for (s, outcome) in self.servers.iter().zip(outcomes) {
                let server = s.name().to_owned();
                match outcome {
                    Ok(info) => report.connected.push(ConnectedServer { server, info }),
                    Err(error) => report.failed.push(ServerFailure { server, error }),
                }
            }
            report
        }

        /// The tools of every server, each tagged with its server, asking at most
        /// [`ClientBuilder::max_concurrent_servers`] servers at once. A server that cannot list
        /// its tools is reported in [`ClientList::failed`](mcp_core::routing::ClientList) and
        /// the others' tools are still returned; a server without the `tools` capability is
        /// skipped.
        pub $($async)? fn list_tools(
            &self,
        ) -> $crate::mcp_core::routing::ClientList<$crate::mcp_core::ServerTool> {
            let answers = self.fan_out(|s| s.list_tools())$(.$await)?;
            self.tagged_tools(answers)
        }

        /// Every server's tools as [`Self::list_tools`], from each server's cached list while it
        /// is fresh (a `tools/list` to the others): what routing by tool name looks at.
        $($async)? fn tool_catalog(
            &self,
        ) -> $crate::mcp_core::routing::ClientList<$crate::mcp_core::ServerTool> {
            let answers = self.fan_out(|s| Self::tools_of(s))$(.$await)?;
            self.tagged_tools(answers)
        }

        /// The servers' answers (in configuration order) as one tagged list.
        fn tagged_tools(
            &self,
            answers: Vec<Result<Vec<$crate::mcp_core::types::Tool>, $crate::mcp_core::ClientError>>,
        ) -> $crate::mcp_core::routing::ClientList<$crate::mcp_core::ServerTool> {
            let answers = self.servers.iter().map(|s| s.name()).zip(answers);
            $crate::catalog_gather_all(answers, |server, tool| $crate::mcp_core::ServerTool { server, tool })
        }

        /// A server's tools: the cached list, or a fresh `tools/list`.
        $($async)? fn tools_of(
            server: &Server,
        ) -> Result<Vec<$crate::mcp_core::types::Tool>, $crate::mcp_core::ClientError> {
            match server.known_tools() {
                Some(tools) => Ok(tools),
                None => server.list_tools()$(.$await)?,
            }
        }

        /// Which server owns `tool`: the only server, or the one server whose tool list (cached,
        /// else fetched) names it. A server that cannot list its tools does not stop the
        /// others: when no server that answered offers the tool, the failure is the answer.
        $($async)? fn route(&self, tool: &str) -> Result<&Server, $crate::mcp_core::ClientError> {
            if let [only] = &self.servers[..] {
                return Ok(only);
            }
            let catalog = self.tool_catalog()$(.$await)?;
            let owner = $crate::catalog_route_tool(tool, &catalog)?;
            self.named(owner)
        }

        /// The tool with this name and the server offering it: `None` when no server offers it,
        /// an error if several do, or if none that answered does and a server could not list
        /// its tools (its error).
        pub $($async)? fn find_tool(
            &self,
            name: &str,
        ) -> Result<Option<$crate::mcp_core::ServerTool>, $crate::mcp_core::ClientError> {
            use $crate::mcp_core::routing::RouteError;
            let catalog = self.tool_catalog()$(.$await)?;
            let owner = match $crate::catalog_route_tool(name, &catalog) {
                Ok(owner) => owner.to_owned(),
                Err($crate::mcp_core::ClientError::Route(RouteError::UnknownTool(_))) => return Ok(None),
                Err(e) => return Err(e),
            };
            Ok(catalog.items.into_iter().find(|t| t.server == owner && t.tool.name == name))
        }

        /// Calls a tool on the server that offers it.
        pub $($async)? fn call_tool(
            &self,
            name: &str,
            arguments: $crate::serde_json::Value,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            self.route(name)$(.$await)??.call_tool(name, arguments)$(.$await)?
        }

        /// Calls a tool on a named server.
        pub $($async)? fn call_tool_on(
            &self,
            server: &str,
            name: &str,
            arguments: $crate::serde_json::Value,
        ) -> Result<$crate::mcp_core::types::CallToolResult, $crate::mcp_core::ClientError> {
            self.named(server)?.call_tool(name, arguments)$(.$await)?
        }

        /// Replaces the roots every server is told ([`Server::set_roots`] on each; the first
        /// error, if any, after trying them all).
        pub fn set_roots<I>(&self, roots: I) -> Result<(), $crate::mcp_core::ClientError>
        where
            I: IntoIterator<Item = $crate::mcp_core::Root>,
        {
            let roots: Vec<$crate::mcp_core::Root> = roots.into_iter().collect();
            let mut first = Ok(());
            for s in self.servers.iter() {
                let outcome = s.set_roots(roots.iter().cloned());
                if first.is_ok() {
                    first = outcome;
                }
            }
            first
        }

        /// Shuts every server down and waits until each is closed (at most
        /// [`ClientBuilder::max_concurrent_servers`] at once).
        pub $($async)? fn close(&self) {
            self.fan_out(|s| s.close())$(.$await)?;
        }
    };
}

/// Defines the configuration methods of a family's `ClientBuilder` (its `Handler` type must
/// be in scope): `builder_methods!()`.
#[macro_export]
macro_rules! builder_methods {
    () => {
        /// Adds a server.
        pub fn server(mut self, spec: $crate::mcp_core::ServerSpec) -> Self {
            self.parts.specs.push(spec);
            self
        }

        $crate::auth_builder_methods!();

        /// How many servers a client-wide request (`Client::connect`, `list_tools`, the
        /// prompt, resource and template lists, `set_log_level`, routing by name, `close`) asks
        /// at once; default [`DEFAULT_MAX_CONCURRENT_SERVERS`]($crate::DEFAULT_MAX_CONCURRENT_SERVERS),
        /// so ten servers take about as long as the slowest one. 1 asks them one after the
        /// other. 0 is refused by `build` with [`ClientError::Config`](mcp_core::ClientError::Config).
        pub fn max_concurrent_servers(mut self, limit: usize) -> Self {
            self.parts.max_concurrent_servers = limit;
            self
        }

        /// Sets up the HTTP client every HTTP server of this client shares (one keep-alive
        /// pool): extra root certificates and the proxy. The default trusts the webpki roots
        /// and takes the proxy from the environment.
        pub fn http_client(mut self, config: $crate::HttpClientConfig) -> Self {
            self.parts.http = config;
            self
        }

        /// The client's roots, answered by the client itself (declares `roots` with
        /// `listChanged`); `Client::set_roots` / `Server::set_roots` change them while connected.
        /// Replaces a roots handler.
        pub fn roots<I>(mut self, roots: I) -> Self
        where
            I: IntoIterator<Item = $crate::mcp_core::Root>,
        {
            self.parts.handlers.fixed_roots = Some(roots.into_iter().collect());
            self.parts.handlers.roots = None;
            self
        }

        /// Installs a roots handler (declares the `roots` capability): it gets a
        /// [`RootsListRequest`](mcp_host::RootsListRequest) and answers the roots
        /// (`Vec<Root>`) or a [`HandlerError`](mcp_core::HandlerError). Replaces roots given
        /// with `roots`.
        pub fn roots_handler<F, O>(mut self, f: F) -> Self
        where
            F: Fn($crate::RootsListRequest) -> O + Send + Sync + 'static,
            O: HandlerOutput<Vec<$crate::mcp_core::Root>>,
        {
            self.parts.handlers.roots = Some(typed_handler(f));
            self.parts.handlers.fixed_roots = None;
            self
        }

        /// Installs a sampling handler (declares the `sampling` capability): it gets a
        /// [`SamplingRequest`](mcp_host::SamplingRequest) (checked and decoded; the server's name
        /// in `server`) and answers a
        /// [`CreateMessageResult`](mcp_core::types::CreateMessageResult) or a
        /// [`HandlerError`](mcp_core::HandlerError) (sent as a constant `-32603` unless it
        /// names a code).
        pub fn sampling_handler<F, O>(mut self, f: F) -> Self
        where
            F: Fn($crate::SamplingRequest) -> O + Send + Sync + 'static,
            O: HandlerOutput<$crate::mcp_core::types::CreateMessageResult>,
        {
            self.parts.handlers.sampling = Some(typed_handler(f));
            self
        }

        /// Installs an elicitation handler (declares form-mode `elicitation`): it gets an
        /// [`ElicitationRequest`](mcp_host::ElicitationRequest) and answers an
        /// [`ElicitResult`](mcp_core::types::ElicitResult) (accepted content is checked against
        /// the requested form before it is sent) or a [`HandlerError`](mcp_core::HandlerError).
        pub fn elicitation_handler<F, O>(mut self, f: F) -> Self
        where
            F: Fn($crate::ElicitationRequest) -> O + Send + Sync + 'static,
            O: HandlerOutput<$crate::mcp_core::types::ElicitResult>,
        {
            self.parts.handlers.elicitation = Some(typed_handler(f));
            self
        }

        /// Installs a URL-mode elicitation handler (declares `elicitation.url`): it gets the
        /// `elicitation/create` requests with `mode: "url"` (the form handler gets the others).
        /// Its answer is consent, not data: an [`ElicitResult`](mcp_core::types::ElicitResult)
        /// whose `content` is dropped (`_meta` kept). A 2025-11-25 request carries
        /// `elicitation_id`, whose completion arrives as
        /// [`Event::ElicitationComplete`](mcp_core::Event::ElicitationComplete).
        pub fn elicitation_url_handler<F, O>(mut self, f: F) -> Self
        where
            F: Fn($crate::ElicitationRequest) -> O + Send + Sync + 'static,
            O: HandlerOutput<$crate::mcp_core::types::ElicitResult>,
        {
            self.parts.handlers.elicitation_url = Some(typed_handler(f));
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
        pub fn on_event<F>(mut self, hook: F) -> Self
        where
            F: Fn(&str, &$crate::mcp_core::Event) + Send + Sync + 'static,
        {
            self.parts.hook = Some(std::sync::Arc::new(hook));
            self
        }

        /// Calls `hook` when a request starts a paced wait before retrying a 2026-07-28
        /// state-only `input_required` (the server said "not yet": the wait grows from 50 ms to
        /// at most 2 s and never outlasts the request's timeout), with the server's name and the
        /// wait. [`InputWaitDecision::Cancel`](mcp_core::InputWaitDecision::Cancel) fails the
        /// request with [`RequestError::InputWaitCancelled`](mcp_core::RequestError::InputWaitCancelled),
        /// which `Server::resume` can go on from. The waits are also events
        /// ([`Event::InputWait`](mcp_core::Event::InputWait)). Like the event hook (right after
        /// it, for the same wait), it runs outside the server's engine lock, in order, and may
        /// call the client; a `Cancel` is applied when it returns, unless the wait is over.
        pub fn on_input_wait<F>(mut self, hook: F) -> Self
        where
            F: Fn(&str, &$crate::mcp_core::InputWait) -> $crate::mcp_core::InputWaitDecision
                + Send
                + Sync
                + 'static,
        {
            self.parts.input_wait_hook = Some(std::sync::Arc::new(hook));
            self
        }

        /// Computes extra `_meta` for each request when it is submitted (e.g. a trace id), from
        /// its server, method and tool, prompt or resource name. The map goes over the server's
        /// static `_meta` ([`ServerSpec::request_meta`](mcp_core::ServerSpec::request_meta))
        /// and under a request's own `RequestOptions::meta`; keys the protocol sets
        /// (`progressToken`, the 2026-07-28 envelope) are dropped. Like any `_meta`, its keys
        /// are part of the cache key of lists and reads: a value unique to every request (a
        /// trace id) keeps those from being served from the cache, so add it only for the
        /// methods that need it (`ctx.method`). It runs on the caller's thread before the
        /// request reaches the server's engine (no lock held), so it may call the client; a
        /// request it makes gets a `_meta` from it too (look at `ctx.method` to stop there). A
        /// provider that panics fails that request.
        pub fn request_meta_provider<F>(mut self, provider: F) -> Self
        where
            F: Fn(
                    &$crate::mcp_core::RequestMetaContext<'_>,
                ) -> $crate::serde_json::Map<String, $crate::serde_json::Value>
                + Send
                + Sync
                + 'static,
        {
            self.parts.meta_provider = Some(std::sync::Arc::new(provider));
            self
        }
    };
}

/// What every family's `ClientBuilder` collects: servers, handlers, the event hook and the
/// HTTP client settings.
pub struct BuilderParts<H> {
    /// The servers, in order.
    pub specs: Vec<mcp_core::ServerSpec>,
    /// The host's handlers.
    pub handlers: crate::HandlerSet<H>,
    /// The event hook.
    pub hook: Option<crate::EventHook>,
    /// The HTTP client settings.
    pub http: crate::HttpClientConfig,
    /// The per-request `_meta` provider.
    pub meta_provider: Option<crate::MetaProvider>,
    /// The input-wait hook.
    pub input_wait_hook: Option<crate::InputWaitHook>,
    /// Where OAuth records are loaded from and saved to.
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
            http: Default::default(),
            meta_provider: None,
            input_wait_hook: None,
            token_store: None,
            max_concurrent_servers: DEFAULT_MAX_CONCURRENT_SERVERS,
        }
    }
}

impl<H> std::fmt::Debug for BuilderParts<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("specs", &self.specs)
            .field("handlers", &self.handlers)
            .field("hook", &self.hook.as_ref().map(|_| "installed"))
            .field("http", &self.http)
            .field("meta_provider", &self.meta_provider.as_ref().map(|_| "installed"))
            .field("input_wait_hook", &self.input_wait_hook.as_ref().map(|_| "installed"))
            .field("token_store", &self.token_store.as_ref().map(|_| "installed"))
            .field("max_concurrent_servers", &self.max_concurrent_servers)
            .finish()
    }
}

/// One server of a client being built: its connection, its driver's bookkeeping, and the view
/// its API handles read.
#[derive(Debug)]
pub struct ServerStart<R, W> {
    /// The server's name.
    pub name: std::sync::Arc<str>,
    /// Its connection, created at the build's `now`.
    pub conn: mcp_core::Connection,
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
    pub http: crate::HttpClientConfig,
    /// How many servers a client-wide request asks at once (at least 1).
    pub max_concurrent_servers: usize,
}

impl<H> BuilderParts<H> {
    /// Checks the server list (one at least, unique names) and the fan-out limit (at least
    /// 1), gives every server the features of
    /// the installed handlers and a jitter seed, completes OAuth setups (entropy, wall clock,
    /// stored record: [`crate::auth::prepare_auth`]), and sets up each one's connection at
    /// `now`.
    pub fn prepare<R: crate::Reply, W: crate::Waiter>(
        self,
        now: std::time::Instant,
    ) -> Result<Prepared<H, R, W>, mcp_core::ClientError> {
        if self.max_concurrent_servers == 0 {
            let refusal =
                "max_concurrent_servers must be at least 1 (1 asks the servers one after the other)";
            return Err(mcp_core::ClientError::Config(refusal.into()));
        }
        let mut specs = crate::prepare_servers(self.specs, &self.handlers)?;
        let store = self.token_store.as_deref();
        crate::auth::prepare_auth(&mut specs, &self.handlers, store, self.hook.as_ref())?;
        let hook = crate::auth::persisting_hook(self.token_store, self.hook);
        let servers = specs
            .into_iter()
            .map(|spec| {
                let mut config = spec.config;
                crate::seed_config(&mut config);
                let name: std::sync::Arc<str> = spec.name.into();
                let view = crate::SharedView::default();
                let mut dispatch = crate::Dispatch::new(name.clone(), hook.clone(), view.clone());
                dispatch.set_meta_provider(self.meta_provider.clone());
                dispatch.set_input_wait_hook(self.input_wait_hook.clone());
                ServerStart { name, conn: mcp_core::Connection::new(config, now), dispatch, view }
            })
            .collect();
        Ok(Prepared {
            servers,
            handlers: std::sync::Arc::new(self.handlers),
            http: self.http,
            max_concurrent_servers: self.max_concurrent_servers,
        })
    }
}
