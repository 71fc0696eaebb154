// The list: the API's filters and sorts, kept in the page's URL so a view can be shared, paging
// by next links, and bulk edit of the chosen rows with each item's result shown.
import { call, quoted } from "./api.js";
import { announce, h, replace, uniqueId } from "./dom.js";
import { KINDS, assigneeNames, dueBadge, select } from "./fields.js";

const PAGE_SIZE = 50;
const FILTERS = ["status", "priority", "severity", "assignee", "due", "q"];
const SORTABLE = [
  ["internalId", "Number"], ["name", "Title"], ["status", "Status"], ["priority", "Priority"],
  ["severity", "Severity"], ["dueDate", "Due"], ["updatedAt", "Updated"],
];
const BULK_ERRORS = {
  Svc_NOTFOUND: "not found in this channel",
  Svc_MAPPING_NOTFOUND: "that status or severity is not mapped for its project",
  Svc_INVALID_DATES: "the due date would precede the start date",
};

export function listQuery(params, kind) {
  const clauses = [];
  for (const field of ["status", "priority", "severity"]) {
    if (params.get(field) && (field !== "severity" || kind === "bug")) clauses.push(`${field} eq ${quoted(params.get(field))}`);
  }
  const assignee = params.get("assignee");
  if (assignee === "none") clauses.push("not assignedTo/any()");
  else if (assignee) clauses.push(`assignedTo/any(u: u/_id eq ${quoted(assignee)})`);
  const now = new Date().toISOString();
  const week = new Date(Date.now() + 7 * 86400000).toISOString();
  const due = params.get("due");
  if (due === "overdue") clauses.push(`dueDate lt ${now} and completedDate eq null`);
  if (due === "soon") clauses.push(`dueDate ge ${now} and dueDate lt ${week}`);
  if (due === "none") clauses.push("dueDate eq null");
  if (params.get("q")) clauses.push(`(contains(name,${quoted(params.get("q"))}) or contains(body,${quoted(params.get("q"))}))`);
  const query = new URLSearchParams({ $top: String(PAGE_SIZE) });
  if (clauses.length) query.set("$filter", clauses.join(" and "));
  if (params.get("sort")) query.set("$orderby", params.get("sort"));
  return `/odata/${KINDS[kind].plural}?${query}`;
}

export class List {
  constructor(root, { kind, scope, choices, onOpen, onChanged }) {
    Object.assign(this, { root, kind, scope, choices, onOpen, onChanged });
    this.rows = [];
    this.chosen = new Set();
    this.pending = 0;
  }

  get busy() { return this.pending > 0 || this.chosen.size > 0 || this.root.contains(document.activeElement) && document.activeElement.matches("input[type=search]"); }

  get params() { return new URL(location.href).searchParams; }

  async load() {
    this.pending += 1;
    try {
      const page = await call(listQuery(this.params, this.kind), { scope: this.scope });
      this.rows = page.value;
      this.count = page["@odata.count"];
      this.next = page["@odata.nextLink"];
      this.error = null;
    } catch (error) {
      this.rows = [];
      this.next = null;
      this.error = error.message;
    } finally {
      this.pending -= 1;
    }
    this.chosen = new Set([...this.chosen].filter((id) => this.rows.some((row) => row._id === id)));
    this.render();
  }

  async more() {
    const page = await call(this.next, { scope: this.scope });
    this.rows.push(...page.value);
    this.next = page["@odata.nextLink"];
    this.render();
    announce(`${this.rows.length} of ${this.count} shown`);
  }

  // A filter or sort changes the URL (kept on reload and when shared), then the rows.
  setParam(name, value) {
    const url = new URL(location.href);
    if (value) url.searchParams.set(name, value);
    else url.searchParams.delete(name);
    history.replaceState(null, "", url);
    this.load();
  }

  render() {
    const focused = document.activeElement?.name;
    replace(this.root, this.filters(), this.bulkBar(), this.table(),
      this.next ? h("button", { type: "button", class: "more", onclick: () => this.more() }, "Show more") : null);
    if (focused) this.root.querySelector(`[name="${CSS.escape(focused)}"]`)?.focus();
  }

  filters() {
    const params = this.params;
    const { statuses, priorities, severities, users } = this.choices;
    const onchange = (event) => this.setParam(event.target.name, event.target.value);
    const search = h("input", {
      type: "search", name: "q", value: params.get("q") ?? "", placeholder: "Search titles and descriptions",
      "aria-label": "Search titles and descriptions",
    });
    const form = h("form", { class: "filters", role: "search", "aria-label": "Filter and sort", onsubmit: (event) => { event.preventDefault(); this.setParam("q", search.value); } },
      select("Status", statuses.map((s) => s.name).concat("Invalid"), params.get("status"), { any: "Any status", name: "status" }),
      select("Priority", priorities.map((p) => p.name), params.get("priority"), { any: "Any priority", name: "priority" }),
      this.kind === "bug" ? select("Severity", severities.map((s) => s.name), params.get("severity"), { any: "Any severity", name: "severity" }) : null,
      select("Assigned to", [["none", "Nobody"], ...users.map((u) => [u._id, u.displayName ?? u.email])], params.get("assignee"), { any: "Anyone", name: "assignee" }),
      select("Due", [["overdue", "Overdue"], ["soon", "Due this week"], ["none", "No due date"]], params.get("due"), { any: "Any due date", name: "due" }),
      search,
      h("button", { type: "submit" }, "Search"),
      select("Sort by", SORTABLE.flatMap(([key, text]) => [[key, `${text} ↑`], [`${key} desc`, `${text} ↓`]]), params.get("sort"), { any: "Newest first", name: "sort" }),
    );
    form.addEventListener("change", (event) => { if (event.target.tagName === "SELECT") onchange(event); });
    return form;
  }

