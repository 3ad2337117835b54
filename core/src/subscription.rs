//! Push from 2026-07-28 servers: what a `subscriptions/listen` stream asks for
//! ([`SubscriptionFilter`]); what happens on it is a [`crate::SubscriptionUpdate`] event.
//!
//! A listen is a long-lived request ([`crate::Request::Listen`]): the server acknowledges it
//! with the part of the filter it agreed to honour, then sends the notifications it asked
//! for, each tagged with the request's id, until one side ends it. Its one
//! [`crate::Event::Response`] comes when it ends: [`crate::Response::ListenEnded`] when the
//! server closed it gracefully, an error otherwise (closed by the host: `Cancelled`).

use serde_json::{Map, Value};

/// The `_meta` key naming the subscription a notification belongs to.
pub const SUBSCRIPTION_ID_META: &str = "io.modelcontextprotocol/subscriptionId";

/// Which notifications a listen stream asks for (the `notifications` field of
/// `subscriptions/listen`, and of its acknowledgment).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these URIs.
    pub resource_subscriptions: Vec<String>,
    /// `notifications/tasks` for these task ids (the tasks extension).
    pub task_ids: Vec<String>,
}

impl SubscriptionFilter {
    /// An empty filter (asks for nothing).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `notifications/tools/list_changed`.
    pub fn tools_list_changed(mut self) -> Self {
        self.tools_list_changed = true;
        self
    }

    /// Adds `notifications/prompts/list_changed`.
    pub fn prompts_list_changed(mut self) -> Self {
        self.prompts_list_changed = true;
        self
    }

    /// Adds `notifications/resources/list_changed`.
    pub fn resources_list_changed(mut self) -> Self {
        self.resources_list_changed = true;
        self
    }

    /// Adds the three `list_changed` notifications.
    pub fn all_lists(self) -> Self {
        self.tools_list_changed().prompts_list_changed().resources_list_changed()
    }

    /// Adds `notifications/resources/updated` for `uri`.
    pub fn resource(mut self, uri: impl Into<String>) -> Self {
        let uri = uri.into();
        if !self.resource_subscriptions.contains(&uri) {
            self.resource_subscriptions.push(uri);
        }
        self
    }

    /// Adds `notifications/tasks` for task `id`.
    pub fn task(mut self, id: impl Into<String>) -> Self {
        let id = id.into();
        if !self.task_ids.contains(&id) {
            self.task_ids.push(id);
        }
        self
    }

    /// True when it asks for nothing.
    pub fn is_empty(&self) -> bool {
        !self.tools_list_changed
            && !self.prompts_list_changed
            && !self.resources_list_changed
            && self.resource_subscriptions.is_empty()
            && self.task_ids.is_empty()
    }

    /// The wire form: only what is asked for is present.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools_list_changed),
            ("promptsListChanged", self.prompts_list_changed),
            ("resourcesListChanged", self.resources_list_changed),
        ] {
            if on {
                m.insert(key.into(), Value::Bool(true));
            }
        }
        for (key, list) in
            [("resourceSubscriptions", &self.resource_subscriptions), ("taskIds", &self.task_ids)]
        {
            if !list.is_empty() {
                m.insert(key.into(), Value::Array(list.iter().cloned().map(Value::String).collect()));
            }
        }
        Value::Object(m)
    }

    /// Reads a filter a server sent, by its values: a flag counts only when it is `true`,
    /// a list keeps only its strings. Anything that is not an object grants nothing.
    pub fn from_value(v: &Value) -> Self {
        let flag = |key: &str| v.get(key) == Some(&Value::Bool(true));
        let strings = |key: &str| -> Vec<String> {
            let mut out: Vec<String> = Vec::new();
            for s in v.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !out.iter().any(|o| o == s) {
                    out.push(s.to_owned());
                }
            }
            out
        };
        Self {
            tools_list_changed: flag("toolsListChanged"),
            prompts_list_changed: flag("promptsListChanged"),
            resources_list_changed: flag("resourcesListChanged"),
            resource_subscriptions: strings("resourceSubscriptions"),
            task_ids: strings("taskIds"),
        }
    }

    /// Whether a notification with `method` and `params` is one this filter asks for: a list
    /// change of a kind it names, `notifications/resources/updated` for one of its URIs (or a
    /// sub-resource of one, which the specification allows: the URI followed by `/`, `?` or
    /// `#`), `notifications/tasks` (or the 2025-11-25 `notifications/tasks/status`) for one of
    /// its task ids. Nothing else is: a stream never carries logs, progress or other methods.
    pub fn asks_for(&self, method: &str, params: &Value) -> bool {
        let string = |key: &str| params.get(key).and_then(Value::as_str);
        match method {
            "notifications/tools/list_changed" => self.tools_list_changed,
            "notifications/prompts/list_changed" => self.prompts_list_changed,
            "notifications/resources/list_changed" => self.resources_list_changed,
            "notifications/resources/updated" => string("uri")
                .is_some_and(|uri| self.resource_subscriptions.iter().any(|s| covers_uri(s, uri))),
            "notifications/tasks" | "notifications/tasks/status" => {
                string("taskId").is_some_and(|id| self.task_ids.iter().any(|t| t == id))
            }
            _ => false,
        }
    }

    /// What of `self` (a request) `granted` leaves out. Only what was asked for counts: a
    /// server granting more than asked does not make anything unsupported.
    pub fn missing_from(&self, granted: &SubscriptionFilter) -> SubscriptionFilter {
        let left_out = |asked: &[String], got: &[String]| -> Vec<String> {
            asked.iter().filter(|a| !got.contains(a)).cloned().collect()
        };
        SubscriptionFilter {
            tools_list_changed: self.tools_list_changed && !granted.tools_list_changed,
            prompts_list_changed: self.prompts_list_changed && !granted.prompts_list_changed,
            resources_list_changed: self.resources_list_changed && !granted.resources_list_changed,
            resource_subscriptions: left_out(&self.resource_subscriptions, &granted.resource_subscriptions),
            task_ids: left_out(&self.task_ids, &granted.task_ids),
        }
    }
}

