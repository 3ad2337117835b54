//! Handlers for every method except `tools/call`: discovery, the legacy
//! handshake, listings (with pagination), prompts, resources (and the legacy
//! `resources/subscribe`), completion. `subscriptions/listen` lives in `listen`,
//! the `tasks/*` methods in `tasks`.

use serde_json::{json, Value};

use crate::config::ProtocolMode;
use crate::protocol::{
    server_info, Era, Reply, RpcError, LEGACY_VERSIONS, META_SERVER_INFO, MODERN_VERSION, RESOURCE_NOT_FOUND,
    TASKS_EXTENSION,
};
use crate::server::{Request, Server};
use crate::{list_barrier, tasks, tools, trip_prompt};

/// Whether a prompt name (or completion reference name) is `trip`.
fn is_trip(name: Option<&Value>) -> bool {
    name.and_then(Value::as_str) == Some("trip")
}

/// Answers a (non-`tools/call`) request already admitted to its era.
pub fn dispatch(server: &Server, req: &Request) -> Reply {
    if switched_off(server, &req.method) {
        return Err(RpcError::method_not_found(&req.method));
    }
    match (req.era, req.method.as_str()) {
        (Era::Modern, "server/discover") => Ok(discover(server)),
        (Era::Legacy, "initialize") => initialize(server, req),
        (Era::Legacy, "ping" | "logging/setLevel") => Ok(json!({})),
        (_, "tools/list") => list_tools(server, req),
        // --trip-prompt: the `trip` prompt and its context-dependent completions.
        (_, "prompts/list") if server.cfg.trip_prompt => {
            let mut all = prompts();
            all.push(trip_prompt::definition());
            paginate(server, req, "prompts", all)
        }
        (_, "prompts/get") if server.cfg.trip_prompt && is_trip(req.param("name")) => trip_prompt::get(req),
        (_, "completion/complete")
            if server.cfg.trip_prompt && is_trip(req.param("ref").and_then(|r| r.get("name"))) =>
        {
            let argument = req.param("argument");
            let field = |key: &str| argument.and_then(|a| a.get(key)).and_then(Value::as_str).unwrap_or("");
            trip_prompt::complete(req, field("name"), field("value"))
        }
        (_, "prompts/list") => paginate(server, req, "prompts", prompts()),
        (_, "prompts/get") => get_prompt(req),
        (_, "resources/list") => paginate(server, req, "resources", resources()),
        (_, "resources/templates/list") => paginate(server, req, "resourceTemplates", resource_templates()),
        (_, "resources/read") => read_resource(req),
        (Era::Legacy, "resources/subscribe") => subscribe(server, req, true),
        (Era::Legacy, "resources/unsubscribe") => subscribe(server, req, false),
        (_, "completion/complete") => complete(req),
        (_, method) if method.starts_with("tasks/") => tasks::handle(server, req),
        (_, method) => Err(RpcError::method_not_found(method)),
    }
}

fn discover(server: &Server) -> Value {
    let mut result = json!({
        "supportedVersions": [MODERN_VERSION],
        "capabilities": {
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"listChanged": true, "subscribe": true},
            "logging": {},
            "completions": {}
        },
        "instructions": "mcp-test-server (modern)",
        "_meta": {META_SERVER_INFO: server_info()}
    });
    if tasks::available(server, Era::Modern) {
        result["capabilities"]["extensions"] = json!({ TASKS_EXTENSION: {} });
    }
    undeclare_switched_off(server, &mut result["capabilities"]);
    result
}

