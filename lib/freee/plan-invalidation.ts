import type { Logger } from "@aws-lambda-powertools/logger";
import { SendTaskFailureCommand, type SFNClient } from "@aws-sdk/client-sfn";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { CardRefresher } from "../core/domain/card-refresher";
import { APPROVALS_REFUSED_METRIC, emitCount } from "../core/observability/emf";
import { registerSecret } from "../core/redaction/secret-registry";
import type { AuditLog } from "../store/audit-log";
import { COMPANY_CHANGED, invalidatePlansOfOtherCompanies, type InvalidatedPlan } from "../store/company-switch";

export interface PlanInvalidationDeps {
  doc: DynamoDBDocumentClient;
  tableName: string;
  audit: Pick<AuditLog, "record">;
  /** Ends each plan's approval wait (SendTaskFailure): TaskPipeline's failure path closes the task. */
  sfn: Pick<SFNClient, "send">;
  /** Redraws each plan's card at once (the failure path draws it again when it runs). */
  cards: Pick<CardRefresher, "refresh">;
  log: Logger;
  clock?: () => Date;
  count?: (dimensions: Record<string, string>) => void;
}

/** Step Functions answers these when the wait is already over (expired, decided, or the token was used). */
const WAIT_GONE = new Set(["TaskTimedOut", "TaskDoesNotExist", "InvalidToken"]);

export type PlanInvalidator = (teamId: string, companyId: number, actor: string) => Promise<InvalidatedPlan[]>;

/**
 * What a freee reconnect to another company does to the plans awaiting approval in its workspace: each is made
 * unapprovable (lib/store/company-switch.ts), audited as `process.invalidated` and counted, its card redrawn
 * (「freee の接続先の事業所が…変わった…プレビューし直す必要があります」) and its approval wait ended with
 * `FreeeCompanyChangedError`, which TaskPipeline's failure path records as the task's end. A plan the sweep
 * missed (its preview read the old company and reached the card after the sweep) is still refused by the MCP server.
 */
export function createPlanInvalidator(deps: PlanInvalidationDeps): PlanInvalidator {
  const clock = deps.clock ?? (() => new Date());
  const count = deps.count ?? ((dimensions) => emitCount(APPROVALS_REFUSED_METRIC, dimensions));
  return async (teamId, companyId, actor) => {
    const plans = await invalidatePlansOfOtherCompanies(deps.doc, deps.tableName, { teamId, companyId, now: clock().toISOString() });
    for (const plan of plans) {
      await deps.audit.record({
        teamId,
        taskId: plan.taskId,
        action: "process.invalidated",
        subject: `process#${plan.version}`,
        actor,
        layer: "L3",
        details: { reason: "company_changed", approvedCompanyId: plan.approvedCompanyId ?? null, connectedCompanyId: companyId },
      });
      count({ Reason: "company_changed", Stage: "invalidated" });
      await endWait(deps, plan, companyId);
      try {
        await deps.cards.refresh(plan.taskId, { kind: "process" });
      } catch (err) {
        // The version is failed already: the failure path's refresh (or the next click) draws the card.
        deps.log.warn("card refresh after a plan was invalidated failed", { taskId: plan.taskId, error_type: err instanceof Error ? err.name : "unknown" });
      }
    }
    return plans;
  };
}

async function endWait(deps: PlanInvalidationDeps, plan: InvalidatedPlan, companyId: number): Promise<void> {
  if (plan.taskToken === undefined) {
    deps.log.error("invalidated plan had no task token; its wait ends at the approval timeout", { taskId: plan.taskId, version: plan.version });
    return;
  }
  registerSecret(plan.taskToken);
  try {
    await deps.sfn.send(
      new SendTaskFailureCommand({
        taskToken: plan.taskToken,
        error: COMPANY_CHANGED,
        cause: `process v${plan.version} was previewed against company ${plan.approvedCompanyId ?? "(none)"}; the freee connection now names company ${companyId}`,
      }),
    );
  } catch (err) {
    if (err instanceof Error && WAIT_GONE.has(err.name)) return;
    // The plan stays unapprovable; its wait ends at the approval timeout (ExpireProcessApproval closes the task).
    deps.log.error("could not end the approval wait of an invalidated plan", { taskId: plan.taskId, version: plan.version, error_type: err instanceof Error ? err.name : "unknown" });
  }
}
