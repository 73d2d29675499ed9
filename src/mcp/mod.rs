//! The `MCP` namespace (docs/contract.md, MCP): identifiers, the servers a session loaded,
//! and their TypeScript-style declarations. Plain Rust; the host glue talks to the MCP clients.

mod declarations;
mod identifiers;
mod input;
mod result;
mod servers;

pub use declarations::{
    index_dts, root_api, server_api, server_description, server_dts, server_path,
    INDEX_DESCRIPTION, INDEX_PATH,
};
pub use identifiers::{check_segment, lower_camel, Identifiers};
pub use result::fit_result;
pub use servers::{McpCatalog, McpServer, McpTool, OPS};
