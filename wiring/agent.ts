import { createAgentRunner } from "./agent-runner";
import type { Wiring } from "./base-deps";

/** L4 on Managed Agents: the ExecutionRun's steps and the reconciler. */
export async function withAgent(w: Wiring): Promise<Wiring> {
  const agent = await createAgentRunner(w.env, { doc: w.doc, logger: w.deps.log });
  return { ...w, deps: { ...w.deps, agent } };
}
