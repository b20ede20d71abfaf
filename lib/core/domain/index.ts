export * from "./status";
export * from "./records";
export * from "./preview";
