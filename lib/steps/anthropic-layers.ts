import type { MessagesClient } from "../model/anthropic-client";
import type { ProcessStep } from "../core/domain/records";
import { FatalConfigError } from "../core/errors/taxonomy";
import type { L1Result, runL1Task } from "../model/l1-task";
import type { runL2Prompt } from "../model/l2-prompt";
import type { runL3Process } from "../model/l3-process";
import type { LayersSettings } from "../model/settings";
import type { PipelineMetrics } from "../core/observability/metrics";
import type { PipelineLayers } from "./ports";

/**
 * The layer functions a Lambda runs, given by its wiring: each layer imports its own prompts, and L2 / L3 the
 * tool catalogue and freee's schemas, so a Lambda that runs L1 only must not import the others.
 */
export interface LayerRunners {
  L1?: typeof runL1Task;
  L2?: typeof runL2Prompt;
  L3?: typeof runL3Process;
}

/** PipelineLayers on lib/model (Anthropic Messages API). The client is created on first use, once. */
export class AnthropicLayers implements PipelineLayers {
  private client: Promise<MessagesClient> | undefined;

  constructor(
    private readonly createClient: () => Promise<MessagesClient>,
    private readonly settings: LayersSettings,
    private readonly runners: LayerRunners,
    private readonly options: { clock?: () => Date; metrics?: Pick<PipelineMetrics, "tokens"> } = {},
  ) {}

  private runner<L extends keyof LayerRunners>(layer: L): NonNullable<LayerRunners[L]> {
    const run = this.runners[layer];
    if (run === undefined) throw new FatalConfigError(`this Lambda does not wire layer ${layer}`, { details: { layer } });
    return run;
  }

  private now(): Date {
    return this.options.clock?.() ?? new Date();
  }

  async analyzeTask(input: Parameters<PipelineLayers["analyzeTask"]>[0]): Promise<L1Result> {
    const result = await this.runner("L1")({ client: await this.getClient(), settings: this.settings.L1 }, { text: input.task.requestText, now: this.now() });
    this.options.metrics?.tokens("L1", result.usage);
    return result.value;
  }

  async generatePrompt(input: Parameters<PipelineLayers["generatePrompt"]>[0]): Promise<string> {
    const result = await this.runner("L2")(
      { client: await this.getClient(), settings: this.settings.L2 },
      {
        task: input.spec,
        requestText: input.task.requestText,
        ...(input.task.attachments === undefined ? {} : { attachments: input.task.attachments }),
        regeneration: input.previous && { previousPromptText: input.previous.text, rejectionReason: input.previous.rejectionReason },
        now: this.now(),
      },
    );
    this.options.metrics?.tokens("L2", result.usage);
    return result.value;
  }

  async generateProcess(input: Parameters<PipelineLayers["generateProcess"]>[0]): Promise<ProcessStep[]> {
    const result = await this.runner("L3")(
      { client: await this.getClient(), settings: this.settings.L3 },
      {
        promptText: input.promptText,
        task: input.spec,
        ...(input.task.attachments === undefined ? {} : { attachments: input.task.attachments }),
        regeneration: input.previous && { previousSteps: input.previous.steps, rejectionReason: input.previous.rejectionReason },
        previousValidationError: input.validationError,
        now: this.now(),
      },
    );
    this.options.metrics?.tokens("L3", result.usage);
    return result.value;
  }

  private getClient(): Promise<MessagesClient> {
    // A failed creation (secret unreadable) is not cached: the next attempt tries again.
    this.client ??= this.createClient().catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }
}