fn initialize(server: &Server, req: &Request) -> Reply {
    let Some(offered) = req.param("protocolVersion").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("initialize requires a string protocolVersion"));
    };
    let answer = match (&server.cfg.answer_version, server.cfg.protocol) {
        (Some(forced), _) => forced.clone(),
        (None, ProtocolMode::Legacy(version)) => version.to_string(),
        (None, _) if LEGACY_VERSIONS.contains(&offered) => offered.to_string(),
        (None, _) => LEGACY_VERSIONS[0].to_string(),
    };
    server.set_legacy_version(&answer);
    let mut result = json!({
        "protocolVersion": answer,
        "capabilities": {
            "tools": {"listChanged": true},
            "prompts": {"listChanged": true},
            "resources": {"listChanged": true, "subscribe": !server.cfg.no_subscribe},
            "logging": {},
            "completions": {}
        },
        "serverInfo": server_info(),
        "instructions": format!("mcp-test-server (legacy {answer})")
    });
    if tasks::available(server, Era::Legacy) {
        result["capabilities"]["tasks"] = tasks::legacy_capability();
    }
    undeclare_switched_off(server, &mut result["capabilities"]);
    Ok(result)
}

// ---- capability switches (--no-logging, --no-prompts, --no-resources, --no-completions) ----

/// The capabilities the switches turn off, with the method prefix each one covers.
fn switched_off_capabilities(server: &Server) -> impl Iterator<Item = (&'static str, &'static str)> {
    let cfg = &server.cfg;
    [
        (cfg.no_logging, "logging", "logging/"),
        (cfg.no_prompts, "prompts", "prompts/"),
        (cfg.no_resources, "resources", "resources/"),
        (cfg.no_completions, "completions", "completion/"),
    ]
    .into_iter()
    .filter(|(off, _, _)| *off)
    .map(|(_, capability, prefix)| (capability, prefix))
}

/// Whether a switch turned off the capability `method` belongs to.
fn switched_off(server: &Server, method: &str) -> bool {
    switched_off_capabilities(server).any(|(_, prefix)| method.starts_with(prefix))
}

/// Removes the switched-off capabilities from a declaration.
fn undeclare_switched_off(server: &Server, capabilities: &mut Value) {
    if let Some(caps) = capabilities.as_object_mut() {
        for (capability, _) in switched_off_capabilities(server) {
            caps.remove(capability);
        }
    }
}

// ---- listings & pagination -------------------------------------------

/// Cuts `items` into pages of `--page-size` items. Cursors are
/// `page-2`, `page-3`, ...; anything else is rejected with -32602.
fn page_bounds(
    len: usize,
    page_size: usize,
    cursor: Option<&Value>,
) -> Result<(usize, usize, Option<String>), RpcError> {
    let page = match cursor {
        None | Some(Value::Null) => 1,
        Some(cursor) => {
            let page = cursor
                .as_str()
                .and_then(|c| c.strip_prefix("page-"))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n >= 2 && page_size > 0 && (n - 1).saturating_mul(page_size) < len);
            match page {
                Some(page) => page,
                None => {
                    return Err(
                        RpcError::invalid_params("Invalid cursor").with_data(json!({ "cursor": cursor }))
                    )
                }
            }
        }
    };
    if page_size == 0 {
        return Ok((0, len, None));
    }
    let start = (page - 1) * page_size;
    let end = (start + page_size).min(len);
    let next = (end < len).then(|| format!("page-{}", page + 1));
    Ok((start, end, next))
}

/// A page of `items` under `key`, by the request's `cursor` and `--page-size`.
pub fn paginate(server: &Server, req: &Request, key: &str, items: Vec<Value>) -> Reply {
    let (start, end, next) = page_bounds(items.len(), server.cfg.page_size, req.param("cursor"))?;
    let mut result = json!({ key: items[start..end].to_vec() });
    if let Some(next) = next {
        result["nextCursor"] = json!(next);
    }
    Ok(result)
}

fn list_tools(server: &Server, req: &Request) -> Reply {
    if let Some(dir) = &server.cfg.list_barrier {
        let timeout = std::time::Duration::from_millis(server.cfg.list_barrier_timeout_ms);
        list_barrier::wait(dir, server.cfg.list_barrier_count, timeout)?;
    }
    let items = tools::definitions(server, req.era);
    if server.cfg.loop_cursor {
        // Always the first page, always the same cursor.
        let (start, end, _) = page_bounds(items.len(), server.cfg.page_size, None)?;
        return Ok(json!({"tools": items[start..end].to_vec(), "nextCursor": "again"}));
    }
    paginate(server, req, "tools", items)
}

