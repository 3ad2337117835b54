//! OAuth for `mcp`: `--auth`, the token directory, `mcp login` and `mcp logout`.
//!
//! Tokens live in a [`FileTokenStore`] (one file per server, mode 0600), by default under
//! `~/.config/mcp/tokens`. With `--auth auto` (the default) an HTTP server with a saved record
//! is authorized from it (refreshing as needed; a browser sign-in only if the server asks for
//! more); `--auth oauth` signs in through the browser when the server asks; `--auth none`
//! never authorizes.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::ValueEnum;
use mcpwire_tokio::auth::{BrowserOpener, FileTokenStore, OAuthOptions, TokenStore};
use mcpwire_tokio::oauth::{AuthConfig, AuthFlow, HttpAuth, PreRegisteredClient};
use mcpwire_tokio::ServerSpec;
use mcpwire_tokio::TransportConfig;

use crate::commands::{self, CliError, Settings};

/// `--auth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AuthMode {
    /// OAuth from saved tokens when there are some (see `mcp login`); otherwise none.
    Auto,
    /// OAuth, signing in through the browser when the server asks.
    Oauth,
    /// Never authorize (a 401 ends the command with exit code 5).
    None,
}

/// The OAuth settings of a run.
#[derive(Debug, Clone)]
pub struct AuthSettings {
    /// `--auth`.
    pub mode: AuthMode,
    /// `--token-dir` (default: [`FileTokenStore::default_dir`]).
    pub token_dir: Option<PathBuf>,
    /// `--client-id`: a client registered with the authorization server beforehand.
    pub client_id: Option<String>,
    /// `--client-secret`, with `--client-id`.
    pub client_secret: Option<String>,
    /// `--issuer`: the authorization server `--client-id` is registered with (required unless
    /// the client id is a Client ID Metadata Document URL).
    pub issuer: Option<String>,
    /// `--callback-port`: the loopback port the browser comes back to.
    pub callback_port: u16,
    /// `--allow-private-addresses`: see [`OAuthOptions::allow_private_addresses`].
    pub allow_private_addresses: bool,
}

impl AuthSettings {
    /// The token store, or why there is none.
    pub fn store(&self) -> Result<FileTokenStore, CliError> {
        match &self.token_dir {
            Some(dir) => Ok(FileTokenStore::new(dir)),
            None => FileTokenStore::in_default_dir()
                .map_err(|e| CliError::usage(format!("no token directory ({e}); give one with --token-dir"))),
        }
    }

    /// The pre-registered client `--client-id`/`--client-secret`/`--issuer` describe: bound to
    /// its issuer, which only a Client ID Metadata Document URL may go without.
    fn pre_registered(&self) -> Result<Option<PreRegisteredClient>, CliError> {
        let Some(id) = &self.client_id else { return Ok(None) };
        let secret = self.client_secret.as_deref();
        match &self.issuer {
            Some(issuer) => Ok(Some(PreRegisteredClient::for_issuer(issuer, id, secret))),
            None if secret.is_none() && PreRegisteredClient::metadata_document(id).is_metadata_document() => {
                Ok(Some(PreRegisteredClient::metadata_document(id)))
            }
            None => Err(CliError::usage(
                "--client-id needs --issuer URL (the authorization server it is registered with), \
                 unless it is a Client ID Metadata Document URL",
            )),
        }
    }

    /// The OAuth options `--client-id`/`--client-secret`/`--issuer`/`--callback-port` describe.
    fn options(&self, client: Option<PreRegisteredClient>) -> OAuthOptions {
        let options = OAuthOptions::browser(self.callback_port)
            .client_name("mcp (command line)")
            .allow_private_addresses(self.allow_private_addresses);
        match client {
            Some(client) => options.pre_registered(client),
            None => options,
        }
    }

    /// Applies the settings to `spec` (HTTP servers only): whether it uses OAuth, and the
    /// store to keep its tokens in.
    pub fn apply(&self, spec: ServerSpec) -> Result<(ServerSpec, Option<Arc<dyn TokenStore>>), CliError> {
        let client = self.pre_registered()?;
        let Some(url) = http_url(&spec) else { return Ok((spec, None)) };
        let mode = self.mode;
        if mode == AuthMode::None || !matches!(http_auth(&spec), Some(HttpAuth::None)) {
            return Ok((spec, None));
        }
        let store = self.store()?;
        let saved = match canonical_url(&url) {
            Some(key) => store.load(&key).ok().flatten().is_some(),
            None => false,
        };
        if mode == AuthMode::Auto && !saved {
            return Ok((spec, None));
        }
        Ok((spec.oauth(self.options(client)), Some(Arc::new(store))))
    }
}