  table() {
    if (this.error) return h("p", { class: "error", role: "alert" }, this.error);
    const label = KINDS[this.kind];
    const sort = this.params.get("sort") ?? "";
    const header = ([key, text]) => {
      const direction = sort === key ? "ascending" : sort === `${key} desc` ? "descending" : null;
      if (key === "severity" && this.kind !== "bug") return null;
      return h("th", { scope: "col", "aria-sort": direction ?? undefined },
        h("button", { type: "button", class: "link", onclick: () => this.setParam("sort", direction === "ascending" ? `${key} desc` : key) }, text));
    };
    const every = h("input", {
      type: "checkbox", "aria-label": "Choose every row shown",
      checked: this.rows.length > 0 && this.rows.every((row) => this.chosen.has(row._id)),
      onchange: (event) => { for (const row of this.rows) event.target.checked ? this.chosen.add(row._id) : this.chosen.delete(row._id); this.render(); },
    });
    return h("table", { class: "items" },
      h("caption", {}, `${label.labels}: ${this.count ?? 0} found`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, every), SORTABLE.slice(0, 6).map(header), h("th", { scope: "col" }, "Assigned to"))),
      h("tbody", {}, this.rows.map((item) => h("tr", { dataset: { id: item._id } },
        h("td", {}, h("input", {
          type: "checkbox", "aria-label": `Choose ${label.label} #${item.internalId}`, checked: this.chosen.has(item._id),
          onchange: (event) => { event.target.checked ? this.chosen.add(item._id) : this.chosen.delete(item._id); this.render(); },
        })),
        h("td", {}, `#${item.internalId}`),
        h("td", {}, h("button", { type: "button", class: "link title", onclick: () => this.onOpen(item) }, item.name)),
        h("td", {}, item.status),
        h("td", {}, item.priority),
        this.kind === "bug" ? h("td", {}, item.severity ?? "") : null,
        h("td", {}, dueBadge(item, this.choices.statuses) ?? ""),
        h("td", {}, assigneeNames(item)),
      ))),
    );
  }

  bulkBar() {
    if (!this.chosen.size) return this.results ? this.resultList() : null;
    const { statuses, priorities, severities, users } = this.choices;
    const due = uniqueId("bulk-due");
    const form = h("form", { class: "bulk", "aria-label": "Bulk edit", onsubmit: (event) => { event.preventDefault(); this.bulk(new FormData(form)); } },
      h("span", {}, `${this.chosen.size} chosen`),
      select("New status", statuses.map((s) => s.name), "", { any: "Status unchanged", name: "status" }),
      select("New priority", priorities.map((p) => p.name), "", { any: "Priority unchanged", name: "priority" }),
      this.kind === "bug" ? select("New severity", severities.map((s) => s.name), "", { any: "Severity unchanged", name: "severity" }) : null,
      select("Assign to", users.map((u) => [u._id, u.displayName ?? u.email]), "", { any: "Assignees unchanged", name: "assignee" }),
      h("label", { for: due }, "Due "), h("input", { type: "date", id: due, name: "dueDate" }),
      h("button", { type: "submit" }, "Apply to chosen"),
      h("button", { type: "button", onclick: () => { this.chosen.clear(); this.render(); } }, "Clear choice"),
    );
    return h("div", {}, form, this.results ? this.resultList() : null);
  }

  async bulk(form) {
    const body = { ids: [...this.chosen] };
    for (const field of ["status", "priority", "severity", "dueDate"]) if (form.get(field)) body[field] = form.get(field);
    if (form.get("assignee")) body.assignedTo = [{ _id: form.get("assignee") }];
    try {
      const answers = await call(`/api/bulk/${this.kind}`, { method: "POST", body, scope: this.scope });
      this.results = answers;
      this.chosen.clear();
      const failed = answers.filter((answer) => answer.status !== "success").length;
      announce(`Bulk edit: ${answers.length - failed} changed, ${failed} not changed`);
    } catch (error) {
      this.results = [{ _id: "", name: null, status: "error", error: error.message }];
    }
    await this.load();
    this.onChanged?.();
  }

  resultList() {
    return h("section", { class: "results", "aria-label": "Bulk edit results" },
      h("h2", {}, "Bulk edit results"),
      h("ul", {}, this.results.map((answer) => h("li", { class: answer.status },
        answer.status === "success" ? `${answer.name}: changed` : `${answer.name ?? answer._id}: not changed, ${BULK_ERRORS[answer.error] ?? answer.error}`))),
      h("button", { type: "button", onclick: () => { this.results = null; this.render(); } }, "Dismiss"));
  }
}
