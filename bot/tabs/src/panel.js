// The item panel (a modal dialog): where a synced item lives, every field editable, attachments,
// discussion, history; and the same form empty for New bug / New task.
import { ApiError, call, local, upload } from "./api.js";
import { announce, h, replace, textOfHtml, uniqueId } from "./dom.js";
import { KINDS, dateInput, formatDate, select } from "./fields.js";
import { syncedLine } from "./synced.js";

const TEXT_FIELDS = [["owner", "Owner"], ["effort", "Effort"], ["phaseName", "Phase"], ["bucketName", "Bucket"]];
const DATE_FIELDS = [["startDate", "Start date"], ["dueDate", "Due date"], ["completedDate", "Completed"]];

function field(label, control) {
  const id = uniqueId("field");
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

function dialog(titleText, onClose) {
  const title = uniqueId("dialog-title");
  const element = h("dialog", { class: "panel", "aria-labelledby": title, onclose: () => { element.remove(); onClose?.(); } },
    h("div", { class: "panel-head" },
      h("h2", { id: title }, titleText),
      h("button", { type: "button", class: "close", "aria-label": "Close", onclick: () => element.close() }, "×")));
  document.body.append(element);
  return element;
}

// The form's fields as the API takes them; `item` fills them (null: a new item's defaults).
function itemForm(kind, choices, item, onSubmit, submitText) {
  const { statuses, priorities, severities, users } = choices;
  const primary = (values) => values.find((value) => value.primary)?.name ?? values[0]?.name;
  const name = h("input", { name: "name", required: true, maxLength: 255, value: item?.name ?? "" });
  const body = h("textarea", { name: "body", rows: 5 });
  body.value = item?.body ?? "";
  const assignees = h("select", { name: "assignedTo", multiple: true, size: Math.min(5, Math.max(2, users.length)) },
    users.map((user) => h("option", { value: user._id, selected: (item?.assignedTo ?? []).some((a) => a._id === user._id) }, user.displayName ?? user.email)));
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const form = h("form", { class: "item-form" },
    field("Title", name),
    field("Description", body),
    h("div", { class: "grid" },
      field("Status", select("Status", statuses.map((s) => s.name).concat(item && !statuses.some((s) => s.name === item.status) ? [item.status] : []), item?.status ?? primary(statuses), { name: "status" })),
      field("Priority", select("Priority", priorities.map((p) => p.name), item?.priority ?? primary(priorities), { name: "priority" })),
      kind === "bug" ? field("Severity", select("Severity", severities.map((s) => s.name), item?.severity ?? primary(severities), { name: "severity" })) : null,
      field("Assigned to", assignees),
      DATE_FIELDS.map(([key, label]) => (item || key !== "completedDate") ? field(label, h("input", { type: "date", name: key, value: dateInput(item?.[key]) })) : null),
      TEXT_FIELDS.map(([key, label]) => field(label, h("input", { name: key, maxLength: 255, value: item?.[key] ?? "" }))),
    ),
    error,
    h("button", { type: "submit", class: "primary" }, submitText),
  );
  for (const control of form.querySelectorAll("select:not([multiple])")) control.removeAttribute("aria-label");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = {};
    for (const control of form.elements) {
      if (!control.name) continue;
      if (control.name === "assignedTo") values.assignedTo = [...control.selectedOptions].map((o) => ({ _id: o.value }));
      else if (control.type === "date") values[control.name] = control.value || null;
      else values[control.name] = control.name === "name" || control.tagName === "SELECT" ? control.value : control.value || null;
    }
    error.hidden = true;
    try {
      await onSubmit(values);
    } catch (failure) {
      error.hidden = false;
      error.textContent = failure.message;
    }
  });
  return form;
}

// Only what changed goes in the PATCH.
function changes(item, values) {
  const changed = {};
  for (const [key, value] of Object.entries(values)) {
    if (key === "assignedTo") {
      const before = (item.assignedTo ?? []).map((a) => a._id).sort().join();
      if (value.map((a) => a._id).sort().join() !== before) changed.assignedTo = value;
    } else if (key.endsWith("Date")) {
      if (value !== dateInput(item[key]) && (value || item[key])) changed[key] = value;
    } else if ((value ?? "") !== (item[key] ?? "")) changed[key] = value;
  }
  return changed;
}

