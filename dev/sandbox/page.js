"use strict";
// The sandbox page: the channel and a thread, the modal the app opened, the App Home tab, the fault panel.
// Every gesture goes to /sandbox/api/* (dev/local/sandbox-api.ts), which signs it as Slack would; rendering is
// render.js. A click the app answers with an error is shown at the top of the page, as Slack shows it.
// `as`: the member the page acts as (「操作するユーザー」); null = the sandbox's own user.
const state = { openThread: null, modal: null, snapshot: null, tab: "channel", catalogue: null, as: null };
const $ = (id) => document.getElementById(id);

function renderMessage(m, inThread, names) {
  const who = m.bot ? nameOf(names, "USANDBOXBOT") : nameOf(names, m.user || "you");
  const replies = !inThread && m.replyCount ? `<div class="replies" data-thread="${esc(m.ts)}">${m.replyCount} 件の返信</div>` : "";
  const when = m.ephemeral ? "あなただけに表示されています" : `<time title="${esc(m.ts)}">${timeOf(m.ts)}</time>`;
  return `<div class="msg ${m.ephemeral ? "ephemeral" : ""}" data-ts="${esc(m.ts)}">
    <div class="who">${esc(who)}<small>${when}</small></div>
    ${renderBlocks(m.blocks, m.text, { ts: m.ts }, names)}${(m.files || []).map(fileCard).join("")}${replies}</div>`;
}

function render(snapshot) {
  state.snapshot = snapshot;
  const names = snapshot.names || {};
  $("labels").innerHTML = (snapshot.labels || []).map((l) => `<span>${esc(l)}</span>`).join("");
  const top = snapshot.messages.filter((m) => !m.threadTs || m.threadTs === m.ts);
  $("channel").innerHTML = top.map((m) => renderMessage(m, false, names)).join("") || '<div class="empty">まだメッセージはありません。下の欄から依頼を送ってください。</div>';
  if (state.openThread) {
    const parent = snapshot.messages.find((m) => m.ts === state.openThread);
    const replies = snapshot.messages.filter((m) => m.threadTs === state.openThread && m.ts !== state.openThread);
    $("thread-messages").innerHTML = [parent, ...replies].filter(Boolean).map((m) => renderMessage(m, true, names)).join("");
  }
  renderActing(snapshot.members || [], snapshot.actingAs, names);
  renderHome(snapshot.home, names);
  renderArmed(snapshot.faults && snapshot.faults.armed);
  const view = snapshot.openView;
  if (view && (!state.modal || state.modal.id !== view.id || state.modal.drawn !== JSON.stringify(view))) openModal(view, names);
  if (!view && state.modal) closeModal();
}

// ---------------------------------------------------------------- who the page acts as
function renderActing(members, actingAs, names) {
  const select = $("acting-as");
  const drawn = JSON.stringify([members, actingAs]);
  if (select.dataset.drawn === drawn) return;
  select.dataset.drawn = drawn;
  select.innerHTML = members.map((id) => `<option value="${esc(id)}"${id === actingAs ? " selected" : ""}>${esc(nameOf(names, id))}</option>`).join("");
}
$("acting-as").onchange = (e) => {
  state.as = e.target.value;
  // Each member has their own Home: Slack sends app_home_opened when they look at it.
  if (state.tab === "home") post("/sandbox/api/home_opened", {}).then(refresh);
  else refresh();
};

// ---------------------------------------------------------------- App Home
function renderHome(home, names) {
  const pane = $("home");
  // Do not redraw under the user's typing.
  if (pane.contains(document.activeElement) && document.activeElement.tagName === "INPUT") return;
  const drawn = JSON.stringify(home);
  if (pane.dataset.drawn === drawn) return;
  pane.dataset.drawn = drawn;
  pane.innerHTML = home ? renderBlocks(home.blocks, "", { home: true }, names) : '<div class="empty">ホームを読み込んでいます…</div>';
}
function showTab(tab) {
  state.tab = tab;
  for (const t of ["channel", "home"]) {
    $(`tab-${t}`).classList.toggle("active", t === tab);
    $(`pane-${t}`).hidden = t !== tab;
  }
  // Slack sends app_home_opened each time the tab is opened; the app publishes the view for this user.
  if (tab === "home") post("/sandbox/api/home_opened", {}).then(refresh);
}

