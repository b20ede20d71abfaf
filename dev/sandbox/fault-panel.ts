import { startFaultProxy, type FaultProxy } from "../chaos/fault-proxy";
import type { FakeAnthropic } from "../fakes/anthropic/fake-anthropic";
import type { FakeSession } from "../fakes/anthropic/sessions";
import { sleep } from "../fakes/http";
import { SLACK_CALL } from "../../lib/core/config/client-budgets";
import type { FakeSlack } from "../fakes/slack/fake-slack";
import { faultCatalogue, type CatalogueSettings, type FaultSpec, type SessionFault } from "./fault-catalogue";

/**
 * The fault panel's machinery: dev/chaos's fault proxies in front of the sandbox's model and freee (each
 * consumer — a step Lambda, the MCP server, the ingress — reaches them under its own `/@<consumer>` prefix, so
 * a fault can be aimed at the preview or the run), plus the scripted session's ways to end badly.
 * One fault is armed at a time:
 *   once — it hits the first matching request only: the retry row shows the recovery;
 *   every — it hits every matching request of the next task (all retries, a rerun too): the user message shows.
 * A fault that has hit is put away when the next request is posted, so it belongs to one task.
 */
export type FaultMode = "once" | "every";

export interface ArmedFault {
  id: string;
  mode: FaultMode;
  hits: number;
  armedAt: string;
  /** A posted request has been seen since arming (an `every` fault is put away at the one after). */
  sawRequest: boolean;
}

export interface SandboxFaults {
  consumerEnv(consumer: string, env: Readonly<Record<string, string>>): Record<string, string>;
  catalogue: readonly FaultSpec[];
  armed(): ArmedFault | undefined;
  arm(id: string, mode: FaultMode): ArmedFault;
  clear(): void;
  /** The page posted a request. */
  onRequest(): void;
  /** A new Managed Agents session: the armed session fault to play instead of the steps, if any. */
  takeSessionFault(): SessionFault | undefined;
  close(): Promise<void>;
}

export class UnknownFaultError extends Error {
  override readonly name: string = "UnknownFaultError";
}

/** Where the proxies forward: the sandbox's own mounts of the fakes. */
export interface FaultTargets {
  anthropic: string;
  freee: string;
}

const ROUTED: ReadonlyArray<{ key: string; proxy: "anthropic" | "freee" }> = [
  { key: "ANTHROPIC_BASE_URL", proxy: "anthropic" },
  { key: "FREEE_API_BASE_URL", proxy: "freee" },
  { key: "FREEE_OAUTH_BASE_URL", proxy: "freee" },
];

