//! Who a cached answer may be served to: the credential a request goes out with (the SHA-256
//! of its `Authorization` value), and how a cacheable request in flight went out (the
//! credential of its attempts, whether they differed, whether its pages restarted).

/// A SHA-256 digest.
pub(super) type Digest32 = [u8; 32];

/// The credential a request goes out with: the SHA-256 of its `Authorization` value (several
/// values combined as HTTP does, joined by `", "`); `None`: no such header, or stdio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(in crate::connection) struct Credential(Option<Digest32>);

impl Credential {
    /// No `Authorization` header (and every stdio request: stdio has a single credential).
    pub(super) const NONE: Credential = Credential(None);

    /// The credential of a request carrying these `Authorization` values.
    #[cfg(feature = "http")]
    pub(super) fn of_authorization(values: &[&str]) -> Self {
        if values.is_empty() {
            return Self::NONE;
        }
        use sha2::{Digest, Sha256};
        Credential(Some(Sha256::digest(values.join(", ").as_bytes()).into()))
    }
}

/// How a cacheable request went out.
#[derive(Debug, Default)]
pub(in crate::connection) struct OpCache {
    /// The credential of its attempts, once one was sent.
    sent_with: Option<Credential>,
    /// Attempts (pages, retries) went out with different credentials: no private entry can be
    /// bound to the answer.
    mixed: bool,
    /// The page sequence was restarted after the server refused a cursor.
    pub(in crate::connection) restarted: bool,
}

impl OpCache {
    /// An attempt went out with `credential`.
    pub(super) fn note_sent(&mut self, credential: Credential) {
        self.mixed |= self.sent_with.is_some_and(|before| before != credential);
        self.sent_with = Some(credential);
    }

    /// The credential of the last attempt, if one went out.
    #[cfg(feature = "http")]
    pub(super) fn sent_with(&self) -> Option<Credential> {
        self.sent_with
    }

    /// The one credential every attempt went out with.
    pub(super) fn credential(&self) -> Option<Credential> {
        if self.mixed {
            None
        } else {
            self.sent_with
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "http")]
    fn attempts_with_different_credentials_bind_no_private_entry() {
        let (a, b) = (Credential::of_authorization(&["Bearer a"]), Credential::of_authorization(&[]));
        assert_eq!(b, Credential::NONE);
        let mut op = OpCache::default();
        assert_eq!(op.credential(), None);
        op.note_sent(a);
        op.note_sent(a);
        assert_eq!(op.credential(), Some(a));
        op.note_sent(b);
        assert_eq!(op.credential(), None, "mixed");
    }
}