/// Whether a subscription to `subscribed` covers an update of `uri`: the same URI, or a
/// sub-resource of it (`subscribed` followed by `/`, `?` or `#`, or extended when it ends in
/// `/`).
fn covers_uri(subscribed: &str, uri: &str) -> bool {
    let Some(rest) = uri.strip_prefix(subscribed) else { return false };
    rest.is_empty() || subscribed.ends_with('/') || rest.starts_with(['/', '?', '#'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wire_form_has_only_what_is_asked() {
        assert_eq!(SubscriptionFilter::new().to_value(), json!({}));
        let f = SubscriptionFilter::new()
            .tools_list_changed()
            .resource("file:///a")
            .resource("file:///a")
            .task("t1");
        assert_eq!(
            f.to_value(),
            json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///a"], "taskIds": ["t1"]})
        );
        assert_eq!(SubscriptionFilter::from_value(&f.to_value()), f);
        assert!(SubscriptionFilter::new().is_empty());
        assert!(!f.is_empty());
    }

    #[test]
    fn granted_is_read_by_value() {
        let granted = SubscriptionFilter::from_value(&json!({
            "toolsListChanged": false,
            "promptsListChanged": "yes",
            "resourcesListChanged": true,
            "resourceSubscriptions": ["file:///a", 7, null, "file:///a"],
            "taskIds": "t1"
        }));
        assert!(
            !granted.tools_list_changed && !granted.prompts_list_changed && granted.resources_list_changed
        );
        assert_eq!(granted.resource_subscriptions, ["file:///a"]);
        assert!(granted.task_ids.is_empty());
        assert!(SubscriptionFilter::from_value(&json!(["toolsListChanged"])).is_empty());
    }

    #[test]
    fn asks_for_matches_kinds_uris_and_task_ids() {
        let f = SubscriptionFilter::new().tools_list_changed().resource("file:///dir").task("t1");
        assert!(f.asks_for("notifications/tools/list_changed", &json!({})));
        assert!(!f.asks_for("notifications/prompts/list_changed", &json!({})));
        assert!(!f.asks_for("notifications/resources/list_changed", &json!({})));
        let updated = |uri: &str| f.asks_for("notifications/resources/updated", &json!({ "uri": uri }));
        assert!(updated("file:///dir"));
        assert!(updated("file:///dir/a.txt") && updated("file:///dir?v=2") && updated("file:///dir#x"));
        assert!(!updated("file:///directory") && !updated("file:///other"));
        assert!(!f.asks_for("notifications/resources/updated", &json!({})));
        let slash = SubscriptionFilter::new().resource("file:///dir/");
        assert!(slash.asks_for("notifications/resources/updated", &json!({"uri": "file:///dir/a"})));
        assert!(f.asks_for("notifications/tasks", &json!({"taskId": "t1", "status": "working"})));
        assert!(f.asks_for("notifications/tasks/status", &json!({"taskId": "t1"})));
        assert!(!f.asks_for("notifications/tasks", &json!({"taskId": "t2"})));
        for method in ["notifications/message", "notifications/progress", "notifications/custom"] {
            assert!(!f.asks_for(method, &json!({})), "{method}");
        }
    }

    #[test]
    fn missing_counts_only_what_was_asked() {
        let asked =
            SubscriptionFilter::new().tools_list_changed().resource("file:///a").resource("file:///b");
        let granted =
            SubscriptionFilter::new().prompts_list_changed().resource("file:///b").resource("file:///c");
        let missing = asked.missing_from(&granted);
        assert_eq!(missing, SubscriptionFilter::new().tools_list_changed().resource("file:///a"));
        assert!(asked.missing_from(&asked).is_empty());
    }
}