// ---------------------------------------------------------------- modal
function openModal(view, names) {
  state.modal = { id: view.id, drawn: JSON.stringify(view) };
  const inputs = (view.blocks || []).filter((b) => b.type === "input");
  $("modal").innerHTML = `<h2>${textOf(view.title, names)}</h2>
    ${(view.blocks || []).filter((b) => b.type !== "input").map((b) => renderBlocks([b], "", { viewId: view.id }, names)).join("")}
    ${inputs.map((b) => `${modalInput(b, names)}<div class="error" data-error="${esc(b.block_id)}"></div>`).join("")}
    <footer><button id="modal-cancel">${textOf(view.close, names) || "キャンセル"}</button>${view.submit ? `<button class="primary" id="modal-submit">${textOf(view.submit, names)}</button>` : ""}</footer>`;
  $("modal-cancel").onclick = () => post("/sandbox/api/view_closed", { viewId: view.id }).then(closeModal);
  const submit = $("modal-submit");
  if (submit) submit.onclick = async () => {
    const values = modalValues();
    const res = await post("/sandbox/api/view_submission", { viewId: view.id, values });
    if (res && res.response_action === "errors") {
      for (const [block, message] of Object.entries(res.errors || {})) {
        const el = document.querySelector(`[data-error="${CSS.escape(block)}"]`);
        if (el) el.textContent = message;
      }
      return;
    }
    closeModal();
    refresh();
  };
  $("backdrop").classList.add("open");
}
// An input block as Slack draws it, and its state as Slack submits it (view.state.values[block][action]).
function modalInput(b, names) {
  const el = b.element || {};
  const data = `data-block="${esc(b.block_id)}" data-action="${esc(el.action_id)}" data-type="${esc(el.type)}"`;
  const initial = (el.initial_options || []).map((o) => o.value);
  let control;
  switch (el.type) {
    case "checkboxes":
      control = (el.options || []).map((o) => `<label class="check"><input type="checkbox" ${data} value="${esc(o.value)}" data-text="${esc(o.text.text)}"${initial.includes(o.value) ? " checked" : ""}> ${textOf(o.text, names)}</label>`).join("<br>");
      break;
    case "multi_static_select":
      control = `<select multiple ${data}>${(el.options || []).map((o) => `<option value="${esc(o.value)}"${initial.includes(o.value) ? " selected" : ""}>${esc(o.text.text)}</option>`).join("")}</select>`;
      break;
    case "multi_users_select":
      control = `<input ${data} value="${esc((el.initial_users || []).join(", "))}" placeholder="U…, U…">`;
      break;
    case "number_input":
      control = `<input type="number" ${data} value="${esc(el.initial_value || "")}">`;
      break;
    default:
      control = `<textarea ${data}></textarea>`;
  }
  return `<div class="block input"><b>${textOf(b.label, names)}</b><br>${control}</div>`;
}
function modalValues() {
  const values = {};
  const put = (el, value) => { (values[el.dataset.block] = values[el.dataset.block] || {})[el.dataset.action] = value; };
  document.querySelectorAll("#modal [data-block]").forEach((el) => {
    const type = el.dataset.type;
    if (type === "checkboxes") {
      const now = (values[el.dataset.block] && values[el.dataset.block][el.dataset.action]) || { type, selected_options: [] };
      if (el.checked) now.selected_options.push({ text: { type: "plain_text", text: el.dataset.text }, value: el.value });
      put(el, now);
    } else if (type === "multi_static_select") put(el, { type, selected_options: [...el.selectedOptions].map((o) => ({ text: { type: "plain_text", text: o.textContent }, value: o.value })) });
    else if (type === "multi_users_select") put(el, { type, selected_users: el.value.split(/[\s,、]+/).filter(Boolean) });
    else if (type === "number_input") put(el, { type, value: el.value === "" ? null : el.value });
    else put(el, { type: "plain_text_input", value: el.value });
  });
  return values;
}
function closeModal() {
  state.modal = null;
  $("backdrop").classList.remove("open");
}

// ---------------------------------------------------------------- fault panel
async function loadFaults() {
  const res = await fetch("/sandbox/api/faults");
  if (!res.ok) {
    $("faults").innerHTML = `<p class="note">${esc((await res.json()).error || "障害パネルは使えません")}</p>`;
    return;
  }
  const { catalogue } = await res.json();
  state.catalogue = catalogue;
  const FAMILY = { layer: "L1〜L3（モデル）", preview: "プレビュー（freee の読み取り）", agent: "実行（Managed Agents）", freee: "実行中の freee", approval: "承認（Slack のユーザーグループ）" };
  $("fault-id").innerHTML = Object.entries(FAMILY).map(([family, label]) =>
    `<optgroup label="${esc(label)}">${catalogue.filter((f) => f.family === family).map((f) => `<option value="${esc(f.id)}">${esc(f.label)}</option>`).join("")}</optgroup>`).join("");
  describeFault();
}
function describeFault() {
  const f = state.catalogue && state.catalogue.find((x) => x.id === $("fault-id").value);
  if (f) $("fault-expect").textContent = `→ ${$("fault-mode").value === "once" ? f.once : f.persistent}`;
}
function renderArmed(armed) {
  const el = $("fault-armed");
  const f = armed && state.catalogue && state.catalogue.find((x) => x.id === armed.id);
  el.innerHTML = armed
    ? `<b>待機中:</b> ${esc(f ? f.label : armed.id)}（${armed.mode === "once" ? "1 回だけ" : "次の依頼で毎回"}）<br>発生 ${armed.hits} 回 <button id="fault-clear">解除</button>`
    : "障害なし";
}