export async function startSandboxFaults(targets: FaultTargets, settings: CatalogueSettings, slack?: Pick<FakeSlack, "failNext" | "callsTo">): Promise<SandboxFaults> {
  const [anthropic, freee] = await Promise.all([
    startFaultProxy({ dependency: "Anthropic Messages", target: targets.anthropic, phases: () => [] }),
    startFaultProxy({ dependency: "freee", target: targets.freee, phases: () => [] }),
  ]);
  const proxies: Record<"anthropic" | "freee", FaultProxy> = { anthropic, freee };
  const catalogue = faultCatalogue(settings);
  let current: (ArmedFault & { token: symbol }) | undefined;
  /** The armed Slack fault: its method, and its hits counted from the fake's record of failed calls. */
  let slackFault: { method: string; hits: () => number } | undefined;
  const slackHits = () => slackFault?.hits();
  /** Put the armed fault away; a Slack fault's remaining failures are taken back from the fake. */
  const putAway = () => {
    current = undefined;
    if (slackFault !== undefined) slack?.failNext(slackFault.method, { times: 0 });
    slackFault = undefined;
  };
  const withHits = (armed: ArmedFault & { token: symbol }) => ({ ...view(armed), hits: slackHits() ?? armed.hits });

  const live = (token: symbol) => current !== undefined && current.token === token;
  return {
    catalogue,
    consumerEnv(consumer, env) {
      const out = { ...env };
      for (const { key, proxy } of ROUTED) {
        const real = env[key];
        const target = proxy === "anthropic" ? targets.anthropic : targets.freee;
        // Only the sandbox's own fakes sit behind the panel (a real API is never faulted from here).
        if (real === undefined || real.replace(/\/+$/, "") !== target) continue;
        out[key] = `${proxies[proxy].url}/@${consumer}${real.endsWith("/") ? "/" : ""}`;
      }
      return out;
    },
    armed: () => (current === undefined ? undefined : withHits(current)),
    arm(id, mode) {
      const spec = catalogue.find((f) => f.id === id);
      if (spec === undefined) throw new UnknownFaultError(`no fault ${id}`);
      const token = Symbol(id);
      putAway();
      current = { id, mode, hits: 0, armedAt: new Date().toISOString(), sawRequest: false, token };
      if (spec.slack !== undefined) {
        if (slack === undefined) throw new UnknownFaultError(`${id} needs the sandbox's Slack`);
        // The fake fails the method's next calls (once: each attempt of one click's lookup); hits are its failed calls.
        const { method, status } = spec.slack;
        const since = Date.now();
        slack.failNext(method, { status, times: mode === "once" ? SLACK_CALL.attempts : Number.POSITIVE_INFINITY });
        slackFault = { method, hits: () => slack.callsTo(method).filter((c) => c.at >= since && c.error !== undefined).length };
      }
      for (const p of spec.proxy ?? []) {
        proxies[p.dependency === "freee" ? "freee" : "anthropic"].arm({
          ...p.rule,
          times: mode === "once" ? 1 : Number.POSITIVE_INFINITY,
          // Called by the proxy only for a rule with hits left: true here is a hit.
          when: (request) => {
            if (!live(token) || !p.when(request)) return false;
            current!.hits += 1;
            return true;
          },
        });
      }
      return withHits(current);
    },
    clear() {
      putAway();
    },
    onRequest() {
      if (current === undefined) return;
      if (current.sawRequest && withHits(current).hits > 0) putAway();
      else current.sawRequest = true;
    },
    takeSessionFault() {
      const spec = current === undefined ? undefined : catalogue.find((f) => f.id === current!.id);
      if (current === undefined || spec?.session === undefined) return undefined;
      if (current.mode === "once" && current.hits > 0) return undefined;
      current.hits += 1;
      return spec.session;
    },
    close: async () => {
      await Promise.all([anthropic.close(), freee.close()]);
    },
  };
}

function view(armed: ArmedFault & { token?: symbol }): ArmedFault {
  const { token: _token, ...rest } = armed;
  return { ...rest };
}

/**
 * The scripted session ends as the fault says instead of playing the steps: a terminal session.error, an idle
 * turn that waits for a confirmation (requires_action), or running on without an end (the run's timeout ends it).
 */
export async function playSessionFault(kind: SessionFault, session: FakeSession, api: FakeAnthropic, delayMs: number): Promise<void> {
  await sleep(delayMs);
  if (session.interrupted) return;
  switch (kind) {
    case "session_error":
      api.push(session, [{ type: "session.error", error: { type: "unknown_error", message: "sandbox fault: the session failed", retry_status: { type: "terminal" } } }, { type: "session.status_terminated" }]);
      return;
    case "requires_action": {
      const [use] = api.push(session, [{ type: "agent.mcp_tool_use", name: "freee_hr_update_basic_pay_rule", input: {}, mcp_server_name: "freee", evaluated_permission: "ask" }]);
      api.push(session, [{ type: "session.status_idle", stop_reason: { type: "requires_action", event_ids: [use?.id ?? "sevt_unknown"] }, stop_details: null }]);
      return;
    }
    case "run_timeout":
      // Still running: only the run's timeout (RUN_TIMEOUT_SECONDS) ends it, with a user.interrupt.
      api.push(session, [{ type: "agent.message", content: [{ type: "text", text: "（サンドボックスの障害: このセッションは終わりません）" }] }]);
      return;
  }
}
