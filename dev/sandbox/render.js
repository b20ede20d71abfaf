"use strict";
// Block Kit and mrkdwn as Slack shows them, for the sandbox page (page.js): mentions and channels by name,
// message times in JST, links, emoji shortcodes the app uses. `names` is the page state's user directory.

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const EMOJI = {
  white_check_mark: "✅", x: "❌", warning: "⚠️", hourglass: "⏳", hourglass_flowing_sand: "⏳", black_square_for_stop: "⏹️",
  large_green_circle: "🟢", white_circle: "⚪", grey_question: "❔", arrows_counterclockwise: "🔄", heavy_check_mark: "✔️",
};

/** A user id as Slack shows it: the display name, or the id when the workspace does not know it. */
function nameOf(names, id) {
  return (names && names[id]) || id;
}

/** `<@U…>`, `<#C…|name>`, `<!here>`, `<url|text>`, `<url>` as Slack renders them (input already escaped). */
function slackEntities(html, names) {
  return html
    .replace(/&lt;@([UW][A-Z0-9]+)(?:\|[^&]*)?&gt;/g, (_, id) => `<span class="mention">@${esc(nameOf(names, id))}</span>`)
    .replace(/&lt;!subteam\^(S[A-Z0-9]+)(?:\|[^&]*)?&gt;/g, (_, id) => `<span class="mention">@${esc(nameOf(names, id))}</span>`)
    .replace(/&lt;#(C[A-Z0-9]+)\|([^&]*)&gt;/g, (_, _id, name) => `<span class="mention">#${name}</span>`)
    .replace(/&lt;!(here|channel|everyone)&gt;/g, (_, who) => `<span class="mention">@${who}</span>`)
    .replace(/&lt;(https?:[^|&]+)\|([^&]+)&gt;/g, '<a href="$1" target="_blank" rel="noopener">$2</a>')
    .replace(/&lt;(https?:[^|&]+)&gt;/g, '<a href="$1" target="_blank" rel="noopener">$1</a>');
}

function mrkdwn(text, names) {
  let html = esc(text || "").replace(/:([a-z0-9_+-]+):/g, (m, name) => EMOJI[name] || m);
  html = html.replace(/```([\s\S]*?)```/g, (_, code) => `<pre>${code}</pre>`);
  html = html.replace(/`([^`\n]+)`/g, "<code>$1</code>");
  html = slackEntities(html, names);
  html = html.replace(/(^|[\s(])\*([^*\n]+)\*/g, "$1<b>$2</b>");
  html = html.replace(/(^|[\s(])_([^_\n]+)_/g, "$1<i>$2</i>");
  html = html.replace(/(^|[\s(])~([^~\n]+)~/g, "$1<s>$2</s>");
  return html.replace(/\n/g, "<br>");
}

const textOf = (t, names) => (t ? (t.type === "mrkdwn" ? mrkdwn(t.text, names) : esc(t.text)) : "");

/** A message ts (epoch seconds) as Slack shows it: the JST time, with the date when it is not today. */
function timeOf(ts) {
  const at = new Date(Number(ts) * 1000);
  if (Number.isNaN(at.getTime())) return esc(ts);
  const opts = { timeZone: "Asia/Tokyo" };
  const day = (d) => d.toLocaleDateString("ja-JP", { ...opts, year: "numeric", month: "2-digit", day: "2-digit" });
  const time = at.toLocaleTimeString("ja-JP", { ...opts, hour: "2-digit", minute: "2-digit" });
  return day(at) === day(new Date()) ? time : `${day(at)} ${time}`;
}

/**
 * Blocks to HTML. `where` says what a button belongs to: { ts } a message, { viewId } a modal, { home: true }
 * the Home tab. Buttons carry their click as data-action (JSON) for page.js.
 */
function renderBlocks(blocks, fallback, where, names) {
  if (!blocks || blocks.length === 0) return `<div class="block">${mrkdwn(fallback, names)}</div>`;
  return blocks.map((b) => {
    switch (b.type) {
      case "header": return `<div class="block header">${textOf(b.text, names)}</div>`;
      case "divider": return `<div class="block divider"></div>`;
      case "context": return `<div class="block context">${(b.elements || []).map((e) => e.type === "image" ? "" : textOf(e, names)).join(" ")}</div>`;
      case "section": {
        const fields = b.fields ? `<div class="fields">${b.fields.map((f) => `<div>${textOf(f, names)}</div>`).join("")}</div>` : "";
        return `<div class="block section">${textOf(b.text, names)}${fields}${b.accessory ? element(b.accessory, b, where, names) : ""}</div>`;
      }
      case "actions": return `<div class="block actions">${(b.elements || []).map((e) => element(e, b, where, names)).join("")}</div>`;
      case "input": return where.home ? homeInput(b, names) : "";
      case "rich_text": return `<div class="block">${esc(JSON.stringify(b))}</div>`;
      default: return `<div class="block context">[${esc(b.type)}]</div>`;
    }
  }).join("");
}

function element(el, block, where, names) {
  if (el.type === "button") {
    const click = { action_id: el.action_id, block_id: block.block_id, value: el.value, text: el.text && el.text.text, ...clickTarget(where) };
    // A button with a confirm dialog asks first, on every surface, as Slack does (its title, then its text).
    if (el.confirm && el.confirm.text) click.confirm = [el.confirm.title && el.confirm.title.text, el.confirm.text.text].filter(Boolean).join("\n\n");
    if (where.home) Object.assign(click, { type: "button", url: el.url });
    return `<button class="${esc(el.style || "")}" data-action="${esc(JSON.stringify(click))}">${textOf(el.text, names)}</button>`;
  }
  if (el.type === "multi_users_select" && where.home) {
    const click = { surface: "home", type: "multi_users_select", action_id: el.action_id, block_id: block.block_id };
    const current = (el.initial_users || []).join(", ");
    const shown = (el.initial_users || []).map((u) => `@${esc(nameOf(names, u))}`).join(" ") || "（なし）";
    return `<div class="users-select"><span>${shown}</span> <input data-users="${esc(JSON.stringify(click))}" value="${esc(current)}" placeholder="${esc((el.placeholder && el.placeholder.text) || "U…")}"> <button data-users-save>保存</button></div>`;
  }
  return `<span class="context">[${esc(el.type)}]</span>`;
}

function homeInput(b, names) {
  const el = b.element || {};
  const click = { surface: "home", type: "plain_text_input", action_id: el.action_id, block_id: b.block_id };
  return `<div class="block input"><label><b>${textOf(b.label, names)}</b><br>
    <input data-dispatch="${esc(JSON.stringify(click))}" value="${esc(el.initial_value || "")}" placeholder="${esc((el.placeholder && el.placeholder.text) || "")}"></label>
    ${b.hint ? `<div class="context">${textOf(b.hint, names)}</div>` : ""}</div>`;
}

/**
 * A file on a message, as Slack shows one: its kind, name, type and size. A user's shared file carries them all;
 * the app's upload (a CSV of a long read) only id, name and title, so its type comes from the name.
 */
function fileCard(f) {
  const image = String(f.mimetype || "").startsWith("image/");
  const ext = String(f.name || "").includes(".") ? String(f.name).split(".").pop() : "";
  const facts = [String(f.filetype || ext).toUpperCase(), sizeOf(f.size)].filter(Boolean).join(" · ");
  return `<div class="file" data-file="${esc(f.id)}"><span class="icon">${image ? "🖼️" : "📄"}</span><div><b>${esc(f.title || f.name)}</b><small>${esc(facts)}</small></div></div>`;
}
function sizeOf(bytes) {
  if (typeof bytes !== "number") return "";
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function clickTarget(where) {
  if (where.home) return { surface: "home" };
  return where.viewId ? { viewId: where.viewId } : { ts: where.ts };
}
