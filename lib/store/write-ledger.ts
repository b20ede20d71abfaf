import { unmarshall } from "@aws-sdk/util-dynamodb";
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { ThrottledError } from "../core/errors/taxonomy";
import * as z from "../core/zod";
import { isConditionFailure, translateDynamoError } from "./conditional";
import { ItemTable, parseRecord } from "./item-table";
import { Keys } from "./table";

/**
 * The write ledger: one item per approved write step of a Task (`TASK#<id>` / `WRITE#p<version>#<stepId>`),
 * whatever Execution runs it — so a step is written at most once per Task, across reruns (docs/architecture.md, the approved Process is the capability). freee's
 * write APIs have no idempotency key of their own; this is ours.
 *
 *   (none) ──claim──► in_flight ──complete──► done
 *                        │  └──release──► released    freee definitely refused it (4xx): it may be tried again
 *                                                     (kept as `released`, read as absent: no role needs DeleteItem)
 *                        └──markUnknown──► unknown ──complete (read back found it)──► done
 *                                             └──takeOver (a rerun, read back found nothing)──► in_flight
 *
 * An ambiguous failure never releases the item. `attempt` rises with each take-over, and every change is
 * conditional on the attempt its caller holds, so a late writer cannot overwrite a newer one.
 */
export interface WriteStepRef {
  taskId: string;
  processVersion: number;
  stepId: string;
}

const WriteBaseSchema = z.object({
  tool: z.string().check(z.minLength(1)),
  /** Digest of the normalised input, to tell a changed record from the one claimed. */
  digest: z.string().check(z.minLength(1)),
  /** What the write carries into freee to be found again (lib/freee/write-reconciler.ts). */
  marker: z.string().check(z.minLength(1)),
  executionId: z.string().check(z.minLength(1)),
  attempt: z.int().check(z.positive()),
  since: z.string().check(z.minLength(1)),
});
type WriteBase = z.infer<typeof WriteBaseSchema>;
const WriteRecordSchema = z.discriminatedUnion("state", [
  z.extend(WriteBaseSchema, { state: z.literal("in_flight") }),
  z.extend(WriteBaseSchema, { state: z.literal("unknown"), unknownSince: z.string().check(z.minLength(1)), reason: z.string().check(z.minLength(1)) }),
  z.extend(WriteBaseSchema, { state: z.literal("done"), resultText: z.string(), completedAt: z.string().check(z.minLength(1)), how: z.enum(["written", "reconciled"]) }),
]);
export type WriteRecord = z.infer<typeof WriteRecordSchema>;

/**
 * The run a write serves, which must still be live (`statuses`) when the step is taken: the claim and this check
 * are one transaction, so a 中止 that lands before the claim refuses it, and one that lands after finds the step
 * claimed (in flight) and the run's summary reads it as "may have been written".
 */
export interface LiveRun {
  taskId: string;
  executionNo: number;
  statuses: readonly string[];
}

export type Claim =
  | { claimed: true; attempt: number }
  | { claimed: false; prior: WriteRecord }
  /** The run was no longer live (cancelled, ended, or gone: `undefined`); nothing was claimed. */
  | { claimed: false; runStatus: string | undefined };

type CancellationReason = { Code?: string; Item?: Parameters<typeof unmarshall>[0] };

/** A released step: freee refused the write; the step may be claimed again. */
const RELEASED = "released";

