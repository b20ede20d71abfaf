import type { Logger } from "@aws-lambda-powertools/logger";
import type { AuditEntry, Task } from "../core/domain/records";
import type { FreeePort } from "../ingress/freee-port";
import type { TeamSettings } from "../store/team-settings";
import type { ApprovalPolicy } from "../core/domain/approval-policy";
import type { TaskHistory } from "../store/history";
import type { WriteRecord, WriteStepRef } from "../store/write-ledger";
import type { AuditLog } from "../store/audit-log";
import type { SlackOpenId } from "./openid";
import type { People } from "./people";
import type { CookieSigner, Session } from "./session";

/**
 * Who may see what (docs/web-admin.md): an admin (as App Home decides: ADMIN_USER_IDS, the workspace's list, Slack's
 * own admins and owners) sees and changes everything of the workspace; an approver (named by the approval policy)
 * sees its tasks and audit trail; a member only their own tasks.
 */
export type AdminRole = "admin" | "approver" | "member";

/** Every DynamoDB read the pages make; a failure of any is 「データベースに接続できません」. */
export interface AdminReads {
  tasksInPeriod(query: { teamId: string; since: string; until: string; requesterId?: string }): Promise<{ tasks: Task[]; truncated: boolean }>;
  /** The task's whole partition, or undefined when there is no such task. */
  history(taskId: string): Promise<TaskHistory | undefined>;
  writes(taskId: string): Promise<Array<WriteRecord & WriteStepRef>>;
  audit(teamId: string, window: { since: string; until: string }): Promise<AuditEntry[]>;
  settings(teamId: string): Promise<TeamSettings>;
}

export interface AdminWrites {
  saveApprovers(teamId: string, userIds: string[], by: string): Promise<TeamSettings>;
  saveExternalTeams(teamId: string, teamIds: string[], by: string): Promise<TeamSettings>;
  savePolicy(teamId: string, policy: Omit<ApprovalPolicy, "updatedBy" | "updatedAt">, by: string, expectedUpdatedAt: string | undefined): Promise<TeamSettings>;
}

export interface WebAdminDeps {
  signer: CookieSigner;
  /** Absent: sign-in is not configured (no Slack client or session secret); /login says which settings. */
  openId: SlackOpenId | undefined;
  /** The id token's workspace must be one the app is installed in. */
  isInstalled(teamId: string): Promise<boolean>;
  roleOf(session: Pick<Session, "teamId" | "userId">, settings: TeamSettings): Promise<AdminRole>;
  reads: AdminReads;
  writes: AdminWrites;
  freee: FreeePort;
  /** The workspace's members and user groups for the approver fields (SlackPeople); never throws. */
  people: { of(teamId: string): Promise<People & { failure?: Error }> };
  audit: Pick<AuditLog, "record" | "recordError">;
  log: Logger;
  clock?: () => Date;
}
