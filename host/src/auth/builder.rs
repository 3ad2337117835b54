//! The OAuth methods of every family's `ClientBuilder` ([`auth_builder_methods!`], expanded
//! by [`builder_methods!`](crate::builder_methods)).

/// Defines the OAuth configuration methods of a family's `ClientBuilder` (with the same
/// requirements as [`builder_methods!`](crate::builder_methods), which invokes it).
#[doc(hidden)]
#[macro_export]
macro_rules! auth_builder_methods {
    () => {
        /// Installs the authorization handler OAuth servers with the authorization code grant
        /// need ([`ServerSpec::oauth`](mcp_core::ServerSpec::oauth)): it gets an
        /// [`AuthorizationPrompt`](mcp_host::AuthorizationPrompt) (the URL to open and the
        /// redirect URI the browser comes back to) and answers an
        /// [`AuthorizationCallback`](mcp_core::types::AuthorizationCallback) with the redirect
        /// URL (or its query), or a [`HandlerError`](mcp_core::HandlerError). See
        /// [`Self::browser_authorization`] for the ready-made one.
        pub fn authorization_handler<F, O>(mut self, f: F) -> Self
        where
            F: Fn($crate::AuthorizationPrompt) -> O + Send + Sync + 'static,
            O: HandlerOutput<$crate::mcp_core::types::AuthorizationCallback>,
        {
            self.parts.handlers.authorization = Some(typed_handler(f));
            self
        }

        /// Signs in through a browser: for each authorization, listens at the redirect URI
        /// (a loopback `http` URI such as [`OAuthOptions::browser`](mcp_host::auth::OAuthOptions::browser)
        /// sets up), opens the URL with `opener`, and answers with the redirect once it
        /// arrives (at most 5 minutes; see
        /// [`BrowserAuthorization`](mcp_host::auth::BrowserAuthorization) for another
        /// timeout). Replaces an authorization handler.
        pub fn browser_authorization(mut self, opener: $crate::auth::BrowserOpener) -> Self {
            let browser = $crate::auth::BrowserAuthorization::new(opener);
            self.parts.handlers.authorization =
                Some(typed_handler(move |req: $crate::AuthorizationPrompt| browser.start(&req)));
            self
        }

        /// Installs the token provider servers set up with
        /// [`ServerSpec::token_provider`](mcp_core::ServerSpec::token_provider) need: on a
        /// `401`/`403` it gets a [`TokenRequest`](mcp_host::TokenRequest) (the server's URL,
        /// status, `WWW-Authenticate` and attempt number) and answers an
        /// [`AccessTokenAnswer`](mcp_core::types::AccessTokenAnswer), or a
        /// [`HandlerError`](mcp_core::HandlerError) to give up.
        pub fn token_provider<F, O>(mut self, f: F) -> Self
        where
            F: Fn($crate::TokenRequest) -> O + Send + Sync + 'static,
            O: HandlerOutput<$crate::mcp_core::types::AccessTokenAnswer>,
        {
            self.parts.handlers.access_token = Some(typed_handler(f));
            self
        }

        /// Keeps OAuth records across runs: each OAuth server starts from the store's record
        /// for its canonical URL (a record that cannot be read is reported as a
        /// [`Warning::TokenStore`](mcp_core::Warning::TokenStore) event and ignored), and
        /// every [`Event::AuthorizationSaved`](mcp_core::Event::AuthorizationSaved) is saved
        /// (from the server's driver, before the event hook sees it).
        pub fn token_store(mut self, store: std::sync::Arc<dyn $crate::auth::TokenStore>) -> Self {
            self.parts.token_store = Some(store);
            self
        }
    };
}