// ---------------------------------------------------------------- talking to the sandbox API
function showError(text) {
  const toast = $("toast");
  toast.textContent = `クリックが失敗しました: ${text}`;
  toast.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { toast.hidden = true; }, 10_000);
}
async function post(path, body) {
  let res;
  try {
    res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(state.as ? { ...body, as: state.as } : body) });
  } catch (err) {
    showError(`サンドボックスに届きません（${err.message}）`);
    return undefined;
  }
  const text = await res.text();
  let parsed;
  try { parsed = JSON.parse(text); } catch { parsed = { status: res.status, text }; }
  if (!res.ok) showError(`${parsed.error || `HTTP ${res.status}`}${parsed.body ? ` — ${parsed.body}` : ""}`);
  return parsed;
}
async function refresh() {
  const res = await fetch(`/sandbox/api/state${state.as ? `?as=${encodeURIComponent(state.as)}` : ""}`);
  if (res.ok) render(await res.json());
}

// ---------------------------------------------------------------- composer (a message, with a file if attached)
function attached() {
  return $("file").files[0];
}
function showAttached() {
  const f = attached();
  $("attached").hidden = !f;
  $("attached-name").textContent = f ? `${f.name}（${sizeOf(f.size)}）` : "";
}
/** The chosen file as the sandbox API takes it (base64 of its bytes, from a data: URL). */
function readFile(f) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve({ name: f.name, mimetype: f.type || "application/octet-stream", base64: String(reader.result).slice(String(reader.result).indexOf(",") + 1) });
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(f);
  });
}
$("file").onchange = showAttached;
$("attached-remove").onclick = () => { $("file").value = ""; showAttached(); };
$("composer").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = $("text");
  const text = input.value.trim();
  if (!text) return;
  const f = attached();
  const res = await post("/sandbox/api/message", { text, ...(f ? { file: await readFile(f) } : {}) });
  // Kept on a refusal (a file over 10 MB), so the user can fix it rather than retype.
  if (!res || !res.ts) return;
  input.value = "";
  $("file").value = "";
  showAttached();
  state.openThread = res.ts;
  refresh();
});
$("tab-channel").onclick = () => showTab("channel");
$("tab-home").onclick = () => showTab("home");
$("fault-id").onchange = describeFault;
$("fault-mode").onchange = describeFault;
$("fault-arm").onclick = async () => {
  await post("/sandbox/api/faults/arm", { id: $("fault-id").value, mode: $("fault-mode").value });
  refresh();
};
document.body.addEventListener("keydown", async (e) => {
  const input = e.target.closest && e.target.closest("input[data-dispatch]");
  if (!input || e.key !== "Enter") return;
  e.preventDefault();
  await post("/sandbox/api/action", { ...JSON.parse(input.dataset.dispatch), value: input.value });
  input.blur();
  refresh();
});
document.body.addEventListener("click", async (e) => {
  if (e.target.id === "fault-clear") { await post("/sandbox/api/faults/clear", {}); return refresh(); }
  if (e.target.matches("[data-users-save]")) {
    const input = e.target.parentElement.querySelector("input[data-users]");
    const selected = input.value.split(/[\s,]+/).filter(Boolean);
    await post("/sandbox/api/action", { ...JSON.parse(input.dataset.users), selected_users: selected });
    return refresh();
  }
  const target = e.target.closest("[data-action],[data-thread],.msg");
  if (!target) return;
  if (target.dataset.thread) { state.openThread = target.dataset.thread; return refresh(); }
  if (target.tagName === "BUTTON" && target.dataset.action) {
    const click = JSON.parse(target.dataset.action);
    if (click.confirm && !window.confirm(click.confirm)) return;
    // A link button opens its URL (as Slack does) and still sends the action.
    if (click.url) window.open(click.url, "_blank", "noopener");
    const { url: _url, confirm: _confirm, ...payload } = click;
    target.disabled = true;
    await post("/sandbox/api/action", payload);
    return refresh();
  }
  if (target.classList.contains("msg") && target.closest("#channel")) { state.openThread = target.dataset.ts; refresh(); }
});
setInterval(refresh, 800);
loadFaults().then(refresh);
