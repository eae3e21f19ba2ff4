//! Size limits on the fields of a memory. Inputs beyond them are rejected with a typed error.

/// Largest accepted `content`, in UTF-8 bytes (64 KiB).
pub const MAX_CONTENT_BYTES: usize = 64 * 1024;
/// Largest accepted `context`, serialised as JSON, in bytes (64 KiB).
pub const MAX_CONTEXT_BYTES: usize = 64 * 1024;
/// Largest accepted `entity_id`, in UTF-8 bytes.
pub const MAX_ENTITY_ID_BYTES: usize = 256;
/// Most edges one `remember` call may attach.
pub const MAX_EDGES_PER_MEMORY: usize = 256;
/// Largest accepted embedding dimension.
pub const MAX_VECTOR_DIMENSION: usize = 4096;
/// Largest accepted caller key, in UTF-8 bytes.
pub const MAX_KEY_BYTES: usize = 1024;
