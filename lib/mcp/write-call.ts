import { createHash } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { defaultSleep, retryTransient } from "../core/aws/transient-retry";
import { DYNAMODB_CALL, worstCallMs } from "../core/config/client-budgets";
import { FatalConfigError, isAppError, WriteOutcomeUnknownError } from "../core/errors/taxonomy";
import type { FreeeClient } from "../freee/client";
import type { FreeeRequest, FreeeResult } from "../freee/types";
import { reconcilerFor, writeMarker, type ReadBack, type WriteReconciler } from "../freee/write-reconciler";
import type { FreeeToolDefinition } from "../freee/tools/registry";
import type { Permit } from "./capability";
import { LIVE_EXECUTION_STATUSES } from "./execution-scope";
import { refusal, RefusalTexts } from "./refusals";
import { clip, errorResult, settled, type ToolCall } from "./call-context";
import type { WriteRecord, WriteStepRef } from "../store/write-ledger";
import { attachUpload } from "./upload-file";
import { WRITE_CALL_DEFAULTS } from "./write-call-defaults";

export { WRITE_CALL_DEFAULTS } from "./write-call-defaults";

type Client = Pick<FreeeClient, "companyId" | "request">;


/**
 * A permitted write: the first candidate step the ledger still has open runs, once per Task (docs/architecture.md, the approved Process is the capability).
 * - A step already done answers `step_already_done` with its first result; freee is not called.
 * - A step in flight elsewhere is refused; one whose outcome is unknown (or whose Lambda died mid-write) is first
 *   reconciled by reading back: found → done; nothing found → refused in the same Execution, written again only
 *   by a rerun (the user was told to check freee, and the read back shows no trace).
 * - A write whose reply is lost (timeout, reset, 5xx) is not repeated: it is read back at once.
 */
export async function runWrite(call: ToolCall, tool: FreeeToolDefinition, permit: Extract<Permit, { kind: "write" }>, client: Client, companyId: number): Promise<CallToolResult> {
  const { deps, scope } = call;
  const unmarked = tool.toRequest(permit.input, companyId);
  const reconciler = reconcilerFor(unmarked);
  if (reconciler === undefined) {
    return call.failed(new FatalConfigError(`write tool ${tool.name} sends ${unmarked.method} ${unmarked.path}, which is no vendored write operation (lib/freee/openapi)`), { stage: "write_setup" });
  }
  const digest = createHash("sha256").update(permit.canonical).digest("hex").slice(0, 32);
  let done: { stepId: string; record: Extract<WriteRecord, { state: "done" }> } | undefined;
  for (const step of permit.candidates) {
    const ref: WriteStepRef = { taskId: scope.taskId, processVersion: scope.processVersion, stepId: step.stepId };
    const marker = writeMarker(ref, reconciler.markerMaxLength);
    const request = reconciler.mark(unmarked, marker);
    const write = new StepWrite(call, tool.name, ref, marker, request, client, reconciler, permit.input);
    let claim;
    try {
      // Taken only while the run is live (a 中止 may have landed since the call began): one transaction.
      claim = await deps.writes.claim(ref, { tool: tool.name, digest, marker, executionId: scope.executionId }, { taskId: scope.taskId, executionNo: scope.executionNo, statuses: [...LIVE_EXECUTION_STATUSES] });
    } catch (err) {
      return call.failed(err, { stage: "write_claim", stepId: step.stepId });
    }
    if (claim.claimed) return write.send(claim.attempt, "checked_live");
    if ("runStatus" in claim) {
      return call.refuse(refusal("execution_not_live", RefusalTexts.executionNotLive(claim.runStatus ?? "not_found"), { executionStatus: claim.runStatus, stepId: step.stepId }));
    }
    const prior = claim.prior;
    if (prior.state === "done") {
      done ??= { stepId: step.stepId, record: prior };
      continue;
    }
    const age = (deps.clock ?? (() => new Date()))().getTime() - Date.parse(prior.since);
    if (prior.state === "in_flight" && age < (deps.inFlightLeaseMs ?? WRITE_CALL_DEFAULTS.inFlightLeaseMs)) {
      return call.refuse(refusal("write_in_flight", RefusalTexts.writeInFlight(step.stepId), { stepId: step.stepId, since: prior.since }));
    }
    return write.settle(prior);
  }
  const first = done!;
  return call.refuse(
    refusal("step_already_done", RefusalTexts.stepAlreadyDone(first.stepId, first.record.completedAt, first.record.resultText), {
      stepIds: permit.candidates.map((s) => s.stepId),
      completedAt: first.record.completedAt,
      completedBy: first.record.executionId,
    }),
  );
}

class StepWrite {
  constructor(
    private readonly call: ToolCall,
    private readonly tool: string,
    private readonly ref: WriteStepRef,
    private readonly marker: string,
    private readonly request: FreeeRequest,
    private readonly client: Client,
    private readonly reconciler: WriteReconciler,
    private readonly input: Record<string, unknown>,
  ) {}

