//! `mcp listen`: prints a server's notifications as they arrive. A 2026-07-28 server gets a
//! `subscriptions/listen` stream; a handshake server sends list changes unasked and resource
//! updates for the URIs subscribed with `resources/subscribe`.

use std::process::ExitCode;
use std::time::Duration;

use mcp_tokio::core::{Era, Event, ListKind, Notification};
use mcp_tokio::{Server, SubscriptionFilter};
use serde_json::{json, Value};
use tokio::sync::mpsc;

use crate::commands::{CliError, Settings};
use crate::output::{emit, note, one_line};

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

/// The method and params a notification arrived as.
pub fn notification_json(n: &Notification) -> Value {
    let (method, params) = match n {
        Notification::ListChanged(ListKind::Tools) => ("notifications/tools/list_changed", json!({})),
        Notification::ListChanged(ListKind::Prompts) => ("notifications/prompts/list_changed", json!({})),
        Notification::ListChanged(ListKind::Resources) => ("notifications/resources/list_changed", json!({})),
        Notification::ResourceUpdated { uri } => ("notifications/resources/updated", json!({"uri": uri})),
        Notification::Log(log) => (
            "notifications/message",
            json!({"level": log.level.as_str(), "logger": log.logger, "data": log.data}),
        ),
        Notification::Other { method, params } => (method.as_str(), params.clone()),
        other => ("unknown", json!(format!("{other:?}"))),
    };
    json!({"method": method, "params": params})
}

fn print(settings: &Settings, n: &Notification) {
    let value = notification_json(n);
    if settings.json {
        emit(&value.to_string());
        return;
    }
    let method = value["method"].as_str().unwrap_or_default();
    let detail = match n {
        Notification::ResourceUpdated { uri } => format!(" {}", one_line(uri, 500)),
        Notification::Log(log) => format!(" {}: {}", log.level, log.text),
        Notification::Other { params, .. } => format!(" {}", one_line(&params.to_string(), 500)),
        _ => String::new(),
    };
    emit(&format!("{}{detail}", one_line(method, 200)));
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
        let sub = server.listen(args.filter()).await?;
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
        return Ok(ExitCode::SUCCESS);
    }
    for uri in &args.resources {
        server.subscribe_resource(uri).await?;
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
