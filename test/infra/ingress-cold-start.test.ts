import { expect, it } from "vitest";
import { INGRESS_BUNDLING, LAMBDA_BUNDLING, WEB_BUNDLING } from "../../infra/bundling";
import { synthTemplate } from "./synth";

const { stack, template } = synthTemplate();
const fns = Object.values(template.findResources("AWS::Lambda::Function")) as Array<{ Properties: { Environment: { Variables: Record<string, unknown> } } }>;
const envOf = (service: string) => fns.find((f) => f.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME === service)!.Properties.Environment.Variables;

it("the ingress starts without parsing its source map (3 s budget incl. cold start); the step Lambdas keep readable traces", () => {
  expect(envOf("ingress").NODE_OPTIONS).toBeUndefined();
  expect(envOf("generate-prompt").NODE_OPTIONS).toBe("--enable-source-maps");
  expect(envOf("freee-mcp").NODE_OPTIONS).toBe("--enable-source-maps");
});

it("the ingress is bundled without Bolt's unused receivers (INGRESS_BUNDLING, as the bench and test/bundle build it); the others plainly", () => {
  expect(stack.functions.ingress.bundling).toBe(INGRESS_BUNDLING);
  expect(stack.functions.web.bundling).toBe(WEB_BUNDLING);
  expect(stack.functions["generate-prompt"].bundling).toBe(LAMBDA_BUNDLING);
  expect(stack.functions["freee-mcp"].bundling).toBe(LAMBDA_BUNDLING);
});
