//! `mcp listen`: prints a server's notifications as they arrive. A 2026-07-28 server gets a
//! `subscriptions/listen` stream; a handshake server sends list changes unasked and resource
//! updates for the URIs subscribed with `resources/subscribe`.

use std::process::ExitCode;
use std::time::Duration;

use mcpwire_core::text::sanitize;
use mcpwire_tokio::{ClientError, Era, Event, ListKind, Notification, ServerInfo};
use mcpwire_tokio::{Server, SubscriptionFilter};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::commands::{CliError, Settings};
use crate::output::{capability_list, emit, note, one_line};

/// What `mcp listen` asks for and when it stops.
#[derive(Debug, Clone, Default)]
pub struct ListenArgs {
    /// Resource URIs to watch.
    pub resources: Vec<String>,
    /// Only these list changes (`None`: all three).
    pub lists: Option<Vec<ListKind>>,
    /// Stop after this many notifications.
    pub count: Option<u64>,
    /// Stop after this long.
    pub duration: Option<Duration>,
}

impl ListenArgs {
    fn filter(&self) -> SubscriptionFilter {
        let mut f = SubscriptionFilter::new();
        for kind in self
            .lists
            .clone()
            .unwrap_or_else(|| vec![ListKind::Tools, ListKind::Prompts, ListKind::Resources])
        {
            f = match kind {
                ListKind::Tools => f.tools_list_changed(),
                ListKind::Prompts => f.prompts_list_changed(),
                ListKind::Resources => f.resources_list_changed(),
            };
        }
        self.resources.iter().fold(f, |f, uri| f.resource(uri))
    }
}

/// Characters kept of a method name the server chose, as printed (text and `--json`).
const METHOD_CHARS: usize = 200;
/// Characters kept of a resource URI the server chose, as printed (text and `--json`).
const URI_CHARS: usize = 500;

/// The method and params a notification arrived as. The strings the server chose (method
/// names, URIs) are made safe and capped the way the core caps log text
/// ([`sanitize`]: control characters escaped, cut marked `…[truncated]`), in text and JSON
/// alike.
pub fn notification_json(n: &Notification) -> Value {
    let (method, params) = match n {
        Notification::ListChanged(ListKind::Tools) => ("notifications/tools/list_changed".into(), json!({})),
        Notification::ListChanged(ListKind::Prompts) => {
            ("notifications/prompts/list_changed".into(), json!({}))
        }
        Notification::ListChanged(ListKind::Resources) => {
            ("notifications/resources/list_changed".into(), json!({}))
        }
        Notification::ResourceUpdated { uri } => {
            ("notifications/resources/updated".into(), json!({"uri": sanitize(uri, URI_CHARS)}))
        }
        Notification::Log(log) => (
            "notifications/message".into(),
            json!({"level": log.level.as_str(), "logger": log.logger, "data": log.data}),
        ),
        Notification::Other { method, params } => (sanitize(method, METHOD_CHARS), params.clone()),
        other => ("unknown".into(), json!(format!("{other:?}"))),
    };
    json!({"method": method, "params": params})
}

/// One text line for a notification (its method, then what it is about).
pub fn notification_text(n: &Notification) -> String {
    let value = notification_json(n);
    let method = value["method"].as_str().unwrap_or_default();
    let detail = match n {
        Notification::ResourceUpdated { .. } => {
            format!(" {}", value["params"]["uri"].as_str().unwrap_or_default())
        }
        Notification::Log(log) => format!(" {}: {}", log.level, log.text),
        Notification::Other { params, .. } => format!(" {}", one_line(&params.to_string(), 500)),
        _ => String::new(),
    };
    format!("{method}{detail}")
}

fn print(settings: &Settings, n: &Notification) {
    if settings.json {
        emit(&notification_json(n).to_string());
    } else {
        emit(&notification_text(n));
    }
}

/// The hook `mcp listen` installs: notifications outside a listen stream (handshake servers)
/// go to `tx`; a full channel drops them (counted by the host's own bound, not here).
pub fn forward_notifications(
    tx: mpsc::Sender<Notification>,
) -> impl Fn(&str, &Event) + Send + Sync + 'static {
    move |_server: &str, event: &Event| {
        if let Event::Notification(
            n @ (Notification::ListChanged(_) | Notification::ResourceUpdated { .. }),
        ) = event
        {
            let _ = tx.try_send(n.clone());
        }
    }
}

/// A listen request the server does not offer, as an error naming the method and what the
/// server declared instead of a bare -32601 (other errors pass through).
fn explain(e: ClientError, method: &str, info: &ServerInfo) -> CliError {
    if !crate::commands::not_offered(&e) {
        return e.into();
    }
    CliError::new(format!("{method}: the server does not offer it ({e}); it declared: {}", declared(info)))
}

