//! Following HTTP redirects. A `307` or `308` whose `Location` stays on the request's origin
//! is sent again to that URL with the same method, body and headers, at most
//! [`MAX_REDIRECTS`] times in a row and never back to a URL the request already visited; the
//! URL the chain ends at replaces the one it started from for the rest of the connection, so
//! later requests go straight there. Any other redirect ends the exchange with a
//! [`RedirectError`]. Credentials cannot leave the origin: nothing is sent to another one.

use super::session::{Listen, SessionState};
use super::{ExchangeSetup, HttpLink};
use crate::connection::Connection;
use crate::handle::{Epoch, ExchangeId};
use crate::http_url::HttpUrl;
use crate::io::{HttpHead, HttpRequest, Io};
use crate::redirect_error::{RedirectError, RedirectRefusal, MAX_REDIRECTS};

/// Where a `3xx` answer to a request for `url` leads, if it is followed: a `307` or `308` with
/// a `Location` on the same origin (scheme, host, port), not back to `url` or a URL in
/// `visited` (the chain so far), with fewer than [`MAX_REDIRECTS`] followed already.
pub(super) fn judge(
    url: &str,
    status: u16,
    location: Option<&str>,
    visited: &[String],
) -> Result<HttpUrl, RedirectError> {
    let location = location.map(str::trim).filter(|l| !l.is_empty());
    let from = HttpUrl::parse(url).ok();
    let target = location.and_then(|l| from.as_ref()?.join(l));
    let named = target.as_ref().map(HttpUrl::as_str).or(location);
    let refusal = match (&from, &target) {
        _ if !matches!(status, 307 | 308) => RedirectRefusal::Status,
        (_, None) if location.is_none() => RedirectRefusal::MissingLocation,
        (None, _) | (_, None) => RedirectRefusal::InvalidLocation,
        (Some(from), Some(to)) if to.origin() != from.origin() => RedirectRefusal::CrossOrigin,
        (Some(from), Some(to)) if to == from || visited.iter().any(|v| v == to.as_str()) => {
            RedirectRefusal::Loop
        }
        _ if visited.len() >= MAX_REDIRECTS => RedirectRefusal::TooMany,
        (Some(_), Some(to)) => return Ok(to.clone()),
    };
    Err(RedirectError::new(status, named, refusal))
}

/// What a response head means for redirects.
#[derive(Debug)]
pub(super) enum Redirect {
    /// Not a redirect (or not this exchange's to follow): read the response as usual.
    No,
    /// To follow: the exchange is to be replaced by one to this URL.
    Follow(HttpUrl),
    /// Refused: the exchange ends with this error.
    Refused(RedirectError),
}

impl HttpLink {
    /// A redirect chain that started at `from` ended at `to`: later requests go there.
    fn remember_redirect(&mut self, from: &str, to: &str) {
        if self.base_url() == from {
            if let Ok(url) = HttpUrl::parse(to) {
                self.url = Some(url);
            }
        }
        if let SessionState::Open { endpoint, .. } = &mut self.session {
            if endpoint == from {
                *endpoint = to.to_owned();
            }
        }
    }

    /// The first response head of `exchange` arrived (`current`: the connection's epoch):
    /// whether a `3xx` is followed or refused; the end of a chain that was followed is
    /// remembered.
    pub(super) fn judge_redirect(
        &mut self,
        exchange: ExchangeId,
        head: &HttpHead,
        current: Option<Epoch>,
    ) -> Redirect {
        let closing = self.is_close_exchange(exchange);
        let Some(x) = self.exchanges.get(exchange) else { return Redirect::No };
        // A second head, or an exchange of a finished session (it is aborted), is not followed.
        if x.status().is_some() || (current != Some(x.epoch) && !closing) {
            return Redirect::No;
        }
        if !(300..400).contains(&head.status) {
            if let Some(first) = x.visited.first().cloned() {
                let to = x.kept.url().to_owned();
                self.remember_redirect(&first, &to);
            }
            return Redirect::No;
        }
        match judge(x.kept.url(), head.status, head.header("location"), &x.visited) {
            Ok(target) => Redirect::Follow(target),
            Err(refused) => Redirect::Refused(refused),
        }
    }

    /// Replaces `exchange` by the same request to `target`: the new exchange and its request
    /// (`None`: no such exchange).
    fn follow_redirect(
        &mut self,
        exchange: ExchangeId,
        target: &HttpUrl,
        setup: &ExchangeSetup,
    ) -> Option<(ExchangeId, HttpRequest)> {
        let old = self.exchanges.remove(exchange)?;
        let request = old.kept.resend_to(target);
        let (new, request) = self.start_exchange(old.epoch, old.role.clone(), request, setup);
        if let Some(x) = self.exchanges.get_mut(new) {
            x.visited = old.visited;
            x.visited.push(old.kept.url().to_owned());
        }
        // What named the old exchange names the new one.
        if self.session.closing() == Some(exchange) {
            self.session = SessionState::Closing { delete: new };
        }
        if let Some(legacy) = self.session.legacy_mut() {
            if legacy.listen.state == Listen::Open(exchange) {
                legacy.listen.state = Listen::Open(new);
            }
        }
        Some((new, request))
    }
}

