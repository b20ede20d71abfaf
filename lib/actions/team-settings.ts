import { GetCommand, PutCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import * as z from "zod/mini";
import { MalformedOutputError } from "../errors/taxonomy";
import { translateDynamoError } from "../store/conditional";
import { Keys } from "../store/table";

/** Per-workspace settings (App Home): who besides the requester may approve, reject, cancel and rerun. */
export const TeamSettingsSchema = z.object({
  teamId: z.string().check(z.minLength(1)),
  adminUserIds: z.array(z.string().check(z.regex(/^[UW][A-Z0-9]+$/))),
  updatedBy: z.optional(z.string().check(z.minLength(1))),
  updatedAt: z.optional(z.string().check(z.minLength(1))),
});
export type TeamSettings = z.infer<typeof TeamSettingsSchema>;

export class TeamSettingsStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The workspace's settings; a workspace that never saved any has an empty admin list. */
  async get(teamId: string): Promise<TeamSettings> {
    let item: Record<string, unknown> | undefined;
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: Keys.teamSettings(teamId), ConsistentRead: true }));
      item = out.Item;
    } catch (err) {
      throw translateDynamoError(err, "getTeamSettings");
    }
    if (item === undefined) return { teamId, adminUserIds: [] };
    const parsed = TeamSettingsSchema.safeParse(item);
    if (!parsed.success) throw new MalformedOutputError("stored team settings do not match their schema", { cause: parsed.error });
    return parsed.data;
  }

  async save(teamId: string, adminUserIds: readonly string[], updatedBy: string): Promise<TeamSettings> {
    const settings = TeamSettingsSchema.parse({ teamId, adminUserIds: [...new Set(adminUserIds)], updatedBy, updatedAt: this.clock().toISOString() });
    try {
      await this.doc.send(new PutCommand({ TableName: this.tableName, Item: { ...Keys.teamSettings(teamId), recordType: "teamSettings", ...settings } }));
    } catch (err) {
      throw translateDynamoError(err, "saveTeamSettings");
    }
    return settings;
  }
}
