//! Exchanges a caller performs itself: [`CallerScope`] and [`offer_to_caller`].
//!
//! A caller waits for its outcome anyway, so the HTTP exchange that carries its request can
//! run in the caller's own thread (blocking) or future (async): no hand-off to a worker or
//! task and back, which on loopback costs more than the exchange. While a caller issues its
//! request through the [`Engine`](crate::Engine) it holds a scope on its thread; the IO side
//! offers the first HTTP `POST` it starts in that scope, and the caller takes it once the
//! engine is unlocked.
//!
//! What makes this safe: a caller is never stuck on such an exchange after its outcome. The
//! exchange ends with the response, and when the request ends another way (timeout, cancel,
//! a response on another stream), the core aborts the exchange. A family whose caller may
//! stop early (a dropped future) hands the rest of the exchange to the runtime; everything
//! not offered (event streams, other callers' requests, answers to server requests) runs as
//! before.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::marker::PhantomData;

/// What the current thread's scope holds.
enum Slot {
    /// In a scope that takes one item of this type; nothing offered yet.
    Open(TypeId),
    /// In a scope; the item offered.
    Taken(Box<dyn Any>),
}

thread_local! {
    static SCOPE: RefCell<Option<Slot>> = const { RefCell::new(None) };
}

/// Offers `item` to the caller whose scope is open on this thread: `None` when it took it,
/// `Some(item)` back when there is no scope, the scope holds an item already, or it takes
/// another type.
pub fn offer_to_caller<T: 'static>(item: T) -> Option<T> {
    SCOPE.with(|scope| {
        let mut scope = scope.borrow_mut();
        match &*scope {
            Some(Slot::Open(wanted)) if *wanted == TypeId::of::<T>() => {
                *scope = Some(Slot::Taken(Box::new(item)));
                None
            }
            _ => Some(item),
        }
    })
}

/// The span in which a caller issues its request (see the module docs). Not `Send`: it
/// belongs to the thread that entered it. An item left in it when it is dropped (the request
/// path unwound) goes to the `unclaimed` function given to [`CallerScope::enter`].
pub struct CallerScope<T: 'static> {
    /// The scope this one replaced (a request issued from inside another's).
    outer: Option<Slot>,
    /// Already left (by [`CallerScope::take`]).
    left: bool,
    unclaimed: fn(T),
    _thread: PhantomData<*const ()>,
}

impl<T: 'static> CallerScope<T> {
    /// Enters a scope on the current thread that takes one `T`.
    pub fn enter(unclaimed: fn(T)) -> Self {
        let outer = SCOPE.with(|scope| scope.borrow_mut().replace(Slot::Open(TypeId::of::<T>())));
        Self { outer, left: false, unclaimed, _thread: PhantomData }
    }

    /// Leaves the scope: the item offered in it, if any.
    pub fn take(mut self) -> Option<T> {
        self.leave()
    }

    fn leave(&mut self) -> Option<T> {
        if std::mem::replace(&mut self.left, true) {
            return None;
        }
        let mine = SCOPE.with(|scope| std::mem::replace(&mut *scope.borrow_mut(), self.outer.take()));
        match mine {
            Some(Slot::Taken(item)) => item.downcast::<T>().ok().map(|item| *item),
            _ => None,
        }
    }
}

impl<T: 'static> Drop for CallerScope<T> {
    fn drop(&mut self) {
        if let Some(item) = self.leave() {
            (self.unclaimed)(item);
        }
    }
}

impl<T: 'static> std::fmt::Debug for CallerScope<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerScope")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_takes_the_first_item_of_its_type_only() {
        assert_eq!(offer_to_caller(1u8), Some(1), "no scope: given back");
        let scope = CallerScope::<u8>::enter(|_| panic!("claimed"));
        assert_eq!(offer_to_caller("other type"), Some("other type"));
        assert_eq!(offer_to_caller(2u8), None);
        assert_eq!(offer_to_caller(3u8), Some(3), "one item per scope");
        assert_eq!(scope.take(), Some(2));
        assert_eq!(offer_to_caller(4u8), Some(4), "the scope is closed");
    }

    #[test]
    fn nested_scopes_restore_the_outer_one() {
        let outer = CallerScope::<u8>::enter(|_| panic!("claimed"));
        let inner = CallerScope::<u8>::enter(|_| panic!("claimed"));
        assert_eq!(offer_to_caller(1u8), None);
        assert_eq!(inner.take(), Some(1));
        assert_eq!(offer_to_caller(2u8), None, "the outer scope is open again");
        assert_eq!(outer.take(), Some(2));
    }

    #[test]
    fn an_item_left_in_a_dropped_scope_goes_to_its_unclaimed_function() {
        thread_local!(static UNCLAIMED: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) });
        let scope = CallerScope::<u8>::enter(|item| UNCLAIMED.with(|u| u.borrow_mut().push(item)));
        assert_eq!(offer_to_caller(7u8), None);
        drop(scope);
        assert_eq!(UNCLAIMED.with(|u| u.borrow().clone()), vec![7]);
    }
}