  private get deps() {
    return this.call.deps;
  }

  /**
   * The step is ours (attempt): send it once while the run is live. A first claim checked that in its own
   * transaction; a take-over (a rerun settling an earlier attempt) reads the run's status first.
   */
  async send(attempt: number, live: "checked_live" | "check_live"): Promise<CallToolResult> {
    if (live === "check_live") {
      const refused = await this.refusedUnlessLive(attempt);
      if (refused !== undefined) return refused;
    }
    let outgoing: FreeeRequest;
    try {
      const attached = await attachUpload(this.call, this.request, this.ref.stepId);
      if ("refused" in attached) {
        await this.release(attempt);
        return this.call.refuse(attached);
      }
      outgoing = attached;
    } catch (err) {
      await this.release(attempt);
      return this.call.failed(err, { stage: "write_attachment", stepId: this.ref.stepId });
    }
    // The ledger's in_flight claim is the durable record that the write may leave; its audit entry (timed now, before
    // freee is called) goes out beside the request rather than ahead of it, and is awaited before anything else.
    const called = this.call.audit("freee.tool_called", { input: this.input, stepId: this.ref.stepId, marker: this.marker, attempt, ...(outgoing.file === undefined ? {} : { file: { name: outgoing.file.name, bytes: outgoing.file.bytes.byteLength } }) });
    const started = Date.now();
    const [sent] = await Promise.all([settled(this.client.request(outgoing)), called]);
    let result: FreeeResult;
    try {
      result = sent();
    } catch (err) {
      // A taxonomy error other than WriteOutcomeUnknownError means freee refused before acting (401 after the
      // refresh, 429 exhausted) or the request never left; anything else may have landed.
      if (isAppError(err) && !(err instanceof WriteOutcomeUnknownError)) {
        await this.release(attempt);
        return this.call.failed(err, { stepId: this.ref.stepId, durationMs: Date.now() - started });
      }
      return this.afterLostReply(attempt, err);
    }
    if (!result.ok) {
      // freee definitely refused it (4xx): the step is free again, for this run or a rerun.
      await this.release(attempt);
      return this.call.answered(this.request, result, started, { stepId: this.ref.stepId });
    }
    // Both after the effect, neither read by the other: the ledger's record and the completion entry go out together.
    const [, answer] = await Promise.all([
      this.complete(attempt, clip(JSON.stringify(result.data ?? null)), "written"),
      this.call.answered(this.request, result, started, { stepId: this.ref.stepId, attempt }),
    ]);
    return answer;
  }

  /** An earlier attempt's outcome is unknown (or its Lambda died): read back before anything is written. */
  async settle(prior: Exclude<WriteRecord, { state: "done" }>): Promise<CallToolResult> {
    const { scope } = this.call;
    await this.call.audit("freee.write_reconciling", { stepId: this.ref.stepId, marker: this.marker, priorState: prior.state, priorExecution: prior.executionId, attempt: prior.attempt });
    const back = await this.readBack();
    if (back instanceof Error || back.outcome === "absent") {
      if (back instanceof Error || prior.executionId === scope.executionId) {
        if (prior.state === "in_flight") return this.unknown(prior.attempt, back instanceof Error ? back : undefined);
        return this.call.refuse(refusal("write_outcome_unknown", this.unknownText(), { stepId: this.ref.stepId, marker: this.marker, since: prior.since }));
      }
      // A rerun, and freee shows no trace of the earlier attempt: this run writes the step.
      const attempt = await this.deps.writes.takeOver(this.ref, prior, scope.executionId);
      if (attempt === undefined) return this.call.refuse(refusal("write_in_flight", RefusalTexts.writeInFlight(this.ref.stepId), { stepId: this.ref.stepId }));
      return this.send(attempt, "check_live");
    }
    return this.found(prior.attempt, back.data);
  }

  /** Reads the run's status; not live (or unreadable), the step is released and the call refused or failed. */
  private async refusedUnlessLive(attempt: number): Promise<CallToolResult | undefined> {
    const { scope } = this.call;
    let status: string | undefined;
    try {
      status = (await this.deps.taskStore.getExecution(scope.taskId, scope.executionNo))?.status;
    } catch (err) {
      await this.release(attempt);
      return this.call.failed(err, { stage: "write_status", stepId: this.ref.stepId });
    }
    if (status !== undefined && LIVE_EXECUTION_STATUSES.has(status)) return undefined;
    await this.release(attempt);
    return this.call.refuse(refusal("execution_not_live", RefusalTexts.executionNotLive(status ?? "not_found"), { executionStatus: status, stepId: this.ref.stepId }));
  }

  private async afterLostReply(attempt: number, err: unknown): Promise<CallToolResult> {
    const seen = err instanceof Error ? err : new Error(String(err));
    await this.call.audit("freee.write_ambiguous", { stepId: this.ref.stepId, marker: this.marker, attempt, errorType: seen.name, cause: (seen.cause as Error | undefined)?.name });
    await (this.deps.sleep ?? defaultSleep)(this.deps.reconcileDelayMs ?? WRITE_CALL_DEFAULTS.reconcileDelayMs);
    const back = await this.readBack();
    if (back instanceof Error || back.outcome === "absent") return this.unknown(attempt, back instanceof Error ? back : seen);
    return this.found(attempt, back.data);
  }

