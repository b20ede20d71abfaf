import type { Logger } from "@aws-lambda-powertools/logger";
import { createAgentRunner } from "../../../wiring/agent-runner";
import type { AgentRunner, StartRunInput } from "../../../lib/model/agent/agent-runner";
import type { ExecutionProgress } from "../../../lib/core/domain/records";
import { createLogger } from "../../../lib/core/observability/logger";
import { startTestTable, type TestTable } from "../../support/dynamo";
import { startFakeManagedAgents, type FakeAnthropic as FakeManagedAgents } from "../../../dev/fakes/anthropic";

export const BEARER_SECRET = "test-mcp-bearer-secret-0123456789abcdef";
export const MCP_URL = "https://mcp.example.test/mcp";

export interface Harness {
  fake: FakeManagedAgents;
  table: TestTable;
  env: Record<string, string>;
  runner: AgentRunner;
  logger: Logger;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const fake = await startFakeManagedAgents();
  const table = await startTestTable();
  const env: Record<string, string> = {
    ...table.env,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: fake.apiKey,
    MCP_SERVER_URL: MCP_URL,
    MCP_BEARER_SECRET: BEARER_SECRET,
  };
  const logger = createLogger("agent-test");
  logger.setLogLevel("SILENT");
  const runner = await createAgentRunner(env, { doc: table.doc, logger });
  return {
    fake,
    table,
    env,
    runner,
    logger,
    async close() {
      await fake.close();
      await table.close();
    },
  };
}

export function startInput(overrides: Partial<StartRunInput> = {}): StartRunInput {
  return {
    teamId: "T0001",
    taskId: "T0001-C0001-1700000000_000100",
    executionId: "T0001-C0001-1700000000_000100-e1",
    steps: [
      { stepId: "s1", order: 1, tool: "freee_hr_list_employees", toolInput: { year: 2026, month: 11 } },
      { stepId: "s2", order: 2, tool: "freee_hr_update_work_record", toolInput: { employee_id: 1, date: "2026-11-30" } },
    ],
    allowedTools: ["freee_hr_list_employees", "freee_hr_update_work_record"],
    ...overrides,
  };
}

export function freshProgress(stepsSentAt: string): ExecutionProgress {
  return { seenEventIds: [], completedSteps: 0, toolErrors: [], stepsSentAt };
}
