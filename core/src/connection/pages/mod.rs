//! Paginated lists: following cursors within the list bounds, restarting once after a refused
//! cursor, decoding the items (a bad item is a warning, not a failure), and caching the whole list.

use std::time::Instant;

use serde_json::Value;

mod sequence;

use sequence::PageStep;
pub(super) use sequence::Pages;

use super::Connection;
use crate::error::{RequestError, Warning};
use crate::handle::RequestHandle;
use crate::response::Response;
use crate::types::{ListPage, Prompt, Resource, ResourceTemplate, Tool};

impl Connection {
    /// The server refused a list's cursor (-32602): that page sequence is over. Its cached
    /// copies are dropped and the list starts again from the first page, once. Returns false
    /// when the error ends the request (not a list, no cursor, or restarted already).
    pub(super) fn restart_pages(&mut self, now: Instant, handle: RequestHandle) -> bool {
        let Some(op) = self.in_flight.get_mut(handle) else { return false };
        let Some((_, method, _)) = op.request.list_kind() else { return false };
        if op.pages.cursor.is_none() {
            return false;
        }
        let again = !std::mem::replace(&mut op.cache.restarted, true);
        if again {
            op.pages = Pages::default();
            op.sent = None;
        }
        self.drop_cached_list(method);
        if again {
            self.in_flight.queue_first(handle);
            self.pump(now);
        }
        again
    }

    /// Adds a page's items to a paginated request: ends it on a list bound, or follows the
    /// cursor; the whole list's items once the last page is in.
    pub(super) fn take_page(
        &mut self,
        now: Instant,
        handle: RequestHandle,
        items: Vec<Value>,
        next_cursor: Option<String>,
    ) -> Option<Vec<Value>> {
        let op = self.in_flight.get_mut(handle)?;
        match op.pages.add(items, next_cursor, &self.cfg.limits) {
            PageStep::OutOfBounds(detail) => {
                self.finish(handle, Err(RequestError::Pagination { detail }));
                None
            }
            PageStep::Next => {
                self.in_flight.queue_first(handle);
                self.pump(now);
                None
            }
            PageStep::Done(items) => Some(items),
        }
    }

    /// One page of `tasks/list` arrived: follow the cursor (within the list bounds) or finish.
    pub(super) fn on_tasks_page(&mut self, now: Instant, handle: RequestHandle, value: Value) {
        let page = match ListPage::from_value(value, "tasks") {
            Ok(p) => p,
            Err(e) => {
                self.finish(handle, Err(RequestError::InvalidResponse { detail: e.to_string() }));
                return;
            }
        };
        let Some(items) = self.take_page(now, handle, page.items, page.next_cursor) else { return };
        let mut tasks = Vec::new();
        for item in items {
            match crate::types::Task::from_value(item) {
                Ok(t) => tasks.push(t),
                Err(e) => self.warn(Warning::InvalidListItem { list: "tasks", detail: e.to_string() }),
            }
        }
        self.finish(handle, Ok(Response::Tasks(tasks)));
    }

    /// One page of a list arrived: follow the cursor or finish.
    pub(super) fn on_page(&mut self, now: Instant, handle: RequestHandle, value: Value) {
        let Some(op) = self.in_flight.get_mut(handle) else { return };
        let (kind, method, key) = op.request.list_kind().expect("list request");
        let page = match ListPage::from_value(value, key) {
            Ok(p) => p,
            Err(e) => {
                self.finish(handle, Err(RequestError::InvalidResponse { detail: e.to_string() }));
                return;
            }
        };
        op.sent = None;
        op.pages.note_cache_hints(page.ttl_ms, page.cache_scope.as_deref());
        let Some(items) = self.take_page(now, handle, page.items, page.next_cursor) else { return };
        let Some(op) = self.in_flight.get(handle) else { return };
        let (ttl, scope) = (op.pages.ttl_ms(), op.pages.scope());
        let response = self.decode_list(method, items);
        #[cfg(feature = "http")]
        let response = self.http_exclude_invalid_header_tools(response);
        if method == "tools/list" {
            if let Response::Tools(tools) = &response {
                self.known_tools = Some(tools.clone());
                for warning in self.tool_schemas.compile(tools) {
                    self.warn(warning);
                }
            }
        }
        self.keep_list(now, handle, (kind, method), ttl, scope, &response);
        self.finish(handle, Ok(response));
    }

    pub(super) fn decode_list(&mut self, method: &'static str, items: Vec<Value>) -> Response {
        fn all<T>(
            conn: &mut Connection,
            list: &'static str,
            items: Vec<Value>,
            f: fn(Value) -> Result<T, crate::types::DecodeError>,
        ) -> Vec<T> {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                match f(item) {
                    Ok(t) => out.push(t),
                    Err(e) => conn.warn(Warning::InvalidListItem { list, detail: e.to_string() }),
                }
            }
            out
        }
        match method {
            "tools/list" => Response::Tools(all(self, "tools", items, Tool::from_value)),
            "prompts/list" => Response::Prompts(all(self, "prompts", items, Prompt::from_value)),
            "resources/list" => Response::Resources(all(self, "resources", items, Resource::from_value)),
            _ => Response::ResourceTemplates(all(
                self,
                "resource templates",
                items,
                ResourceTemplate::from_value,
            )),
        }
    }
}
