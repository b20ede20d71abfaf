import { describe, expect, it } from "vitest";
import { synthTemplate } from "./synth";

/**
 * Least privilege on the token key and the bearer secret, read from the synthesized template: who may Decrypt
 * freee tokens (encryption context `{ teamId[, purpose] }`), who may open Slack installations (`{ installation }`),
 * and who may read MCP_BEARER_SECRET (where bearers are minted — StartSession — or checked — the MCP server).
 */
const { stack, template } = synthTemplate();
const resources = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);
type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
type Name = keyof typeof stack.functions;
const NAMES = Object.keys(stack.functions) as Name[];

function statementsOf(name: Name): Statement[] {
  const role = logicalId(stack.functions[name].role);
  return Object.values(resources)
    .filter((r) => r.Type === "AWS::IAM::Policy" && (r.Properties.Roles as { Ref: string }[]).some((x) => x.Ref === role))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}
const tokenKeyArn = JSON.stringify({ "Fn::GetAtt": [logicalId(stack.data.tokenKey), "Arn"] });
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** The context keys a token-key statement allows `action` with; "any" for a statement without the condition. */
function contexts(name: Name, action: string): Array<string[] | "any"> {
  return statementsOf(name)
    .filter((s) => JSON.stringify(s.Resource).includes(tokenKeyArn) && actions(s).includes(action))
    .map((s) => {
      const keys = s.Condition?.["ForAllValues:StringEquals"]?.["kms:EncryptionContextKeys"] as string[] | undefined;
      return keys === undefined || s.Condition?.Null?.["kms:EncryptionContextKeys"] !== "false" ? "any" : keys;
    });
}
const mayOpenFreeeTokens = (name: Name) => contexts(name, "kms:Decrypt").some((c) => c === "any" || c.includes("teamId"));

describe("the token key", () => {
  it("every grant on it is conditioned on its encryption context's keys", () => {
    for (const name of NAMES) for (const action of ["kms:Decrypt", "kms:Encrypt"]) expect(contexts(name, action), `${name} ${action}`).not.toContain("any");
  });

  it("only the Lambdas that call freee open freee tokens: no public Lambda, nor RecordPipelineFailure or ReconcileExecution", () => {
    expect(NAMES.filter(mayOpenFreeeTokens).sort()).toEqual(["freee-mcp", "preview-process", "refresh-freee-tokens"]);
    for (const name of ["ingress", "web", "record-pipeline-failure", "reconcile-execution"] as const) expect(mayOpenFreeeTokens(name), name).toBe(false);
  });

  it("the connect callback seals freee tokens without being able to open them; installations stay openable for cards", () => {
    expect(contexts("web", "kms:Encrypt")).toContainEqual(["teamId", "purpose"]);
    for (const name of ["ingress", "web", "reconcile-execution", "poll-session", "freee-mcp"] as const) expect(contexts(name, "kms:Decrypt"), name).toContainEqual(["installation"]);
  });
});

describe("MCP_BEARER_SECRET", () => {
  it("is readable only where bearers are minted (StartSession) or checked (the MCP server)", () => {
    const secretRef = JSON.stringify({ Ref: logicalId(stack.data.secrets.MCP_BEARER_SECRET) });
    const readers = NAMES.filter((n) => statementsOf(n).some((s) => actions(s).includes("secretsmanager:GetSecretValue") && JSON.stringify(s.Resource).includes(secretRef)));
    expect(readers.sort()).toEqual(["freee-mcp", "start-session"]);
    for (const name of NAMES.filter((n) => !readers.includes(n))) {
      const env = resources[logicalId(stack.functions[name].fn)]?.Properties.Environment?.Variables ?? {};
      expect(env.MCP_BEARER_SECRET_SECRET_ARN, name).toBeUndefined();
    }
  });
});
