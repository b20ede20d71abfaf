import { GetCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import * as z from "zod/mini";
import { MalformedOutputError } from "../core/errors/taxonomy";
import { translateDynamoError } from "./conditional";
import { Keys } from "./table";
import { ApprovalPolicySchema, DEFAULT_APPROVAL_POLICY, type ApprovalPolicy } from "../core/domain/approval-policy";

/** A Slack workspace id (T…) or an Enterprise Grid organisation id (E…). */
export const SLACK_TEAM_ID = /^[TE][A-Z0-9]{2,}$/;

/**
 * Per-workspace settings (App Home): who besides the requester may approve, reject, cancel and rerun, and which
 * other organisations' workspaces (Slack Connect) may make and decide requests here.
 */
export const TeamSettingsSchema = z.object({
  teamId: z.string().check(z.minLength(1)),
  adminUserIds: z.array(z.string().check(z.regex(/^[UW][A-Z0-9]+$/))),
  allowedExternalTeamIds: z.optional(z.array(z.string().check(z.regex(SLACK_TEAM_ID)))),
  /** Separation of duties (lib/core/domain/approval-policy.ts); absent: the defaults. */
  approvalPolicy: z.optional(ApprovalPolicySchema),
  updatedBy: z.optional(z.string().check(z.minLength(1))),
  updatedAt: z.optional(z.string().check(z.minLength(1))),
});
export type TeamSettings = z.infer<typeof TeamSettingsSchema> & { allowedExternalTeamIds: string[]; approvalPolicy: ApprovalPolicy };

export class TeamSettingsStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The workspace's settings; a workspace that never saved any has empty lists. */
  async get(teamId: string): Promise<TeamSettings> {
    let item: Record<string, unknown> | undefined;
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: Keys.teamSettings(teamId), ConsistentRead: true }));
      item = out.Item;
    } catch (err) {
      throw translateDynamoError(err, "getTeamSettings");
    }
    if (item === undefined) return { teamId, adminUserIds: [], allowedExternalTeamIds: [], approvalPolicy: DEFAULT_APPROVAL_POLICY };
    return parseSettings(item, "stored");
  }

  /**
   * The approval policy (App Home, admins only). Replaced whole, conditional on the one the editor was shown
   * (`expectedUpdatedAt`; undefined = none saved yet), so two admins editing at once do not merge silently.
   */
  async savePolicy(teamId: string, policy: Omit<ApprovalPolicy, "updatedBy" | "updatedAt">, updatedBy: string, expectedUpdatedAt: string | undefined): Promise<TeamSettings> {
    const stored = ApprovalPolicySchema.parse({ ...policy, updatedBy, updatedAt: this.clock().toISOString() });
    return this.update(teamId, "saveApprovalPolicy", {
      UpdateExpression: "SET recordType = :rt, teamId = :team, approvalPolicy = :p, adminUserIds = if_not_exists(adminUserIds, :none)",
      ConditionExpression: expectedUpdatedAt === undefined ? "attribute_not_exists(approvalPolicy)" : "approvalPolicy.updatedAt = :seen",
      ExpressionAttributeValues: { ":rt": "teamSettings", ":team": teamId, ":p": stored, ":none": [], ...(expectedUpdatedAt === undefined ? {} : { ":seen": expectedUpdatedAt }) },
    });
  }

  /** Who may act besides the requester. Sets this list only: the other settings stay as they are. */
  save(teamId: string, adminUserIds: readonly string[], updatedBy: string): Promise<TeamSettings> {
    return this.set(teamId, { adminUserIds: [...new Set(adminUserIds)] }, updatedBy);
  }

  /** The other organisations' workspaces whose members may use the app here (Slack Connect). */
  saveAllowedExternalTeams(teamId: string, teamIds: readonly string[], updatedBy: string): Promise<TeamSettings> {
    return this.set(teamId, { allowedExternalTeamIds: [...new Set(teamIds)] }, updatedBy);
  }

  private async set(teamId: string, field: { adminUserIds: string[] } | { allowedExternalTeamIds: string[] }, updatedBy: string): Promise<TeamSettings> {
    const [name, value] = Object.entries(field)[0] as [string, string[]];
    const checked = TeamSettingsSchema.parse({ teamId, adminUserIds: [], [name]: value, updatedBy, updatedAt: this.clock().toISOString() });
    return this.update(teamId, "saveTeamSettings", {
      // The admin list is required by the schema: a workspace that first saves another setting gets an empty one.
      UpdateExpression:
        "SET recordType = :rt, teamId = :team, #f = :v, updatedBy = :by, updatedAt = :at" +
        (name === "adminUserIds" ? "" : ", adminUserIds = if_not_exists(adminUserIds, :none)"),
      ExpressionAttributeNames: { "#f": name },
      ExpressionAttributeValues: {
        ":rt": "teamSettings",
        ":team": teamId,
        ":v": value,
        ":by": checked.updatedBy,
        ":at": checked.updatedAt,
        ...(name === "adminUserIds" ? {} : { ":none": [] }),
      },
    });
  }

  /** One update of the workspace's settings item, returning the item as saved (errors named by `operation`). */
  private async update(teamId: string, operation: string, expression: SettingsUpdate): Promise<TeamSettings> {
    let out;
    try {
      out = await this.doc.send(new UpdateCommand({ TableName: this.tableName, Key: Keys.teamSettings(teamId), ...expression, ReturnValues: "ALL_NEW" }));
    } catch (err) {
      throw translateDynamoError(err, operation);
    }
    return parseSettings(out.Attributes, "saved");
  }
}

type SettingsUpdate = Pick<UpdateCommandInput, "UpdateExpression" | "ConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues">;

function parseSettings(item: unknown, what: "stored" | "saved"): TeamSettings {
  const parsed = TeamSettingsSchema.safeParse(item);
  if (!parsed.success) throw new MalformedOutputError(`${what} team settings do not match their schema`, { cause: parsed.error });
  return { ...parsed.data, allowedExternalTeamIds: parsed.data.allowedExternalTeamIds ?? [], approvalPolicy: parsed.data.approvalPolicy ?? DEFAULT_APPROVAL_POLICY };
}
