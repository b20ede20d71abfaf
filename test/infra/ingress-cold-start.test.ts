import { expect, it } from "vitest";
import { synthTemplate } from "./synth";

const { template } = synthTemplate();
const fns = Object.values(template.findResources("AWS::Lambda::Function")) as Array<{ Properties: { Environment: { Variables: Record<string, unknown> } } }>;
const envOf = (service: string) => fns.find((f) => f.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME === service)!.Properties.Environment.Variables;

it("the ingress starts without parsing its source map (3 s budget incl. cold start); the step Lambdas keep readable traces", () => {
  expect(envOf("ingress").NODE_OPTIONS).toBeUndefined();
  expect(envOf("generate-prompt").NODE_OPTIONS).toBe("--enable-source-maps");
  expect(envOf("freee-mcp").NODE_OPTIONS).toBe("--enable-source-maps");
});
