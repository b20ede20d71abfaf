import { getPath } from "../freee/tools/normalise";

/**
 * Writing a resolved id into a step's input at the dotted path its `nameRefs` entry names (`employee_id`,
 * `details.0.account_item_id`); reading uses the registry's `getPath`.
 */

/** Sets the value where the parent exists; false when the path leads nowhere. */
export function setAt(root: Record<string, unknown>, field: string, value: unknown): boolean {
  const parts = field.split(".");
  const last = parts.pop();
  if (last === undefined || last === "") return false;
  const parent = parts.length === 0 ? root : getPath(root, parts.join("."));
  if (parent === null || typeof parent !== "object") return false;
  (parent as Record<string, unknown>)[last] = value;
  return true;
}
