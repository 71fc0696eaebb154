// What a channel offers for a kind (statuses in order, priorities, severities, members) and how
// an item's values read.
import { all, quoted } from "./api.js";
import { h, initials } from "./dom.js";

export const KINDS = {
  bug: { plural: "bugs", type: "Bug", label: "Bug", labels: "Bugs" },
  task: { plural: "tasks", type: "Task", label: "Task", labels: "Tasks" },
};
export const INVALID = "Invalid";

export async function loadChoices(kind, scope) {
  const type = `$filter=type eq ${quoted(KINDS[kind].type)}&$top=1000`;
  const [statuses, priorities, severities, users] = await Promise.all([
    all(`/odata/status?${type}`, scope),
    all(`/api/priority?${type}`, scope),
    kind === "bug" ? all(`/api/severity?${type}`, scope) : Promise.resolve([]),
    all("/api/users?$top=1000", scope),
  ]);
  return { statuses, priorities, severities, users };
}

const DAY_MS = 86400000;
export const DUE_SOON_DAYS = 7;

export function isDone(item, statuses) {
  return statuses?.find((status) => status.name === item.status)?.category === "Done"
    || Boolean(item.completedDate);
}

// overdue, soon (within a week) or null
export function dueState(item, statuses, now = Date.now()) {
  if (!item.dueDate || isDone(item, statuses)) return null;
  const due = Date.parse(item.dueDate);
  if (due < now) return "overdue";
  return due - now < DUE_SOON_DAYS * DAY_MS ? "soon" : null;
}

// One formatter for every date shown: making one per card costs more than the card.
let dates = null;
export function formatDate(value) {
  if (!value) return "";
  dates ??= new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
    year: "numeric", month: "short", day: "numeric", timeZone: "UTC",
  });
  return dates.format(new Date(value));
}

// `<input type=date>` value from an API date, and back.
export const dateInput = (value) => (value ? value.slice(0, 10) : "");
export const dateOut = (value) => (value ? value : null);

export function dueBadge(item, statuses) {
  if (!item.dueDate) return null;
  const state = dueState(item, statuses);
  const words = state === "overdue" ? `Overdue: due ${formatDate(item.dueDate)}` : `Due ${formatDate(item.dueDate)}`;
  return h("span", { class: `due ${state ?? ""}`.trim() }, words);
}

export function assigneeBadges(item) {
  return h("span", { class: "assignees" }, (item.assignedTo ?? []).map((user) =>
    h("abbr", { class: "avatar", title: user.displayName ?? user.email ?? "" }, initials(user.displayName ?? user.email)),
  ));
}

export const assigneeNames = (item) =>
  (item.assignedTo ?? []).map((user) => user.displayName ?? user.email).join(", ") || "Nobody";

export function select(label, values, chosen, { any, name, id } = {}) {
  return h("select", { name, id, "aria-label": label },
    any ? h("option", { value: "" }, any) : null,
    values.map((value) => {
      const [key, text] = Array.isArray(value) ? value : [value, value];
      return h("option", { value: key, selected: key === chosen }, text);
    }),
  );
}
