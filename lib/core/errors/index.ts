export * from "./taxonomy";
export * from "./response-contract";
export * from "./anthropic-contract";
export * from "./classify";
