//! The host side of OAuth for HTTP servers: what the sans-IO flow in
//! [`mcpwire_core::oauth`] cannot do itself.
//!
//! - [`OAuthOptions`]: what a server spec asks for
//!   ([`ServerSpec::oauth`](mcpwire_core::ServerSpec::oauth)); the client builder fills in the OS
//!   entropy, the wall clock and the stored record ([`prepare_auth`]);
//! - [`TokenStore`] ([`MemoryTokenStore`], [`FileTokenStore`]): records kept across runs,
//!   loaded when the client is built and saved on every
//!   [`Event::AuthorizationSaved`](mcpwire_core::Event::AuthorizationSaved) ([`persisting_hook`]);
//! - [`LoopbackCallback`]: the local listener the browser is redirected to;
//!   [`BrowserOpener`] and [`BrowserAuthorization`]: the ready-made browser sign-in
//!   (`ClientBuilder::browser_authorization`).
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcpwire_host::auth::{FileTokenStore, LoopbackCallback, TokenStore};
//!
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let store = FileTokenStore::in_default_dir()?; // e.g. ~/.config/mcp/tokens on Linux
//! let record = store.load("https://mcp.example.com/mcp")?;
//! println!("signed in before: {}", record.is_some());
//!
//! let callback = LoopbackCallback::bind(0)?; // http://127.0.0.1:<port>/callback
//! println!("open the sign-in page; it comes back to {}", callback.redirect_uri());
//! let redirect = callback.wait(std::time::Duration::from_secs(300))?;
//! println!("came back with {redirect}");
//! # let _: Arc<dyn TokenStore> = Arc::new(store);
//! # Ok(()) }
//! ```

mod browser;
mod loopback;
mod options;
mod prepare;
mod store;

pub use browser::{AuthorizationWait, BrowserAuthorization, BrowserOpener, OpenFn};
pub use loopback::{
    CallbackError, CallbackWait, LoopbackCallback, CONNECTION_READ_TIMEOUT, DEFAULT_AUTHORIZATION_TIMEOUT,
    DEFAULT_CALLBACK_PATH, MAX_CALLBACK_REQUEST_BYTES,
};
pub use options::OAuthOptions;
pub use prepare::{os_entropy, persisting_hook, prepare_auth};
pub use store::{FileTokenStore, MemoryTokenStore, TokenStore, TokenStoreError, MAX_RECORD_BYTES};
