export * from "./types";
export { approve, reject, type ApprovalSource, type VersionTarget } from "./decide";
export { loadForFullReview, loadForInput, type Loaded } from "./review";
export { cancelExecution, type ExecutionTarget } from "./cancel";
export { rerunExecution } from "./rerun";
export { mayActOn } from "./permissions";
export { SLACK_TEAM_ID, TeamSettingsStore, TeamSettingsSchema, type TeamSettings } from "../../store/team-settings";
export { AdminDirectory, type AdminCheck, type SlackRole, type SlackRoleLookup } from "./admins";