export async function openItem({ kind, scope, choices, item, onChanged }) {
  const plural = KINDS[kind].plural;
  const path = `/api/${plural}/${item._id}`;
  let details = await call(`${path}/details`, { scope });
  const panel = dialog(`${KINDS[kind].label} #${details.internalId}`, onChanged);
  const saved = h("p", { role: "status", class: "saved" });
  const editor = h("section", { "aria-label": "Fields" });
  const where = h("div", { class: "where" });
  const drawEditor = () => {
    replace(where, syncedLine(details) ?? []);
    drawForm();
  };
  const drawForm = () => replace(editor, itemForm(kind, choices, details, async (values) => {
    const body = changes(details, values);
    if (!Object.keys(body).length) { saved.textContent = "Nothing changed."; return; }
    await call(`/odata/${plural}('${details._id}')`, { method: "PATCH", body, scope });
    details = await call(`${path}/details`, { scope });
    drawEditor();
    saved.textContent = "Saved.";
    announce("Saved");
  }, "Save"), saved);
  drawEditor();
  panel.append(where, editor,
    attachments(path, details, scope),
    discussion(path, scope),
    history(path, scope));
  panel.showModal();
  return panel;
}

export function newItem({ kind, scope, choices, onCreated }) {
  const panel = dialog(`New ${KINDS[kind].label.toLowerCase()}`);
  panel.append(itemForm(kind, choices, null, async (values) => {
    const body = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && !(Array.isArray(value) && !value.length)));
    const created = await call(`/odata/${KINDS[kind].plural}`, { method: "POST", body, scope });
    panel.close();
    announce(`Created ${KINDS[kind].label} #${created.internalId}`);
    onCreated(created);
  }, `Create ${KINDS[kind].label.toLowerCase()}`));
  panel.showModal();
}

function attachments(path, details, scope) {
  const itemId = details._id;
  const list = h("ul", { class: "files" });
  const draw = (files) => replace(list, files.length ? files.map((file) => h("li", {},
    h("a", { href: local(file.downloadUrl), download: file.filename }, file.filename), ` (${file.size} bytes)`)) : h("li", {}, "No files yet."));
  draw(details.attachments ?? []);
  const input = h("input", { type: "file" });
  const progress = h("progress", { max: 1, value: 0, hidden: true, "aria-label": "Upload progress" });
  const note = h("p", { role: "status" });
  input.addEventListener("change", async () => {
    const file = input.files[0];
    if (!file) return;
    progress.hidden = false;
    try {
      await upload(`/api/files/${itemId}`, file, scope, (share) => { progress.value = share; });
      const files = await call(`/api/files/${itemId}`, { scope });
      draw(files.value);
      note.textContent = `Uploaded ${file.name}.`;
    } catch (error) {
      note.textContent = `Not uploaded: ${error.message}`;
    } finally {
      progress.hidden = true;
      input.value = "";
    }
  });
  return h("section", { "aria-label": "Attachments" }, h("h3", {}, "Attachments"), list, field("Attach a file", input), progress, note);
}

function discussion(path, scope) {
  const section = h("section", { "aria-label": "Discussion" }, h("h3", {}, "Discussion"));
  const messages = h("ol", { class: "messages" });
  const note = h("p", { role: "status" });
  const load = async () => {
    try {
      const page = await call(`${path}/messages`, { scope });
      replace(messages, page.value.map((message) => h("li", {},
        h("span", { class: "author" }, message.from?.user?.displayName ?? (message.replyToId ? "Someone" : "Tracker")), " ",
        h("time", { dateTime: message.createdDateTime }, formatDate(message.createdDateTime)),
        h("p", {}, message.replyToId ? textOfHtml(message.body?.content) : "Started the discussion with the item's card."))));
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        replace(messages, h("li", {}, "No discussion yet."));
        return false;
      }
      replace(messages, h("li", {}, error.message));
      return false;
    }
  };
  const box = h("textarea", { name: "content", rows: 3, maxLength: 8000, required: true });
  const form = h("form", { onsubmit: async (event) => {
    event.preventDefault();
    try {
      if (!(await load())) await call(`${path}/messages`, { method: "POST", scope });
      await call(`${path}/comments`, { method: "POST", body: { content: box.value }, scope });
      box.value = "";
      note.textContent = "Comment posted.";
      await load();
    } catch (error) {
      note.textContent = `Not posted: ${error.message}`;
    }
  } }, field("Comment", box), h("button", { type: "submit" }, "Post comment"));
  load();
  section.append(messages, form, note);
  return section;
}

// The item's changes, from the history route once the server has it.
function history(path, scope) {
  const section = h("section", { "aria-label": "History", hidden: true }, h("h3", {}, "History"));
  call(`${path}/history`, { scope }).then((page) => {
    const rows = page?.value ?? page ?? [];
    section.append(h("ol", { class: "history" }, rows.map((change) => h("li", {},
      h("time", { dateTime: change.at ?? change.createdAt }, formatDate(change.at ?? change.createdAt)), " ",
      `${change.by?.displayName ?? change.actor?.displayName ?? ""} ${change.type ?? ""} `,
      Object.entries(change.changes ?? change.fields ?? {}).map(([name, value]) => `${name}: ${JSON.stringify(value?.old ?? null)} → ${JSON.stringify(value?.new ?? null)}; `)))));
    section.hidden = false;
  }, () => {});
  return section;
}
