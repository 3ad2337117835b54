//! The browser step of an OAuth sign-in: [`BrowserOpener`] (the system browser, or a function
//! that tests script) and [`BrowserAuthorization`], the ready-made authorization handler that
//! listens at the request's loopback redirect URI, opens the authorization URL and answers
//! with the redirect it receives.

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use mcpwire_core::types::{AuthorizationCallback, AuthorizationRequest};
use mcpwire_core::HandlerError;

use super::loopback::{CallbackWait, LoopbackCallback, DEFAULT_AUTHORIZATION_TIMEOUT};

/// A function that opens a URL in a browser.
pub type OpenFn = Arc<dyn Fn(&str) -> io::Result<()> + Send + Sync>;

/// How the authorization URL is opened.
#[derive(Clone, Default)]
pub enum BrowserOpener {
    /// The system's browser: `xdg-open` (Linux and the BSDs), `open` (macOS),
    /// `rundll32 url.dll,FileProtocolHandler` (Windows; unlike `cmd /c start` it does not
    /// interpret the `&` of a query). Launched, not waited on.
    #[default]
    System,
    /// A function of the host's (a terminal prompt, an embedded browser, a test that drives
    /// the redirect itself).
    Custom(OpenFn),
}

impl fmt::Debug for BrowserOpener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::System => f.write_str("System"),
            Self::Custom(_) => f.write_str("Custom"),
        }
    }
}

impl BrowserOpener {
    /// A [`BrowserOpener::Custom`] from a function.
    pub fn custom<F>(open: F) -> Self
    where
        F: Fn(&str) -> io::Result<()> + Send + Sync + 'static,
    {
        Self::Custom(Arc::new(open))
    }

    /// Opens `url`. The system opener takes only `http(s)` URLs without whitespace or control
    /// characters.
    pub fn open(&self, url: &str) -> io::Result<()> {
        match self {
            Self::System => open_system(url),
            Self::Custom(open) => open(url),
        }
    }
}

fn open_system(url: &str) -> io::Result<()> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let web = lower.starts_with("https://") || lower.starts_with("http://");
    if !web || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "only http(s) URLs are opened"));
    }
    let mut command = if cfg!(target_os = "macos") {
        Command::new("open")
    } else if cfg!(windows) {
        let mut c = Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler");
        c
    } else {
        Command::new("xdg-open")
    };
    let mut child =
        command.arg(url).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    // Reap the launcher when it exits (it hands the URL to the browser and returns).
    let _ = std::thread::Builder::new().name("mcp-browser-launch".into()).spawn(move || child.wait());
    Ok(())
}

/// The ready-made authorization handler (`ClientBuilder::browser_authorization` installs
/// it): for each [`AuthorizationRequest`] it listens at the request's `redirect_uri` (a
/// loopback `http` URI such as `OAuthOptions::browser` configures), opens the authorization
/// URL with its [`BrowserOpener`], and answers with the redirect URL once the browser comes
/// back, all on a thread of its own.
#[derive(Debug, Clone)]
pub struct BrowserAuthorization {
    opener: BrowserOpener,
    timeout: Duration,
}

impl BrowserAuthorization {
    /// With `opener`, waiting at most [`DEFAULT_AUTHORIZATION_TIMEOUT`] for the browser.
    pub fn new(opener: BrowserOpener) -> Self {
        Self { opener, timeout: DEFAULT_AUTHORIZATION_TIMEOUT }
    }

    /// How long to wait for the browser to come back.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Starts one sign-in: binds the listener first (so the redirect cannot arrive before
    /// it), then opens the URL, then waits. Usable as an authorization handler in every
    /// family: `.authorization_handler(move |req| browser.start(&req))`.
    pub fn start(&self, request: &AuthorizationRequest) -> AuthorizationWait {
        let opener = self.opener.clone();
        let timeout = self.timeout;
        let url = request.url.clone();
        let redirect_uri = request.redirect_uri.clone();
        AuthorizationWait {
            inner: CallbackWait::run(move |cancel| {
                let listener = LoopbackCallback::for_redirect_uri(&redirect_uri)?;
                opener.open(&url).map_err(super::CallbackError::OpenBrowser)?;
                listener.wait_until(timeout, cancel)
            }),
        }
    }
}

/// A sign-in in progress ([`BrowserAuthorization::start`]): a `Future` of the handler's
/// answer for async families, or [`AuthorizationWait::wait`] for blocking ones. Dropping it
/// stops listening.
#[derive(Debug)]
pub struct AuthorizationWait {
    inner: CallbackWait,
}

fn answer(outcome: Result<String, super::CallbackError>) -> Result<AuthorizationCallback, HandlerError> {
    outcome.map(AuthorizationCallback::new).map_err(|e| HandlerError::new(e.to_string()))
}

impl AuthorizationWait {
    /// Blocks until the browser comes back (or the wait fails).
    pub fn wait(self) -> Result<AuthorizationCallback, HandlerError> {
        answer(self.inner.wait())
    }
}

impl Future for AuthorizationWait {
    type Output = Result<AuthorizationCallback, HandlerError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.inner).poll(cx).map(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    /// A "browser" that follows the authorization URL's redirect at once: it sends the
    /// callback the authorization server would.
    fn scripted_browser(query: &'static str) -> BrowserOpener {
        BrowserOpener::custom(move |url| {
            assert!(url.starts_with("https://auth.example.com/authorize"));
            let port: u16 = url.split("port=").nth(1).and_then(|p| p.parse().ok()).expect("port");
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                write!(s, "GET /callback?{query} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
                let mut answer = String::new();
                let _ = s.read_to_string(&mut answer);
            });
            Ok(())
        })
    }

    fn free_port() -> u16 {
        LoopbackCallback::bind(0).unwrap().port()
    }

    #[test]
    fn a_scripted_sign_in() {
        let port = free_port();
        let request = AuthorizationRequest::new(
            &format!("https://auth.example.com/authorize?port={port}"),
            &format!("http://127.0.0.1:{port}/callback"),
        );
        let browser = BrowserAuthorization::new(scripted_browser("code=c1&state=s1"));
        let answer = browser.start(&request).wait().unwrap();
        assert_eq!(answer.callback, format!("http://127.0.0.1:{port}/callback?code=c1&state=s1"));
    }

    #[test]
    fn failures_are_handler_errors() {
        let port = free_port();
        let request =
            AuthorizationRequest::new("https://auth.example.com/authorize", "https://app.example/cb");
        let browser = BrowserAuthorization::new(BrowserOpener::custom(|_| Ok(())));
        let err = browser.start(&request).wait().unwrap_err();
        assert!(err.to_string().contains("redirect URI"), "{err}");

        let request = AuthorizationRequest::new(
            "https://auth.example.com/authorize",
            &format!("http://127.0.0.1:{port}/callback"),
        );
        let refusing =
            BrowserAuthorization::new(BrowserOpener::custom(|_| Err(io::Error::other("no display"))));
        let err = refusing.start(&request).wait().unwrap_err();
        assert!(err.to_string().contains("no display"), "{err}");

        let silent =
            BrowserAuthorization::new(BrowserOpener::custom(|_| Ok(()))).timeout(Duration::from_millis(50));
        let err = silent.start(&request).wait().unwrap_err();
        assert!(err.to_string().contains("no authorization callback"), "{err}");
    }

    #[test]
    fn the_system_opener_takes_only_web_urls() {
        for url in ["file:///etc/passwd", "-flag", "javascript:alert(1)", "https://a.example/ x"] {
            let err = BrowserOpener::System.open(url).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{url}");
        }
    }
}
