//! [`RedirectError`]: an HTTP redirect the connection did not follow, and why.

use std::fmt;

/// Redirects followed in a row for one request, at most.
pub const MAX_REDIRECTS: usize = 5;

/// The longest `Location` an error repeats, in characters.
const MAX_LOCATION_CHARS: usize = 200;

/// An HTTP redirect the connection did not follow ([`crate::RequestError::Redirect`]).
///
/// The connection follows a `307` or `308` whose `Location` stays on the request's origin
/// (scheme, host, port), keeping the method, body and headers, at most [`MAX_REDIRECTS`] in a
/// row and never back to a URL already visited. Anything else ends the request with this
/// error; credentials therefore never leave the origin they were configured for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("HTTP {status} redirect{} not followed: {refusal}", location_part(.location))]
pub struct RedirectError {
    /// The redirect's status (`301`, `302`, `303`, `307`, ...).
    pub status: u16,
    /// Where it pointed (resolved against the request's URL when it could be), credentials
    /// redacted and at most 200 characters; `None` when the response had no `Location`.
    pub location: Option<String>,
    /// Why it was not followed.
    pub refusal: RedirectRefusal,
}

impl RedirectError {
    /// The error for a redirect to `location` (redacted and capped here).
    pub(crate) fn new(status: u16, location: Option<&str>, refusal: RedirectRefusal) -> Self {
        let location =
            location.map(|l| crate::text::sanitize(&crate::redact::redact_url(l), MAX_LOCATION_CHARS));
        Self { status, location, refusal }
    }
}

fn location_part(location: &Option<String>) -> String {
    location.as_ref().map(|l| format!(" to {l}")).unwrap_or_default()
}

/// Why a redirect was not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedirectRefusal {
    /// Not `307` or `308`: the others (`301`, `302`, `303`, `304`, ...) may change the method
    /// or drop the body, so they are not followed.
    Status,
    /// The `Location` is on another origin (scheme, host or port).
    CrossOrigin,
    /// The response had no `Location` header.
    MissingLocation,
    /// The `Location` is not a valid `http://` or `https://` URL reference.
    InvalidLocation,
    /// [`MAX_REDIRECTS`] redirects were already followed for this request.
    TooMany,
    /// The `Location` is a URL this request already visited.
    Loop,
}

impl fmt::Display for RedirectRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Self::TooMany {
            return write!(f, "{MAX_REDIRECTS} redirects in a row were already followed");
        }
        f.write_str(match self {
            Self::Status => {
                "only 307 and 308 redirects are followed (the others may change the method or drop \
                 the body); use the URL it names as the server URL"
            }
            Self::CrossOrigin => {
                "it leaves the server's origin, and credentials are never sent to another one; use \
                 that URL as the server URL if you trust it"
            }
            Self::MissingLocation => "it has no Location header",
            Self::InvalidLocation => "its Location is not a valid http:// or https:// URL",
            Self::TooMany => unreachable!("written above"),
            Self::Loop => "it leads back to a URL already visited (a redirect loop)",
        })
    }
}
