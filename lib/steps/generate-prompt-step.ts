import * as z from "../core/zod";
import type { PromptVersion } from "../core/domain/records";
import { RecordNotFoundError } from "../core/errors/taxonomy";
import { PIPELINE_ACTOR, type PipelineDeps } from "./ports";
import { heldState, refreshCard } from "./common";

// The L2 step on its own module: GenerateProcess's (generate-process-step.ts) validates steps against the freee tool
// registry, which this Lambda never loads (docs/bench.md, every Lambda).

export const GeneratePromptInputSchema = z.object({
  taskId: z.string().check(z.minLength(1)),
  prompt: z.object({ version: z.int().check(z.positive()), regeneratedFor: z.optional(z.string().check(z.minLength(1))) }),
});
export type GeneratePromptInput = z.infer<typeof GeneratePromptInputSchema>;

/** L2: Prompt vN (`generating` → text saved). vN>1 carries the previous text and its rejection reason (docs/architecture.md, limits). */
export async function generatePromptStep(deps: PipelineDeps, input: GeneratePromptInput): Promise<{ taskId: string; version: number }> {
  const { taskId } = input;
  const { version, regeneratedFor } = input.prompt;
  const { record, task: pointed } = await deps.store.createVersion("prompt", taskId, version, { regeneratedFor });
  // The task as the pointer write left it (ALL_NEW); read only when a later version is current (a stale retry).
  const task = pointed ?? (await deps.store.getTaskOrThrow(taskId));
  const spec = task.spec;
  if (spec === undefined) throw new RecordNotFoundError(`task ${taskId} has no L1 spec`, { details: { taskId } });
  const generated = {
    teamId: task.thread.teamId,
    taskId,
    action: "prompt.generated",
    subject: `prompt#${version}`,
    actor: PIPELINE_ACTOR,
    layer: "L2" as const,
    details: { version, regenerated: version > 1 },
  };
  if ((record as PromptVersion).text === undefined) {
    await refreshCard(deps, task, { kind: "prompt" }, pointed && heldState(pointed, { prompts: [record as PromptVersion] }));
    const previous = version > 1 ? await previousPrompt(deps, taskId, version, regeneratedFor) : undefined;
    const text = await deps.layers.generatePrompt({ task, spec, previous });
    // The text and its entry in one transaction (a retry that finds the text finds the entry too).
    await deps.audit.recordWith(generated, (entry) => deps.store.saveVersionContentWithEntry("prompt", taskId, version, { text }, entry));
  } else {
    await deps.audit.record(generated);
  }
  return { taskId, version };
}

async function previousPrompt(deps: PipelineDeps, taskId: string, version: number, reason: string | undefined) {
  const prev = await deps.store.getVersionOrThrow("prompt", taskId, version - 1);
  if (prev.text === undefined || reason === undefined) {
    throw new RecordNotFoundError(`prompt v${version - 1} has no text or rejection reason to regenerate from`, { details: { taskId, version } });
  }
  return { text: prev.text, rejectionReason: reason };
}