/// The server's capabilities as a list, or `no capabilities`.
fn declared(info: &ServerInfo) -> String {
    let caps = capability_list(&info.capabilities);
    if caps.is_empty() {
        "no capabilities".into()
    } else {
        caps.join(", ")
    }
}

/// Handshake servers: whether the server says it sends a change of any list asked for.
fn announces_list_changes(info: &ServerInfo, lists: &[ListKind]) -> bool {
    let caps = &info.capabilities;
    lists.iter().any(|kind| match kind {
        ListKind::Tools => caps.tools().is_some_and(|t| t.list_changed),
        ListKind::Prompts => caps.prompts().is_some_and(|p| p.list_changed),
        ListKind::Resources => caps.resources().is_some_and(|r| r.list_changed),
    })
}

/// Listens on `server` and prints what arrives until `args` says to stop or the stream ends.
pub async fn run(
    settings: &Settings,
    server: Server,
    args: ListenArgs,
    mut legacy: mpsc::Receiver<Notification>,
) -> Result<ExitCode, CliError> {
    let info = server.connect().await?;
    let stop = async {
        match args.duration {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(stop);
    let mut seen = 0u64;
    let done = |seen: u64| args.count.is_some_and(|c| seen >= c);
    if info.era == Era::Modern {
        let sub =
            server.listen(args.filter()).await.map_err(|e| explain(e, "subscriptions/listen", &info))?;
        let granted = sub.acknowledged().unwrap_or_default();
        note(&format!(
            "listening ({}): granted {}; not granted {}",
            info.protocol_version,
            granted.to_value(),
            sub.unsupported().to_value()
        ));
        while !done(seen) {
            tokio::select! {
                n = sub.next() => match n {
                    Some(n) => { print(settings, &n); seen += 1; }
                    None => {
                        return match sub.ended() {
                            Some(Err(e)) => Err(e.into()),
                            _ => { note("the server ended the subscription"); Ok(ExitCode::SUCCESS) }
                        };
                    }
                },
                () = &mut stop => break,
            }
        }
        if sub.dropped() > 0 {
            note(&format!("{} notifications were dropped (read too slowly)", sub.dropped()));
        }
        if sub.unrequested() > 0 {
            note(&format!("{} notifications the stream did not ask for were dropped", sub.unrequested()));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let lists =
        args.lists.clone().unwrap_or_else(|| vec![ListKind::Tools, ListKind::Prompts, ListKind::Resources]);
    if args.resources.is_empty() && !announces_list_changes(&info, &lists) {
        return Err(CliError::new(format!(
            "nothing to listen to: the server ({}) sends no list_changed notifications for the lists asked \
             for, and no --resource URI was given; it declared: {}",
            info.protocol_version,
            declared(&info)
        )));
    }
    for uri in &args.resources {
        server.subscribe_resource(uri).await.map_err(|e| explain(e, "resources/subscribe", &info))?;
    }
    note(&format!(
        "listening ({}): resources/subscribe {}; list changes as the server sends them",
        info.protocol_version,
        json!(args.resources)
    ));
    while !done(seen) {
        tokio::select! {
            n = legacy.recv() => match n {
                Some(n) => { print(settings, &n); seen += 1; }
                None => break,
            },
            () = &mut stop => break,
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_server_strings_are_capped_in_text_and_json() {
        let uri = format!("file:///a/{}\u{1b}[31m", "x".repeat(2_000));
        let updated = Notification::ResourceUpdated { uri };
        let json_uri = notification_json(&updated)["params"]["uri"].as_str().unwrap().to_owned();
        assert_eq!(json_uri, sanitize(&format!("file:///a/{}", "x".repeat(2_000)), URI_CHARS));
        assert!(json_uri.ends_with("…[truncated]") && json_uri.chars().count() < URI_CHARS + 20);
        assert_eq!(notification_text(&updated), format!("notifications/resources/updated {json_uri}"));

        let method = format!("notifications/{}\n", "m".repeat(1_000));
        let other = Notification::Other { method, params: json!({"k": 1}) };
        let json_method = notification_json(&other)["method"].as_str().unwrap().to_owned();
        assert!(json_method.starts_with("notifications/mmm") && json_method.ends_with("…[truncated]"));
        assert!(json_method.chars().count() < METHOD_CHARS + 20);
        assert_eq!(notification_text(&other), format!("{json_method} {{\"k\":1}}"));

        // Short, clean strings are printed as they are.
        let short = Notification::ResourceUpdated { uri: "file:///a".into() };
        assert_eq!(
            notification_json(&short),
            json!({"method": "notifications/resources/updated", "params": {"uri": "file:///a"}})
        );
        let escaped = Notification::Other { method: "a\u{7}b".into(), params: json!({}) };
        assert_eq!(notification_json(&escaped)["method"], "a\\u{7}b");
    }
}
