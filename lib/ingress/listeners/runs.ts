import type { App } from "@slack/bolt";
import * as z from "zod/mini";
import { cancelExecution, rerunExecution } from "../actions";
import { ActionIds } from "../cards";
import type { BoltDeps } from "./deps";
import { onButton } from "./interaction";

const ExecutionValueSchema = z.object({ taskId: z.string().check(z.minLength(1), z.maxLength(200)), executionNo: z.int().check(z.positive()) });

/** [中止] and [再実行] on an Execution card. */
export function registerRunListeners(app: App, deps: BoltDeps): void {
  const button = { log: deps.log, outsiders: { settings: deps.home.settings, admins: deps.actions.admins } };
  onButton(app, button, ActionIds.cancel, ExecutionValueSchema, (p) => cancelExecution(deps.actions, p.actor, p.value));
  onButton(app, button, ActionIds.rerun, ExecutionValueSchema, (p) => rerunExecution(deps.actions, p.actor, p.value));
}
