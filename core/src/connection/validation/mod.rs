//! Tool output validation: the connection makes the same calls with or without the `schema`
//! feature; `checked.rs` compiles and checks schemas, `unchecked.rs` (no `schema`) holds the
//! same names and checks nothing.

#[cfg(feature = "schema")]
mod checked;
#[cfg(not(feature = "schema"))]
mod unchecked;

#[cfg(feature = "schema")]
pub(super) use checked::{ToolSchemaCache, ToolSchemas};
#[cfg(not(feature = "schema"))]
pub(super) use unchecked::{ToolSchemaCache, ToolSchemas};
