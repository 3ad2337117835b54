//! A copy of an exchange's request, kept so that a redirect can send it again.

use crate::http_url::HttpUrl;
use crate::io::{HttpMethod, HttpRequest};

/// A copy of an exchange's request (before its credentials are added), kept until the
/// exchange ends so that a redirect can send it again.
#[derive(Debug, Clone)]
pub(super) struct KeptRequest(HttpRequest);

impl KeptRequest {
    pub(super) fn new(request: &HttpRequest) -> Self {
        Self(request.clone())
    }

    /// The request's URL.
    pub(super) fn url(&self) -> &str {
        &self.0.url
    }

    /// The request's method.
    pub(super) fn method(&self) -> HttpMethod {
        self.0.method
    }

    /// The request again, sent to `url`.
    pub(super) fn resend_to(&self, url: &HttpUrl) -> HttpRequest {
        HttpRequest { url: url.as_str().to_owned(), ..self.0.clone() }
    }
}
