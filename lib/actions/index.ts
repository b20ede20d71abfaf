export * from "./types";
export { approve, reject, type VersionTarget } from "./decide";
export { cancelExecution, type ExecutionTarget } from "./cancel";
export { rerunExecution } from "./rerun";
export { isAdmin, mayActOn } from "./permissions";
export { TeamSettingsStore, TeamSettingsSchema, type TeamSettings } from "./team-settings";
