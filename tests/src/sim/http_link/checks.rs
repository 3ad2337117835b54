//! The invariants on what the client sends over HTTP (see the parent module's list): one
//! request's headers, session and era, and the re-sends a broken response stream allows.

use super::*;

impl HttpLink {
    /// The invariants on one request the client starts; returns a `tools/call`'s nonce.
    pub(super) fn check_request(
        &mut self,
        sim: &mut Sim,
        exchange: ExchangeId,
        req: &HttpRequest,
    ) -> Option<u64> {
        let modern = header(req, "mcp-protocol-version") == Some(MODERN_VERSION);
        let session = header(req, "mcp-session-id");
        if self.legacy_session && modern {
            sim.fail(format!("modern headers on a legacy session: {req:?}"));
        }
        match req.method {
            HttpMethod::Get => {
                if !header(req, "accept").is_some_and(|a| a.contains("text/event-stream")) {
                    sim.fail(format!("a GET that does not accept an event stream: {req:?}"));
                }
                return None;
            }
            HttpMethod::Delete => {
                if session.is_none() {
                    sim.fail("a DELETE without a session");
                }
                return None;
            }
            HttpMethod::Post => {}
        }
        let msg: Value = match serde_json::from_slice(&req.body) {
            Ok(v @ Value::Object(_)) => v,
            _ => sim.fail(format!(
                "a POST body is not one JSON object: {:?}",
                String::from_utf8_lossy(&req.body)
            )),
        };
        sim.on_client_message(&msg);
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("").to_owned();
        self.check_update_resent(sim, exchange, &msg, &method);
        let modern_meta = Sim::has_modern_meta(&msg);
        if method == "initialize" && self.discover_answered {
            sim.fail("initialize sent to a server that answered server/discover");
        }
        if self.legacy_session && modern_meta {
            sim.fail(format!("modern _meta sent to a legacy session: {msg}"));
        }
        if modern_meta && !modern {
            sim.fail(format!("modern _meta without the modern MCP-Protocol-Version header: {msg}"));
        }
        let streamable = self.server.options().kind == HttpKind::LegacyStreamable
            && sim.conn.http_transport() == Some(TransportKind::StreamableHttp);
        let handshaking = sim.conn.server_info().is_none();
        if self.legacy_session
            && streamable
            && session.is_none()
            && method == "tasks/cancel"
            && handshaking
            && tasks::AVOID_CANCEL_WHILE_HANDSHAKING_BUG
        {
            // The known core bug: tasks/cancel goes out while a new session is being set up.
            sim.seen("task_cancel_while_handshaking");
        } else if self.legacy_session && streamable && method != "initialize" && session.is_none() {
            sim.fail(format!("a POST on a legacy session without its Mcp-Session-Id: {msg}"));
        }
        if modern {
            self.check_modern(sim, req, &msg, &method);
        }
        let (modern_server, subscribe) = self.era();
        sim.check_subscription_method(&method, modern_server, subscribe);
        if method == "notifications/initialized" {
            self.legacy_session = true;
        }
        let nonce = Sim::nonce_of(&msg)?;
        let id = msg.get("id").map(Value::to_string).unwrap_or_default();
        // Each input round's retry is a send of its own.
        let posts = self.tool_posts.entry(Sim::send_key(&msg)?).or_default();
        let allowed = match posts.as_slice() {
            [] => true,
            [first] => {
                let x = self.xs.get(&first.exchange);
                let broken = x.is_some_and(|x| x.head_2xx && x.ended && !x.aborted && !x.answered);
                first.modern && modern && first.id != id && broken
            }
            _ => false,
        };
        let as_task = msg.pointer("/params/arguments/simAsTask") == Some(&Value::Bool(true));
        if !allowed && as_task && tasks::AVOID_AS_TASK_RETRY_BUG {
            // The known core bug: a call started as a task is retried like an idempotent request.
            sim.seen("as_task_call_resent");
        } else if !allowed {
            let history = format!("{posts:?}, then {exchange} with id {id} (modern {modern})");
            sim.fail(format!(
                "tools/call of nonce {nonce} sent again without a broken modern stream: {history}"
            ));
        }
        if !posts.is_empty() {
            sim.seen("tools_call_reissued");
        }
        posts.push(ToolPost { exchange, id, modern });
        Some(nonce)
    }

    /// A `tasks/update` that ended without its answer (its stream broke, its exchange failed)
    /// goes out again as it was before anything else is sent for its task: its answers are not
    /// lost.
    pub(super) fn check_update_resent(
        &mut self,
        sim: &mut Sim,
        exchange: ExchangeId,
        msg: &Value,
        method: &str,
    ) {
        if !matches!(method, "tasks/get" | "tasks/update" | "tasks/result") {
            return;
        }
        let Some(task) = msg.pointer("/params/taskId").and_then(Value::as_str) else { return };
        let responses = msg.pointer("/params/inputResponses").cloned().unwrap_or(Value::Null);
        if let Some((x, before)) = self.task_updates.get(task) {
            let lost = self.xs.get(x).is_some_and(|x| x.ended && !x.aborted && !x.answered);
            if lost && (method != "tasks/update" || responses != *before) {
                sim.fail(format!(
                    "the tasks/update of {task} on {x} ended without its answer, and {method} went out \
                     next without its answers: {msg}"
                ));
            }
            if lost {
                sim.seen("task_update_resent");
            }
        }
        if method == "tasks/update" {
            self.task_updates.insert(task.to_owned(), (exchange, responses));
        } else {
            self.task_updates.remove(task);
        }
    }

    /// A modern POST: the body mirrored into the headers, no session, no cancellation message,
    /// no JSON-RPC response.
    pub(super) fn check_modern(&self, sim: &mut Sim, req: &HttpRequest, msg: &Value, method: &str) {
        if method.is_empty() {
            sim.fail(format!("a JSON-RPC response posted on modern HTTP: {msg}"));
        }
        if method == "notifications/cancelled" {
            sim.fail(
                "notifications/cancelled posted on modern HTTP (closing the stream is the cancellation)",
            );
        }
        if header(req, "mcp-session-id").is_some() {
            sim.fail("a session id on a modern request");
        }
        if header(req, "mcp-method") != Some(method) {
            sim.fail(format!("Mcp-Method {:?} does not match {method}", header(req, "mcp-method")));
        }
        if msg.get("id").is_some() {
            let version = msg.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion");
            if version.and_then(Value::as_str) != Some(MODERN_VERSION) {
                sim.fail(format!("a modern request without its protocol version in _meta: {msg}"));
            }
        }
        if method == "tools/call" {
            let name = msg.pointer("/params/name").and_then(Value::as_str);
            if header(req, "mcp-name") != name {
                sim.fail(format!("Mcp-Name {:?} does not match {name:?}", header(req, "mcp-name")));
            }
            if let Some(n) = header(req, "mcp-param-n") {
                let body = msg.pointer("/params/arguments/n").map(Value::to_string);
                if body.as_deref() != Some(n) {
                    sim.fail(format!("Mcp-Param-N {n} does not match the argument {body:?}"));
                }
            }
        }
    }
}