// ---- prompts ----------------------------------------------------------

fn prompts() -> Vec<Value> {
    vec![
        json!({
            "name": "greet",
            "title": "Greeting",
            "description": "A greeting",
            "arguments": [
                {"name": "name", "description": "Who to greet", "required": true}
            ]
        }),
        json!({
            "name": "plain",
            "description": "A prompt without arguments"
        }),
    ]
}

fn user_text(text: String) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

fn get_prompt(req: &Request) -> Reply {
    let Some(name) = req.param("name").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("prompts/get requires a name"));
    };
    let arguments = req.param("arguments");
    match name {
        "greet" => {
            let who = arguments.and_then(|a| a.get("name")).and_then(Value::as_str).ok_or_else(|| {
                RpcError::invalid_params("Missing required argument: name")
                    .with_data(json!({"prompt": "greet", "argument": "name"}))
            })?;
            Ok(json!({
                "description": "A greeting",
                "messages": [user_text(format!("Hello, {who}!"))]
            }))
        }
        "plain" => Ok(json!({
            "description": "A prompt without arguments",
            "messages": [user_text("Just a plain prompt.".to_string())]
        })),
        other => Err(RpcError::invalid_params(format!("Unknown prompt: {other}"))),
    }
}

// ---- resources ----------------------------------------------------------

fn resources() -> Vec<Value> {
    vec![
        json!({
            "uri": "test://text",
            "name": "text",
            "title": "Text resource",
            "mimeType": "text/plain"
        }),
        json!({
            "uri": "test://blob",
            "name": "blob",
            "title": "Binary resource",
            "mimeType": "application/octet-stream"
        }),
    ]
}

fn resource_templates() -> Vec<Value> {
    vec![json!({
        "uriTemplate": "test://item/{id}",
        "name": "item",
        "title": "Item by id",
        "mimeType": "text/plain"
    })]
}

/// The `{id}` of a `test://item/{id}` URI (non-empty, no `/`).
fn item_id(uri: &str) -> Option<&str> {
    uri.strip_prefix("test://item/").filter(|id| !id.is_empty() && !id.contains('/'))
}

/// Whether `resources/read` can serve `uri`: a listed resource or a match of
/// the template.
pub fn serves_uri(uri: &str) -> bool {
    resources().iter().any(|r| r["uri"] == uri) || item_id(uri).is_some()
}

/// Legacy `resources/subscribe` (`add`) and `resources/unsubscribe`.
fn subscribe(server: &Server, req: &Request, add: bool) -> Reply {
    if server.cfg.no_subscribe {
        return Err(RpcError::method_not_found(&req.method));
    }
    let Some(uri) = req.param("uri").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params(format!("{} requires a uri", req.method)));
    };
    if !serves_uri(uri) {
        return Err(RpcError::new(RESOURCE_NOT_FOUND, "Resource not found").with_data(json!({ "uri": uri })));
    }
    server.set_legacy_subscription(uri, add);
    Ok(json!({}))
}

fn read_resource(req: &Request) -> Reply {
    let Some(uri) = req.param("uri").and_then(Value::as_str) else {
        return Err(RpcError::invalid_params("resources/read requires a uri"));
    };
    let text = |text: String| Ok(json!({"contents": [{"uri": uri, "mimeType": "text/plain", "text": text}]}));
    match uri {
        "test://text" => text("hello resource".to_string()),
        // base64 of the bytes [0, 1, 2, 3, 255]
        "test://blob" => Ok(json!({"contents": [{
            "uri": uri,
            "mimeType": "application/octet-stream",
            "blob": "AAECA/8="
        }]})),
        _ => match item_id(uri) {
            Some(id) => text(format!("item {id}")),
            None => {
                let code = match req.era {
                    Era::Modern => crate::protocol::INVALID_PARAMS,
                    Era::Legacy => RESOURCE_NOT_FOUND,
                };
                Err(RpcError::new(code, "Resource not found").with_data(json!({ "uri": uri })))
            }
        },
    }
}

