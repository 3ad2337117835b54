//! The pages of one paginated list received so far: the items, the cursor to follow, the list
//! bounds (items, pages, a repeated cursor), and the cache hints of every page.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::config::Limits;
use crate::connection::cache::CacheScope;

/// The pages of a paginated list received so far.
#[derive(Debug, Default)]
pub(in crate::connection) struct Pages {
    items: Vec<Value>,
    /// The cursor of the next page to ask for.
    pub(in crate::connection) cursor: Option<String>,
    seen: BTreeSet<String>,
    count: usize,
    ttl_ms: Option<u64>,
    /// Some page had a `cacheScope` other than `"public"`.
    private: bool,
}

/// What a page means for its list.
#[derive(Debug, PartialEq)]
pub(super) enum PageStep {
    /// Ask for the next page (its cursor is kept).
    Next,
    /// The last page is in: the whole list's items.
    Done(Vec<Value>),
    /// The list breaks its bounds: why.
    OutOfBounds(String),
}

impl Pages {
    /// Adds a page's items, and its cursor to the next page if any.
    pub(super) fn add(
        &mut self,
        items: Vec<Value>,
        next_cursor: Option<String>,
        limits: &Limits,
    ) -> PageStep {
        self.count += 1;
        self.items.extend(items);
        if let Some(detail) = self.out_of_bounds(next_cursor.as_deref(), limits) {
            return PageStep::OutOfBounds(detail);
        }
        match next_cursor {
            Some(cursor) => {
                self.cursor = Some(cursor);
                PageStep::Next
            }
            None => PageStep::Done(std::mem::take(&mut self.items)),
        }
    }

    /// A page's cache hints: the list lives as long as its shortest-lived page, and is private
    /// if any page is.
    pub(super) fn note_cache_hints(&mut self, ttl_ms: Option<u64>, cache_scope: Option<&str>) {
        if let Some(ttl) = ttl_ms {
            self.ttl_ms = Some(self.ttl_ms.map_or(ttl, |t| t.min(ttl)));
        }
        self.private |= cache_scope != Some("public");
    }

    /// How long the whole list may be cached, if its pages said.
    pub(super) fn ttl_ms(&self) -> Option<u64> {
        self.ttl_ms
    }

    /// Who the whole list may be cached for.
    pub(super) fn scope(&self) -> CacheScope {
        if self.private {
            CacheScope::Private
        } else {
            CacheScope::Public
        }
    }

    /// Why the pages received so far, and the next cursor, break the list bounds (items,
    /// pages, a repeated cursor), if they do.
    fn out_of_bounds(&mut self, next_cursor: Option<&str>, limits: &Limits) -> Option<String> {
        if self.items.len() > limits.max_list_items {
            return Some(format!("more than {} items", limits.max_list_items));
        }
        match next_cursor {
            Some(c) if !self.seen.insert(c.to_owned()) => Some(format!("the server repeated cursor {c:?}")),
            Some(_) if self.count >= limits.max_list_pages => {
                Some(format!("more than {} pages", limits.max_list_pages))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn limits(items: usize, pages: usize) -> Limits {
        Limits { max_list_items: items, max_list_pages: pages, ..Limits::default() }
    }

    #[test]
    fn pages_gather_until_the_last_and_keep_the_shortest_ttl() {
        let mut pages = Pages::default();
        let limits = limits(10, 10);
        assert_eq!(pages.add(vec![json!(1)], Some("c1".into()), &limits), PageStep::Next);
        assert_eq!(pages.cursor.as_deref(), Some("c1"));
        pages.note_cache_hints(Some(500), Some("public"));
        pages.note_cache_hints(Some(200), Some("public"));
        assert_eq!((pages.ttl_ms(), pages.scope()), (Some(200), CacheScope::Public));
        pages.note_cache_hints(None, None);
        assert_eq!(pages.scope(), CacheScope::Private);
        assert_eq!(pages.add(vec![json!(2)], None, &limits), PageStep::Done(vec![json!(1), json!(2)]));
    }

    #[test]
    fn a_repeated_cursor_and_too_many_items_or_pages_break_the_bounds() {
        let mut pages = Pages::default();
        let limits = limits(3, 2);
        assert_eq!(pages.add(vec![], Some("a".into()), &limits), PageStep::Next);
        assert!(
            matches!(pages.add(vec![], Some("a".into()), &limits), PageStep::OutOfBounds(d) if d.contains("repeated"))
        );
        let mut pages = Pages::default();
        pages.add(vec![], Some("a".into()), &limits);
        assert!(
            matches!(pages.add(vec![], Some("b".into()), &limits), PageStep::OutOfBounds(d) if d.contains("pages"))
        );
        let mut pages = Pages::default();
        assert!(
            matches!(pages.add(vec![json!(1); 4], None, &limits), PageStep::OutOfBounds(d) if d.contains("items"))
        );
    }
}
