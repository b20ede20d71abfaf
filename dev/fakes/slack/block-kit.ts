/**
 * Slack's Block Kit limits, as the Web API enforces them, with Slack's own error texts
 * (`must be less than 3001 characters [json-pointer:/blocks/0/text/text]`, `no more than 50 items allowed
 * [json-pointer:/blocks]`). A message answers `invalid_blocks` with them, a view `invalid_arguments`.
 * The limits are Slack's documented ones (Block Kit reference: blocks, elements, composition objects, views).
 */

export type Surface = "message" | "modal" | "home";

const BLOCKS_PER_SURFACE: Record<Surface, number> = { message: 50, modal: 100, home: 100 };

const KNOWN_BLOCKS = new Set(["section", "header", "divider", "context", "actions", "input", "image", "rich_text", "markdown", "file", "video"]);

type Node = Record<string, unknown>;

class Collector {
  readonly errors: string[] = [];
  add(message: string, pointer: string): void {
    this.errors.push(`${message} [json-pointer:${pointer}]`);
  }
  maxLength(value: unknown, max: number, pointer: string): void {
    if (typeof value === "string" && [...value].length > max) this.add(`must be less than ${max + 1} characters`, pointer);
  }
  maxItems(value: unknown, max: number, pointer: string): void {
    if (Array.isArray(value) && value.length > max) this.add(`no more than ${max} items allowed`, pointer);
  }
  required(node: Node, key: string, pointer: string): boolean {
    if (node[key] === undefined || node[key] === null) {
      this.add(`missing required field: ${key}`, pointer);
      return false;
    }
    return true;
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A text composition object: plain_text or mrkdwn, non-empty, at most `max` characters. */
function text(c: Collector, value: unknown, pointer: string, max: number, plainOnly = false): void {
  if (!isNode(value)) {
    c.add("must provide an object", pointer);
    return;
  }
  const types = plainOnly ? ["plain_text"] : ["plain_text", "mrkdwn"];
  if (!types.includes(String(value.type))) c.add(`must be one of ${types.map((t) => `"${t}"`).join(", ")}`, `${pointer}/type`);
  if (typeof value.text !== "string" || value.text.length === 0) c.add("must be more than 0 characters", `${pointer}/text`);
  c.maxLength(value.text, max, `${pointer}/text`);
}

function element(c: Collector, el: unknown, pointer: string): void {
  if (!isNode(el)) return c.add("must provide an object", pointer);
  c.maxLength(el.action_id, 255, `${pointer}/action_id`);
  switch (el.type) {
    case "button":
      if (c.required(el, "text", pointer)) text(c, el.text, `${pointer}/text`, 75, true);
      c.maxLength(el.value, 2000, `${pointer}/value`);
      c.maxLength(el.url, 3000, `${pointer}/url`);
      if (el.style !== undefined && el.style !== "primary" && el.style !== "danger") c.add('must be one of "primary", "danger"', `${pointer}/style`);
      if (isNode(el.confirm)) confirm(c, el.confirm, `${pointer}/confirm`);
      return;
    case "plain_text_input":
      if (el.placeholder !== undefined) text(c, el.placeholder, `${pointer}/placeholder`, 150, true);
      c.maxLength(el.initial_value, 3000, `${pointer}/initial_value`);
      if (typeof el.max_length === "number" && el.max_length > 3000) c.add("must be less than 3001", `${pointer}/max_length`);
      return;
    case "static_select":
    case "multi_static_select":
    case "overflow":
    case "radio_buttons":
    case "checkboxes":
      options(c, el, pointer, el.type === "overflow" ? 5 : el.type === "static_select" || el.type === "multi_static_select" ? 100 : 10);
      return;
    case "number_input":
      // Slack requires it, and checks the initial value against the bounds and the decimal rule.
      if (typeof el.is_decimal_allowed !== "boolean") c.add("missing required field: is_decimal_allowed", pointer);
      if (el.initial_value !== undefined && (typeof el.initial_value !== "string" || !(el.is_decimal_allowed === true ? /^-?\d+(\.\d+)?$/ : /^-?\d+$/).test(el.initial_value))) c.add("must be a valid number", `${pointer}/initial_value`);
      if (typeof el.initial_value === "string" && typeof el.min_value === "string" && Number(el.initial_value) < Number(el.min_value)) c.add("must be greater than or equal to min_value", `${pointer}/initial_value`);
      return;
    case "image":
    case "datepicker":
    case "timepicker":
    case "users_select":
    case "conversations_select":
    case "channels_select":
    case "multi_users_select":
    case "multi_conversations_select":
    case "multi_channels_select":
    case "multi_external_select":
    case "external_select":
    case "datetimepicker":
    case "email_text_input":
    case "url_text_input":
    case "rich_text_input":
    case "file_input":
    case "mrkdwn":
    case "plain_text":
      return;
    default:
      c.add(`unsupported type: ${String(el.type)}`, `${pointer}/type`);
  }
}

/**
 * A select's or checkbox group's options: at least one (a static select may use option_groups instead), at most
 * `max`, each with plain text of at most 75 characters and a value of at most 150 and unique; `initial_options` /
 * `initial_option` only options the element offers (Slack compares the whole option object).
 */
function options(c: Collector, el: Node, pointer: string, max: number): void {
  const list = el.options;
  if (list === undefined && el.option_groups !== undefined && (el.type === "static_select" || el.type === "multi_static_select")) return;
  if (!Array.isArray(list) || list.length === 0) return c.add("must provide at least 1 item", `${pointer}/options`);
  c.maxItems(list, max, `${pointer}/options`);
  list.forEach((o, i) => {
    if (!isNode(o)) return c.add("must provide an object", `${pointer}/options/${i}`);
    text(c, o.text, `${pointer}/options/${i}/text`, 75, el.type !== "checkboxes" && el.type !== "radio_buttons");
    if (typeof o.value !== "string" || o.value.length === 0) c.add("must be more than 0 characters", `${pointer}/options/${i}/value`);
    c.maxLength(o.value, 150, `${pointer}/options/${i}/value`);
  });
  const values = list.filter(isNode).map((o) => o.value);
  if (new Set(values).size !== values.length) c.add("option values must be unique", `${pointer}/options`);
  const offered = new Set(list.map((o) => JSON.stringify(o)));
  const initial = el.initial_options ?? (el.initial_option === undefined ? [] : [el.initial_option]);
  if (!Array.isArray(initial)) return c.add("must provide an array", `${pointer}/initial_options`);
  if (initial.length === 0 && el.initial_options !== undefined) c.add("must provide at least 1 item", `${pointer}/initial_options`);
  initial.forEach((o, i) => {
    if (!offered.has(JSON.stringify(o))) c.add("must match one of the provided options", `${pointer}/initial_options/${i}`);
  });
}

function confirm(c: Collector, node: Node, pointer: string): void {
  if (c.required(node, "title", pointer)) text(c, node.title, `${pointer}/title`, 100, true);
  if (c.required(node, "text", pointer)) text(c, node.text, `${pointer}/text`, 300);
  if (c.required(node, "confirm", pointer)) text(c, node.confirm, `${pointer}/confirm`, 30, true);
  if (c.required(node, "deny", pointer)) text(c, node.deny, `${pointer}/deny`, 30, true);
}

function block(c: Collector, b: unknown, pointer: string): void {
  if (!isNode(b)) return c.add("must provide an object", pointer);
  if (!KNOWN_BLOCKS.has(String(b.type))) return c.add(`unsupported type: ${String(b.type)}`, `${pointer}/type`);
  c.maxLength(b.block_id, 255, `${pointer}/block_id`);
  switch (b.type) {
    case "section":
      if (b.text === undefined && b.fields === undefined) c.add("must provide either text or fields", pointer);
      if (b.text !== undefined) text(c, b.text, `${pointer}/text`, 3000);
      if (Array.isArray(b.fields)) {
        c.maxItems(b.fields, 10, `${pointer}/fields`);
        b.fields.forEach((f, i) => text(c, f, `${pointer}/fields/${i}`, 2000));
      }
      if (b.accessory !== undefined) element(c, b.accessory, `${pointer}/accessory`);
      return;
    case "header":
      if (c.required(b, "text", pointer)) text(c, b.text, `${pointer}/text`, 150, true);
      return;
    case "context":
      if (!Array.isArray(b.elements) || b.elements.length === 0) return c.add("must provide at least 1 item", `${pointer}/elements`);
      c.maxItems(b.elements, 10, `${pointer}/elements`);
      b.elements.forEach((e, i) => (isNode(e) && (e.type === "mrkdwn" || e.type === "plain_text") ? text(c, e, `${pointer}/elements/${i}`, 3000) : element(c, e, `${pointer}/elements/${i}`)));
      return;
    case "actions":
      if (!Array.isArray(b.elements) || b.elements.length === 0) return c.add("must provide at least 1 item", `${pointer}/elements`);
      c.maxItems(b.elements, 25, `${pointer}/elements`);
      b.elements.forEach((e, i) => element(c, e, `${pointer}/elements/${i}`));
      return;
    case "input":
      if (c.required(b, "label", pointer)) text(c, b.label, `${pointer}/label`, 2000, true);
      if (b.hint !== undefined) text(c, b.hint, `${pointer}/hint`, 2000, true);
      if (c.required(b, "element", pointer)) element(c, b.element, `${pointer}/element`);
      return;
    case "markdown":
      c.maxLength(b.text, 12_000, `${pointer}/text`);
      return;
    default:
      return;
  }
}

/** Errors of a `blocks` array on a surface, pointers rooted at `root` (`/blocks`, `/view/blocks`). */
export function checkBlocks(blocks: unknown, surface: Surface, root = "/blocks"): string[] {
  const c = new Collector();
  if (!Array.isArray(blocks)) {
    c.add("must provide an array", root);
    return c.errors;
  }
  c.maxItems(blocks, BLOCKS_PER_SURFACE[surface], root);
  blocks.forEach((b, i) => block(c, b, `${root}/${i}`));
  const ids = blocks.filter(isNode).map((b) => b.block_id).filter((id) => id !== undefined);
  if (new Set(ids).size !== ids.length) c.add("block_id must be unique", root);
  return c.errors;
}

/** Errors of a modal or Home tab view (views.open / views.update / views.publish). */
export function checkView(view: unknown): string[] {
  const c = new Collector();
  if (!isNode(view)) {
    c.add("must provide an object", "/view");
    return c.errors;
  }
  const type = view.type;
  if (type !== "modal" && type !== "home") {
    c.add('must be one of "modal", "home"', "/view/type");
    return c.errors;
  }
  if (type === "modal") {
    if (c.required(view, "title", "/view")) text(c, view.title, "/view/title", 24, true);
    if (view.submit !== undefined) text(c, view.submit, "/view/submit", 24, true);
    if (view.close !== undefined) text(c, view.close, "/view/close", 24, true);
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isNode(b) && b.type === "input");
    if (hasInput && view.submit === undefined) c.add("must provide submit when blocks contain input", "/view/submit");
  }
  c.maxLength(view.private_metadata, 3000, "/view/private_metadata");
  c.maxLength(view.callback_id, 255, "/view/callback_id");
  c.maxLength(view.external_id, 255, "/view/external_id");
  return [...c.errors, ...checkBlocks(view.blocks, type, "/view/blocks")];
}