// ---- completion -----------------------------------------------------------

fn complete(req: &Request) -> Reply {
    let (Some(reference), Some(argument)) = (req.param("ref"), req.param("argument")) else {
        return Err(RpcError::invalid_params("completion/complete requires ref and argument"));
    };
    let arg_name = argument.get("name").and_then(Value::as_str).unwrap_or("");
    let prefix = argument.get("value").and_then(Value::as_str).unwrap_or("");
    let candidates: &[&str] = match (
        reference.get("type").and_then(Value::as_str),
        reference.get("name").and_then(Value::as_str),
        reference.get("uri").and_then(Value::as_str),
    ) {
        (Some("ref/prompt"), Some("greet"), _) if arg_name == "name" => &["Ada", "Alan", "Grace"],
        (Some("ref/resource"), _, Some("test://item/{id}")) if arg_name == "id" => &["1", "7", "42"],
        (Some("ref/prompt"), Some("greet" | "plain"), _) => &[],
        (Some("ref/resource"), _, Some(_)) => &[],
        (Some("ref/prompt"), Some(other), _) => {
            return Err(RpcError::invalid_params(format!("Unknown prompt: {other}")))
        }
        _ => return Err(RpcError::invalid_params("Invalid completion ref")),
    };
    let values: Vec<&str> = candidates.iter().copied().filter(|v| v.starts_with(prefix)).collect();
    Ok(json!({"completion": {"values": values, "total": values.len(), "hasMore": false}}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_uris() {
        for uri in ["test://text", "test://blob", "test://item/1", "test://item/abc"] {
            assert!(serves_uri(uri), "{uri}");
        }
        for uri in ["test://nope", "test://item/", "test://item/a/b", "test://text/", ""] {
            assert!(!serves_uri(uri), "{uri}");
        }
    }

    #[test]
    fn pages() {
        assert_eq!(page_bounds(5, 0, None).unwrap(), (0, 5, None));
        assert_eq!(page_bounds(5, 2, None).unwrap(), (0, 2, Some("page-2".into())));
        assert_eq!(page_bounds(5, 2, Some(&json!("page-2"))).unwrap(), (2, 4, Some("page-3".into())));
        assert_eq!(page_bounds(5, 2, Some(&json!("page-3"))).unwrap(), (4, 5, None));
        assert!(page_bounds(5, 2, Some(&json!("page-4"))).is_err());
        assert!(page_bounds(5, 2, Some(&json!("page-1"))).is_err());
        assert!(page_bounds(5, 0, Some(&json!("page-2"))).is_err());
        assert!(page_bounds(5, 2, Some(&json!(7))).is_err());
    }

    #[test]
    fn capability_switches_undeclare_and_refuse() {
        use crate::config::Config;
        use crate::test_harness::Harness;
        let cfg = Config { no_logging: true, no_prompts: true, no_completions: true, ..Config::default() };
        let h = Harness::new(cfg);
        h.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}));
        let caps = h.take()[0]["result"]["capabilities"].clone();
        for gone in ["logging", "prompts", "completions"] {
            assert!(caps.get(gone).is_none(), "{gone}: {caps}");
        }
        assert!(caps["tools"].is_object() && caps["resources"].is_object(), "{caps}");
        for (id, method) in [(1, "logging/setLevel"), (2, "prompts/list"), (3, "completion/complete")] {
            h.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}}));
            assert_eq!(h.take()[0]["error"]["code"], -32601, "{method}");
        }
        h.send(json!({"jsonrpc": "2.0", "id": 4, "method": "resources/list", "params": {}}));
        assert!(h.take()[0]["result"]["resources"].is_array());
    }
}
