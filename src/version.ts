/** The zaxy version, printed by `zaxy --version` and reported to MCP clients. */
export const zaxyVersion = "0.1.0";
