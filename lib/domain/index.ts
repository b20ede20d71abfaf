export * from "./status";
export * from "./records";
