// The personal tab: my bugs or my tasks across every channel I may read, overdue and due soon
// first, a channel picker, and the invalid view; each row opens the item panel.
import { all, channelScope, personalScope, quoted } from "./api.js";
import { h, replace } from "./dom.js";
import { KINDS, assigneeNames, dueBadge, dueState, loadChoices, select } from "./fields.js";
import { follow } from "./live.js";
import { openItem } from "./panel.js";

const RANK = { overdue: 0, soon: 1 };

export async function meTab(root, context) {
  const params = new URL(location.href).searchParams;
  const kind = KINDS[params.get("kind")] ? params.get("kind") : "bug";
  const invalid = params.get("view") === "invalid";
  const channel = params.get("channel") ?? "";
  const scope = personalScope(context.entityId);
  const go = (name, value) => {
    const url = new URL(location.href);
    if (value) url.searchParams.set(name, value);
    else url.searchParams.delete(name);
    if (name === "kind") url.searchParams.delete("channel");
    history.replaceState(null, "", url);
    stop();
    meTab(root, context);
  };
  const channels = await all(`/api/me/${kind}/channels?$top=1000`, scope);
  const body = h("div", { class: "view" });
  const draw = async () => {
    const clauses = [];
    if (invalid) clauses.push("status eq 'Invalid'");
    if (channel) clauses.push(`channelId eq ${quoted(channel)}`);
    const filter = clauses.length ? `&$filter=${encodeURIComponent(clauses.join(" and "))}` : "";
    const items = await all(`/api/me/${KINDS[kind].plural}?$top=1000${filter}`, scope);
    const ranked = items.map((item) => ({ item, state: dueState(item, null) }))
      .sort((a, b) => (RANK[a.state] ?? 2) - (RANK[b.state] ?? 2)
        || (Date.parse(a.item.dueDate ?? "") || Infinity) - (Date.parse(b.item.dueDate ?? "") || Infinity));
    replace(body, table(kind, ranked.map(({ item }) => item), invalid, (item) => open(item)));
  };
  const open = async (item) => {
    const itemScope = channelScope(item.teamId, item.channelId);
    const choices = await loadChoices(kind, itemScope);
    openItem({ kind, scope: itemScope, choices, item, onChanged: draw });
  };
  const toggle = (label, options, current, onPick) => h("div", { role: "group", "aria-label": label, class: "toggle" },
    options.map(([value, text]) => h("button", { type: "button", "aria-pressed": String(value === current), onclick: () => value !== current && onPick(value) }, text)));
  const picker = select("Channel", channels.map((c) => [c.channelId, `${c.teamName} › ${c.channelName}`]), channel, { any: "Every channel", name: "channel" });
  picker.addEventListener("change", () => go("channel", picker.value));
  replace(root,
    h("header", { class: "bar" },
      h("h1", {}, invalid ? `My invalid ${KINDS[kind].labels.toLowerCase()}` : `My ${KINDS[kind].labels.toLowerCase()}`),
      toggle("Kind", [["bug", "Bugs"], ["task", "Tasks"]], kind, (value) => go("kind", value)),
      toggle("View", [["", "Assigned to me"], ["invalid", "Invalid"]], invalid ? "invalid" : "", (value) => go("view", value)),
      picker),
    body);
  await draw();
  const stop = follow("/api/me/changes/stream", scope, kind, draw, () => Boolean(document.querySelector("dialog[open]")));
  root.setAttribute("aria-busy", "false");
}

function table(kind, items, invalid, onOpen) {
  const label = KINDS[kind];
  if (!items.length) return h("p", {}, invalid ? "None of your items has an unmapped status." : `No ${label.labels.toLowerCase()} are assigned to you.`);
  return h("table", { class: "items" },
    h("caption", {}, `${items.length} ${items.length === 1 ? label.label.toLowerCase() : label.labels.toLowerCase()}, overdue and due soon first`),
    h("thead", {}, h("tr", {}, ["Number", "Title", "Channel", "Status", "Priority", "Due", "Assigned to"].map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, items.map((item) => h("tr", { dataset: { id: item._id } },
      h("td", {}, `#${item.internalId}`),
      h("td", {}, h("button", { type: "button", class: "link title", onclick: () => onOpen(item) }, item.name)),
      h("td", {}, `${item.teamName} › ${item.channelName}`),
      h("td", {}, item.status),
      h("td", {}, item.priority),
      h("td", {}, dueBadge(item, null) ?? ""),
      h("td", {}, assigneeNames(item))))));
}
