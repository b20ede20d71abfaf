import type { Logger } from "@aws-lambda-powertools/logger";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { AgentRunner } from "../model/agent/agent-runner";
import type { AuditLog } from "../store/audit-log";
import type { Limits } from "../core/config/limits";
import type { ProcessStep, Task, TaskSpec } from "../core/domain/records";
import type { L1Result } from "../model/l1-task";
import type { PipelineMetrics } from "../core/observability/metrics";
import type { CardRefresher } from "../core/domain/card-refresher";
import type { PreviewClient } from "../preview/reader";
import type { WriteOnceLedger } from "../store/write-ledger";
import type { TaskStore } from "../store/task-store";
import type { TeamSettingsStore } from "../store/team-settings";
import type { HomeConnectionStatus } from "../store/freee-connection-status";

/**
 * L1–L3 as the pipeline sees them. The Lambda handlers adapt lib/model to this shape; tests inject fakes.
 * Each call throws taxonomy errors only (Transient*, Empty/Truncated/Refused, MalformedOutputError, BadRequestError,
 * FatalConfigError): their names are what the state machines' Retry/Catch blocks match.
 */
export interface PipelineLayers {
  /** L1: a TaskSpec, or a short reply when the message asks for no work on freee. */
  analyzeTask(input: { task: Task }): Promise<L1Result>;
  generatePrompt(input: { task: Task; spec: TaskSpec; previous?: { text: string; rejectionReason: string } }): Promise<string>;
  generateProcess(input: {
    task: Task;
    spec: TaskSpec;
    promptText: string;
    previous?: { steps: ProcessStep[]; rejectionReason: string };
    /** The validation error of the previous attempt (retry with the error in the prompt). */
    validationError?: string;
  }): Promise<ProcessStep[]>;
}

/** Everything a pipeline step needs, built once per cold start by the Lambda handler. */
export interface PipelineDeps {
  store: TaskStore;
  audit: AuditLog;
  cards: CardRefresher;
  layers: PipelineLayers;
  agent: AgentRunner;
  /** The workspace's freee connection, read path only: the preview reads what each write will change. */
  freee: (teamId: string) => PreviewClient;
  /** The workspace's freee connection status (no tokens read): checked before a request is planned (lib/steps/freee-first.ts). */
  freeeConnection: (teamId: string) => Promise<HomeConnectionStatus>;
  /** The freee MCP server's write ledger, read by the L4 completion contract and by a rerun (steps already done). */
  writes: Pick<WriteOnceLedger, "listForTask">;
  sfn: Pick<SFNClient, "send">;
  limits: Limits;
  /** Only the Lambda that starts the first run has it (EXECUTION_RUN_ARN). */
  executionRunArn: string | undefined;
  log: Logger;
  /** Counts for the operator (EMF): outcomes, failures by class, retries, regenerations, reruns, cancels, tokens. */
  metrics: PipelineMetrics;
  /** The workspace's settings: the approval policy a Process card is posted under. */
  settings: Pick<TeamSettingsStore, "get">;
  clock: () => Date;
}

export const PIPELINE_ACTOR = "system:pipeline";
