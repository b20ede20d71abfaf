/** The one Anthropic fake (Messages + Managed Agents): see fake-anthropic.ts. */
export * from "./fake-anthropic";
export * from "./messages";
export * from "./sessions";
import { FakeAnthropic, type FakeAnthropicOptions } from "./fake-anthropic";

/** The same fake, started for a test that drives Managed Agents (one base URL serves both APIs). */
export async function startFakeManagedAgents(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  return new FakeAnthropic(options).start();
}