/// The URL of an HTTP server spec.
fn http_url(spec: &ServerSpec) -> Option<String> {
    match &spec.config.transport {
        TransportConfig::Http(http) => Some(http.url.clone()),
        _ => None,
    }
}

fn http_auth(spec: &ServerSpec) -> Option<&HttpAuth> {
    match &spec.config.transport {
        TransportConfig::Http(http) => Some(&http.auth),
        _ => None,
    }
}

/// The canonical server URL records are keyed by (what the OAuth flow computes).
pub fn canonical_url(url: &str) -> Option<String> {
    let config = AuthConfig::authorization_code("http://127.0.0.1:1/callback");
    AuthFlow::new(url, config, &[0; 32]).ok().map(|flow| flow.resource().to_owned())
}

/// The browser `mcp` opens: `$BROWSER` (a program, with arguments split on whitespace, given
/// the URL last) when set, else the system's; the URL is also printed on stderr for when
/// there is none (a remote shell).
pub fn browser() -> BrowserOpener {
    BrowserOpener::custom(|url: &str| {
        crate::output::note(&format!("Sign in at: {url}"));
        let opened = match std::env::var("BROWSER").ok().filter(|b| !b.trim().is_empty()) {
            Some(program) => run_browser(&program, url),
            None => BrowserOpener::System.open(url),
        };
        if let Err(e) = opened {
            crate::output::note(&format!("(could not open a browser: {e}; open the URL yourself)"));
        }
        Ok(())
    })
}

/// Starts `$BROWSER` with `url` (not waited for beyond its start).
fn run_browser(program: &str, url: &str) -> std::io::Result<()> {
    let mut words = program.split_whitespace();
    let mut command = std::process::Command::new(words.next().unwrap_or_default());
    command.args(words).arg(url);
    command.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null());
    let mut child = command.spawn()?;
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// `mcp logout`: forgets the saved record of the server at `url`.
pub fn logout(settings: &AuthSettings, url: &str) -> Result<bool, CliError> {
    let key = canonical_url(url).ok_or_else(|| CliError::usage(format!("{url} is not an http(s) URL")))?;
    let store = settings.store()?;
    let had = store.load(&key).ok().flatten().is_some();
    store.remove(&key).map_err(|e| CliError::new(format!("cannot remove the saved tokens: {e}")))?;
    Ok(had)
}

/// `mcp login TARGET`: connects with OAuth forced (the browser opens if the server asks) and
/// says where the tokens went.
pub async fn login(settings: &Settings, target: Option<&str>) -> Result<ExitCode, CliError> {
    let spec = commands::spec_for(settings, target)?;
    let url = http_url(&spec)
        .ok_or_else(|| CliError::usage("login applies to HTTP servers; TARGET is a command line"))?;
    let key = canonical_url(&url).ok_or_else(|| CliError::usage(format!("{url} is not an http(s) URL")))?;
    let mut forced = settings.clone();
    forced.auth.mode = AuthMode::Oauth;
    commands::with_server(&forced, spec, |server| async move {
        server.connect().await?;
        Ok(())
    })
    .await?;
    let store = settings.auth.store()?;
    let saved = store.load(&key).ok().flatten().is_some_and(|r| r.tokens.is_some());
    let message = if saved {
        format!("signed in to {key}; tokens saved in {}", store.dir().display())
    } else {
        format!("{key} did not ask for authorization; nothing to save")
    };
    crate::output::emit(&message);
    Ok(ExitCode::SUCCESS)
}

/// `mcp logout TARGET`.
pub fn logout_command(settings: &Settings, target: Option<&str>) -> Result<ExitCode, CliError> {
    let spec = commands::spec_for(settings, target)?;
    let url = http_url(&spec)
        .ok_or_else(|| CliError::usage("logout applies to HTTP servers; TARGET is a command line"))?;
    let message = if logout(&settings.auth, &url)? {
        format!("forgot the saved tokens of {url}")
    } else {
        format!("no saved tokens for {url}")
    };
    crate::output::emit(&message);
    Ok(ExitCode::SUCCESS)
}