  private async readBack(): Promise<ReadBack | WriteOutcomeUnknownError> {
    const budget = this.deps.reconcileBudgetMs ?? WRITE_CALL_DEFAULTS.reconcileBudgetMs;
    let timer: NodeJS.Timeout | undefined;
    const overBudget = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WriteOutcomeUnknownError(`freee read back of step ${this.ref.stepId} took longer than ${budget} ms`, { details: { stepId: this.ref.stepId, budgetMs: budget } })), budget);
    });
    try {
      return await Promise.race([this.reconciler.find((req) => this.client.request(req), this.request, this.marker), overBudget]);
    } catch (err) {
      if (err instanceof WriteOutcomeUnknownError) return err;
      return new WriteOutcomeUnknownError(`freee read back of step ${this.ref.stepId} failed`, { cause: err, details: { stepId: this.ref.stepId } });
    } finally {
      clearTimeout(timer);
    }
  }

  private async found(attempt: number, data: unknown): Promise<CallToolResult> {
    const text = clip(JSON.stringify(data ?? null));
    await this.complete(attempt, text, "reconciled");
    await this.call.audit("freee.write_reconciled", { stepId: this.ref.stepId, marker: this.marker, attempt });
    return { content: [{ type: "text", text: `（freee の応答が失われたため読み戻して確認しました。この書き込みは freee に反映されています。再送はしていません。）\n${text}` }] };
  }

  /** The step ends as WriteOutcomeUnknownError: kept (never released), audited and counted. */
  private async unknown(attempt: number, cause: Error | undefined): Promise<CallToolResult> {
    const error = new WriteOutcomeUnknownError(`freee write of step ${this.ref.stepId} (${this.tool}) may have reached freee and reading back did not find it`, {
      cause,
      details: { stepId: this.ref.stepId, tool: this.tool, marker: this.marker },
    });
    try {
      await this.deps.writes.markUnknown(this.ref, attempt, cause?.name ?? "not_found_on_read_back");
    } catch (err) {
      // The item stays in_flight; once its lease passes it is settled the same way.
      this.deps.logger.error("could not mark a freee write unknown", { stepId: this.ref.stepId, error: err instanceof Error ? err : String(err) });
    }
    await this.call.auditError(error, { stepId: this.ref.stepId, marker: this.marker, attempt });
    try {
      this.deps.metrics.writeOutcomeUnknown(this.tool);
    } catch (err) {
      this.deps.logger.error("could not count an unknown write outcome", { error: err instanceof Error ? err : String(err) });
    }
    return errorResult(this.unknownText());
  }

  private unknownText(): string {
    return RefusalTexts.writeOutcomeUnknown(this.ref.stepId, this.reconciler.markerField === undefined ? undefined : this.marker);
  }

  /**
   * Records a write freee took. A transient failure (a throttle) is retried with backoff while the invocation
   * has time for the wait and one more call; past that the item stays `in_flight` — which the completion
   * contract and the card read as "may have been written", and a later call or rerun settles by reading back.
   */
  private async complete(attempt: number, text: string, how: "written" | "reconciled"): Promise<void> {
    const outcome = await retryTransient(() => this.deps.writes.complete(this.ref, attempt, text, how), {
      attempts: this.deps.ledgerAttempts ?? WRITE_CALL_DEFAULTS.ledgerAttempts,
      backoffMs: this.deps.ledgerBackoffMs ?? WRITE_CALL_DEFAULTS.ledgerBackoffMs,
      reserveMs: 2 * worstCallMs(DYNAMODB_CALL),
      sleep: this.deps.sleep ?? defaultSleep,
    });
    if (outcome.ok) {
      if (!outcome.value) this.deps.logger.warn("freee write completed under a newer attempt", { stepId: this.ref.stepId, attempt });
      if (outcome.attempts > 1) this.deps.logger.info("freee write recorded after retries", { stepId: this.ref.stepId, attempts: outcome.attempts });
      return;
    }
    // The write happened; the item stays in_flight, and a later call reconciles it rather than writing twice.
    const err = outcome.error;
    this.deps.logger.error("could not record a completed freee write", { stepId: this.ref.stepId, attempts: outcome.attempts, error: err instanceof Error ? err : String(err) });
    await this.call.audit("freee.write_unrecorded", { stepId: this.ref.stepId, marker: this.marker, attempt, attempts: outcome.attempts, errorType: err instanceof Error ? err.name : typeof err });
  }

  private async release(attempt: number): Promise<void> {
    try {
      await this.deps.writes.release(this.ref, attempt);
    } catch (err) {
      this.deps.logger.error("could not release a refused freee write", { stepId: this.ref.stepId, error: err instanceof Error ? err : String(err) });
    }
  }
}