impl Connection {
    /// Replaces `exchange` by the same request to `target`.
    pub(super) fn follow_redirect(&mut self, exchange: ExchangeId, target: &HttpUrl) {
        let setup = self.exchange_setup();
        let Some(link) = self.http_mut() else { return };
        let Some((new, request)) = link.follow_redirect(exchange, target, &setup) else { return };
        self.io.push_back(Io::HttpAbort { exchange });
        self.launch_exchange(new, request, setup.trace);
    }
}

#[cfg(test)]
mod tests {
    use super::super::kept_request::KeptRequest;
    use super::*;
    use crate::io::HttpMethod;
    use std::time::Duration;

    fn request() -> HttpRequest {
        HttpRequest {
            method: HttpMethod::Post,
            url: "http://srv.test/mcp/".into(),
            headers: vec![("Authorization".into(), "Bearer t".into()), ("X-Empty".into(), String::new())],
            body: b"{\"jsonrpc\":\"2.0\"}".to_vec(),
            connect_timeout: Duration::from_secs(3),
            destination: crate::Destination::Any,
        }
    }

    #[test]
    fn a_kept_request_is_sent_again_unchanged_but_for_its_url() {
        let kept = KeptRequest::new(&request());
        assert_eq!(kept.url(), "http://srv.test/mcp/");
        let target = HttpUrl::parse("http://srv.test/mcp").expect("URL");
        let again = kept.resend_to(&target);
        assert_eq!(HttpRequest { url: "http://srv.test/mcp/".into(), ..again }, request());
        assert!(!format!("{kept:?}").contains("Bearer"));
    }

    #[test]
    fn only_same_origin_307_and_308_are_followed() {
        let url = "http://srv.test/mcp/";
        let to = |status, location| judge(url, status, location, &[]).map(|u| u.as_str().to_owned());
        assert_eq!(to(307, Some("/mcp")), Ok("http://srv.test/mcp".into()));
        assert_eq!(to(308, Some("HTTP://SRV.test:80/mcp")), Ok("http://srv.test/mcp".into()));
        assert_eq!(to(307, Some("other?x=1")), Ok("http://srv.test/mcp/other?x=1".into()));
        let refusal = |status, location| judge(url, status, location, &[]).expect_err("refused").refusal;
        assert_eq!(refusal(302, Some("/mcp")), RedirectRefusal::Status);
        assert_eq!(refusal(307, Some("https://srv.test/mcp")), RedirectRefusal::CrossOrigin);
        assert_eq!(refusal(307, Some("http://srv.test:8080/mcp")), RedirectRefusal::CrossOrigin);
        assert_eq!(refusal(307, Some("//evil.test/mcp")), RedirectRefusal::CrossOrigin);
        assert_eq!(refusal(307, None), RedirectRefusal::MissingLocation);
        assert_eq!(refusal(307, Some("  ")), RedirectRefusal::MissingLocation);
        assert_eq!(refusal(307, Some("ftp://srv.test/x")), RedirectRefusal::InvalidLocation);
        assert_eq!(refusal(307, Some("/a b")), RedirectRefusal::InvalidLocation);
        assert_eq!(refusal(307, Some(url)), RedirectRefusal::Loop);
    }

    #[test]
    fn the_chain_is_bounded_and_never_loops() {
        let url = "http://srv.test/b";
        let visited = vec!["http://srv.test/a".to_owned()];
        assert_eq!(judge(url, 307, Some("/a"), &visited).expect_err("loop").refusal, RedirectRefusal::Loop);
        let five: Vec<String> = (0..MAX_REDIRECTS).map(|i| format!("http://srv.test/{i}")).collect();
        let err = judge(url, 307, Some("/c"), &five).expect_err("too many");
        assert_eq!(err.refusal, RedirectRefusal::TooMany);
        assert!(judge(url, 307, Some("/c"), &five[1..]).is_ok());
    }

    proptest::proptest! {
        /// The credentials invariant: whatever the `Location`, a redirect that is followed
        /// stays on the request's origin (so nothing the request carries reaches another).
        #[test]
        fn a_followed_redirect_never_leaves_the_origin(
            scheme in proptest::sample::select(vec!["http://", "https://", "HTTP://", "//", "ftp://", ""]),
            host in proptest::sample::select(vec!["srv.test", "SRV.Test", "evil.test", "srv.test.evil", "127.0.0.1", "[::1]", ""]),
            port in proptest::sample::select(vec!["", ":80", ":443", ":8080", ":"]),
            path in "[a-z/.?=&%:@]{0,12}",
            noise in ".{0,8}",
        ) {
            let from = HttpUrl::parse("http://srv.test/mcp/").expect("URL");
            for location in [format!("{scheme}{host}{port}{path}"), path.clone(), format!("{noise}{path}")] {
                if let Ok(to) = judge(from.as_str(), 307, Some(&location), &[]) {
                    proptest::prop_assert_eq!(to.origin(), from.origin(), "{:?}", location);
                }
            }
        }
    }
}
