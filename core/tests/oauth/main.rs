//! The OAuth flow against a scripted fake authorization server (`harness.rs`): complete
//! exchanges, driven the way a host drives them, with fake time and fixed entropy.

mod callback;
mod discovery;
mod harness;
mod mutations;
mod registration;
mod scopes;
mod tokens;