export class WriteOnceLedger {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * Take the step for a first write, or learn what an earlier call left. With `run`, the step is taken only while
   * that run is live, checked in the same TransactWriteItems (one request instead of a claim and a status read).
   */
  async claim(ref: WriteStepRef, write: Pick<WriteBase, "tool" | "digest" | "marker" | "executionId">, run?: LiveRun): Promise<Claim> {
    const put = {
      TableName: this.tableName,
      Item: { ...keyOf(ref), recordType: "tool_write", stepId: ref.stepId, processVersion: ref.processVersion, ...write, attempt: 1, state: "in_flight", since: this.now() },
      ConditionExpression: "attribute_not_exists(pk) OR #state = :released",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":released": RELEASED },
      ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const,
    };
    let refused: Record<string, unknown> | undefined;
    try {
      if (run === undefined) await this.doc.send(new PutCommand(put));
      else await this.doc.send(new TransactWriteCommand({ TransactItems: [{ Put: put }, { ConditionCheck: this.liveCheck(run) }] }));
      return { claimed: true, attempt: 1 };
    } catch (err) {
      const outcome = this.claimRefusal(err, run !== undefined);
      if ("runStatus" in outcome) return { claimed: false, runStatus: outcome.runStatus };
      refused = outcome.prior;
    }
    const prior = refused === undefined || refused.state === RELEASED ? await this.get(ref) : recordOf(refused);
    // Released between our put and this read: a definite refusal, so this caller may claim again.
    if (prior === undefined) return this.claim(ref, write, run);
    return { claimed: false, prior };
  }

  /** The run's execution item must hold one of the live statuses (DynamoDB ConditionCheck: nothing is written). */
  private liveCheck(run: LiveRun) {
    const names = run.statuses.map((_, i) => `:live${i}`);
    return {
      TableName: this.tableName,
      Key: Keys.execution(run.taskId, run.executionNo),
      ConditionExpression: `#status IN (${names.join(", ")})`,
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: Object.fromEntries(run.statuses.map((s, i) => [`:live${i}`, s])),
      ReturnValuesOnConditionCheckFailure: "ALL_OLD" as const,
    };
  }

  /**
   * Why a claim was refused: the step's earlier record (its old image, when the refusal carries it), or the run
   * no longer live (its status). A transaction cancelled for another reason (a conflicting transaction on the
   * execution) took nothing: a ThrottledError, which the caller reports as transient.
   */
  private claimRefusal(err: unknown, transacted: boolean): { prior: Record<string, unknown> | undefined } | { runStatus: string | undefined } {
    if (!transacted) {
      if (!isConditionFailure(err)) throw translateDynamoError(err, "claim freee write");
      const old = (err as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      return { prior: old === undefined ? undefined : unmarshall(old) };
    }
    const reasons = (err as { CancellationReasons?: CancellationReason[] }).CancellationReasons;
    if (!(err instanceof Error) || err.name !== "TransactionCanceledException" || reasons === undefined) throw translateDynamoError(err, "claim freee write");
    const codes = reasons.map((r) => r.Code ?? "None");
    if (codes.some((c) => c !== "None" && c !== "ConditionalCheckFailed")) {
      throw new ThrottledError(`claim freee write: transaction cancelled (${codes.join(", ")})`, { cause: err, details: { codes } });
    }
    // The step's own record first: a step already done is answered as done, whatever the run's status.
    if (codes[0] === "ConditionalCheckFailed") {
      const old = reasons[0]?.Item;
      return { prior: old === undefined ? undefined : unmarshall(old) };
    }
    const execution = reasons[1]?.Item === undefined ? undefined : unmarshall(reasons[1].Item);
    return { runStatus: typeof execution?.status === "string" ? execution.status : undefined };
  }

  /** A rerun's read back found nothing: it takes the step over for a new attempt. Undefined if another caller did. */
  async takeOver(ref: WriteStepRef, prior: WriteRecord, executionId: string): Promise<number | undefined> {
    const attempt = prior.attempt + 1;
    const applied = await this.update(ref, prior.attempt, ["in_flight", "unknown"], "SET #state = :inFlight, attempt = :next, executionId = :exec, since = :now REMOVE unknownSince, reason", {
      ":inFlight": "in_flight",
      ":next": attempt,
      ":exec": executionId,
      ":now": this.now(),
    });
    return applied ? attempt : undefined;
  }

  async complete(ref: WriteStepRef, attempt: number, resultText: string, how: "written" | "reconciled"): Promise<boolean> {
    return this.update(ref, attempt, ["in_flight", "unknown"], "SET #state = :done, resultText = :text, completedAt = :now, how = :how REMOVE unknownSince, reason", {
      ":done": "done",
      ":text": resultText,
      ":now": this.now(),
      ":how": how,
    });
  }

  async markUnknown(ref: WriteStepRef, attempt: number, reason: string): Promise<boolean> {
    return this.update(ref, attempt, ["in_flight"], "SET #state = :unknown, unknownSince = :now, reason = :reason", {
      ":unknown": "unknown",
      ":now": this.now(),
      ":reason": reason,
    });
  }

  /** freee definitely did not take the write (it answered 4xx, or the request never left): free the step. */
  async release(ref: WriteStepRef, attempt: number): Promise<void> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(ref),
          UpdateExpression: "SET #state = :released, releasedAt = :now",
          ConditionExpression: "#state = :inFlight AND attempt = :attempt",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":inFlight": "in_flight", ":attempt": attempt, ":released": RELEASED, ":now": this.now() },
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) return;
      throw translateDynamoError(err, "release freee write");
    }
  }

  async get(ref: WriteStepRef): Promise<WriteRecord | undefined> {
    let item: Record<string, unknown> | undefined;
    try {
      item = (await this.doc.send(new GetCommand({ TableName: this.tableName, Key: keyOf(ref), ConsistentRead: true }))).Item;
    } catch (err) {
      throw translateDynamoError(err, "read freee write");
    }
    return item === undefined || item.state === RELEASED ? undefined : recordOf(item);
  }

  /** Every write step of a Task and where it stands (for the L4 completion contract and the card). */
  async listForTask(taskId: string): Promise<Array<WriteRecord & WriteStepRef>> {
    const items = await new ItemTable(this.doc, this.tableName).query(
      {
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :write)",
        ExpressionAttributeValues: { ":pk": Keys.taskPartition(taskId), ":write": "WRITE#" },
        ConsistentRead: true,
      },
      undefined,
      "list freee writes",
    );
    const out: Array<WriteRecord & WriteStepRef> = [];
    for (const item of items) {
      // Items of the older per-Execution ledger carry no step: they are not step records.
      if (typeof item.stepId !== "string" || typeof item.processVersion !== "number" || item.state === RELEASED) continue;
      out.push({ ...recordOf(item), taskId, processVersion: item.processVersion, stepId: item.stepId });
    }
    return out;
  }

  private async update(ref: WriteStepRef, attempt: number, fromStates: string[], expression: string, values: Record<string, unknown>): Promise<boolean> {
    const states = fromStates.map((_, i) => `:from${i}`);
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keyOf(ref),
          UpdateExpression: expression,
          ConditionExpression: `attempt = :attempt AND #state IN (${states.join(", ")})`,
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ...values, ":attempt": attempt, ...Object.fromEntries(fromStates.map((s, i) => [`:from${i}`, s])) },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw translateDynamoError(err, "update freee write");
    }
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

function keyOf(ref: WriteStepRef) {
  return Keys.toolWrite(ref.taskId, ref.processVersion, ref.stepId);
}

function recordOf(item: Record<string, unknown>): WriteRecord {
  return parseRecord(WriteRecordSchema, item, "freee write");
}
