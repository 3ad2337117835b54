//! The HTTP requests of each transport and era: URL, headers, body.

use std::time::Duration;

use serde_json::Value;

use super::authorization::AuthorizationHeader;
use super::HttpLink;
use crate::config::MODERN_VERSION;
use crate::connection::{Connection, Outgoing};
use crate::destination::Destination;
use crate::headers::{self, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION};
use crate::io::{HttpMethod, HttpRequest};
use crate::transport::TransportKind;
use crate::types::Tool;

/// Headers the protocol sets; a configured header of the same name is not sent.
const PROTOCOL_HEADERS: [&str; 8] = [
    "content-type",
    "accept",
    "accept-encoding",
    "mcp-protocol-version",
    "mcp-session-id",
    "mcp-method",
    "mcp-name",
    "last-event-id",
];

impl HttpLink {
    /// The POST carrying one message, encoded as `body`. `tools`: the known tools (for
    /// `Mcp-Param-*` headers).
    pub(super) fn post_request(
        &self,
        out: &Outgoing,
        body: Vec<u8>,
        modern: bool,
        connect_timeout: Duration,
        tools: Option<&[Tool]>,
    ) -> HttpRequest {
        let kind = self.kind();
        let mut headers = self.user_headers(modern);
        headers.push(("Content-Type".into(), "application/json".into()));
        let accept = match kind {
            TransportKind::PlainHttp => "application/json",
            _ => "application/json, text/event-stream",
        };
        headers.push(("Accept".into(), accept.into()));
        if kind != TransportKind::Sse {
            headers.push(("Accept-Encoding".into(), "gzip".into()));
        }
        if modern {
            headers.push((MCP_PROTOCOL_VERSION.into(), MODERN_VERSION.into()));
            let (method, params) = match out {
                Outgoing::Request { method, params, .. } => (Some(method.as_ref()), params.as_ref()),
                Outgoing::Notification { method, params } => (Some(*method), params.as_ref()),
                // Encoded requests are legacy-era only: never here.
                Outgoing::Encoded { method, .. } => (Some(*method), None),
                Outgoing::Response(_) => (None, None),
            };
            if let Some(method) = method {
                headers.push((MCP_METHOD.into(), headers::encode_header_value(method)));
                let params = params.unwrap_or(&Value::Null);
                if let Some(name) = headers::mcp_name(method, params) {
                    headers.push((MCP_NAME.into(), name));
                }
                if method == "tools/call" {
                    headers.extend(param_headers_for(tools, params));
                }
            }
        } else {
            self.legacy_headers(&mut headers);
        }
        HttpRequest {
            method: HttpMethod::Post,
            url: self.session.endpoint().unwrap_or_else(|| self.base_url()).to_owned(),
            headers,
            body,
            connect_timeout,
            destination: Destination::Any,
        }
    }

    /// A GET opening an event stream (HTTP+SSE, the legacy listen stream, or a resumption).
    pub(super) fn stream_request(
        &self,
        last_event_id: Option<&str>,
        connect_timeout: Duration,
    ) -> HttpRequest {
        let mut headers = self.user_headers(false);
        headers.push(("Accept".into(), "text/event-stream".into()));
        self.legacy_headers(&mut headers);
        if let Some(id) = last_event_id {
            headers.push(("Last-Event-ID".into(), id.to_owned()));
        }
        HttpRequest {
            method: HttpMethod::Get,
            url: self.base_url().to_owned(),
            headers,
            body: Vec::new(),
            connect_timeout,
            destination: Destination::Any,
        }
    }

    /// The DELETE ending the legacy session, if the server assigned it an id.
    pub(super) fn delete_request(&self, connect_timeout: Duration) -> Option<HttpRequest> {
        let legacy = self.session.legacy()?;
        let session = legacy.id.as_ref()?;
        let mut headers = self.user_headers(false);
        if let Some(v) = &legacy.version {
            headers.push((MCP_PROTOCOL_VERSION.into(), v.clone()));
        }
        headers.push(("Mcp-Session-Id".into(), session.clone()));
        Some(HttpRequest {
            method: HttpMethod::Delete,
            url: self.base_url().to_owned(),
            headers,
            body: Vec::new(),
            connect_timeout,
            destination: Destination::Any,
        })
    }

    /// Configured headers, minus those the protocol sets (and, in a modern session, minus the
    /// `Mcp-Param-*` namespace), with the host's `Authorization` if it set one.
    fn user_headers(&self, modern: bool) -> Vec<(String, String)> {
        let mut out = headers::filter_user_headers(&self.cfg.headers, modern);
        out.retain(|(name, _)| !PROTOCOL_HEADERS.iter().any(|p| name.eq_ignore_ascii_case(p)));
        self.authorization.apply(&mut out);
        out
    }

    /// The `Authorization` values requests go out with (none, usually one).
    pub(in crate::connection) fn authorization_values(&self) -> Vec<&str> {
        self.authorization.values(&self.cfg.headers)
    }

    /// `MCP-Protocol-Version` (once negotiated) and `Mcp-Session-Id` (once assigned).
    fn legacy_headers(&self, headers: &mut Vec<(String, String)>) {
        let Some(legacy) = self.session.legacy() else { return };
        if let Some(v) = &legacy.version {
            headers.push((MCP_PROTOCOL_VERSION.into(), v.clone()));
        }
        if let Some(s) = &legacy.id {
            headers.push(("Mcp-Session-Id".into(), s.clone()));
        }
    }
}

impl Connection {
    /// Replaces the `Authorization` header of later requests (`None`: send none). No-op on stdio.
    pub(in crate::connection) fn http_set_authorization(&mut self, value: Option<String>) {
        if let Some(link) = self.http_mut() {
            link.authorization = AuthorizationHeader::from_host(value);
        }
    }
}

/// `Mcp-Param-*` headers of a modern `tools/call`, from the tool's `x-mcp-header` annotations
/// (when the tool is known from `tools/list`).
fn param_headers_for(tools: Option<&[Tool]>, params: &Value) -> Vec<(String, String)> {
    let Some(name) = params.get("name").and_then(Value::as_str) else { return Vec::new() };
    let Some(tool) = tools.and_then(|ts| ts.iter().find(|t| t.name == name)) else {
        return Vec::new();
    };
    match headers::param_headers(&tool.input_schema) {
        Ok(annotations) => {
            let arguments = params.get("arguments").unwrap_or(&Value::Null);
            headers::param_header_values(&annotations, arguments)
        }
        Err(_) => Vec::new(),
    }
}
