import type { ProcessVersion, ProcessStep } from "../core/domain/records";
import type { PlanFacts, PolicyDomain } from "../core/domain/approval-policy";
import { AGENT_DECIDE, effectOfStep, toolSummary } from "../freee/tools/summaries";

/** freee's API families, by path: 人事労務 /hr/…, 請求書 /iv/… (and accounting's own invoice paths), else 会計. */
export function domainOfPath(path: string): PolicyDomain {
  if (path.startsWith("/hr/")) return "hr";
  if (path.startsWith("/iv/") || /^\/api\/1\/(invoices|quotations)(\/|$)/.test(path)) return "invoices";
  return "accounting";
}

/** The domains a step touches: a typed tool's operation path, a generic tool's `path`, an agent_decide step's scope. */
export function domainsOfStep(step: Pick<ProcessStep, "tool" | "toolInput" | "readScope">): PolicyDomain[] {
  if (step.tool === AGENT_DECIDE) {
    const scope = step.readScope;
    const fromTools = (scope?.tools ?? []).flatMap((t) => domainsOfStep({ tool: t, toolInput: {} }));
    const fromPaths = (scope?.pathPrefixes ?? []).map(domainOfPath);
    return [...new Set([...fromTools, ...fromPaths])];
  }
  const operation = toolSummary(step.tool)?.operation;
  const path = operation !== undefined ? operation.split(" ")[1] : typeof step.toolInput.path === "string" ? step.toolInput.path : undefined;
  // A generic read without a path (it fails validation anyway) reads nothing the policy could place: 会計.
  return [path === undefined ? "accounting" : domainOfPath(path)];
}

const YEN = /^-?[\d,]+円$/;

/**
 * What the approval policy judges a plan by (lib/core/domain/approval-policy.ts). The total is each write step's
 * largest yen amount in its change table, summed: the one number an approver reads as 「いくら動くか」.
 * `warnings` are the change table's warning codes; the preview does not export codes yet, so callers pass them.
 */
export function planFacts(record: Pick<ProcessVersion, "steps" | "preview">, warnings: readonly string[]): PlanFacts {
  const steps = record.steps ?? [];
  const writeDomains = new Set<PolicyDomain>();
  const readDomains = new Set<PolicyDomain>();
  for (const step of steps) for (const d of domainsOfStep(step)) (effectOfStep(step) === "write" ? writeDomains : readDomains).add(d);
  // A write the preview dropped still puts its values on the card (「340,000円 → 340,000円」): its domain counts, so
  // an HR card in a public channel is masked even when every HR write was dropped.
  for (const d of record.preview?.dropped ?? []) for (const domain of domainsOfStep({ tool: d.tool, toolInput: d.path === undefined ? {} : { path: d.path } })) writeDomains.add(domain);
  let total: number | undefined;
  for (const step of record.preview?.steps ?? []) {
    const amounts = step.changes.map((c) => c.after.trim()).filter((a) => YEN.test(a)).map((a) => Math.abs(Number(a.replace(/[,円]/g, ""))));
    if (amounts.length > 0) total = (total ?? 0) + Math.max(...amounts);
  }
  return { writeDomains: [...writeDomains].sort(), readDomains: [...readDomains].sort(), warnings: [...warnings], ...(total === undefined ? { totalYen: undefined } : { totalYen: total }) };
}

/**
 * The change table's warnings the two-person rule counts: today each write step's preview warnings (a text per
 * warning). When the preview exports warning codes, they replace this one line.
 */
export function planWarnings(record: Pick<ProcessVersion, "preview">): string[] {
  return (record.preview?.steps ?? []).flatMap((s) => s.warnings);
}
