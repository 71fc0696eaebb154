// Where a synced item lives (a link to it at its source) and its sync problem, as the item's
// card in Teams says them.
import { h } from "./dom.js";

const SOURCES = { "Microsoft.Vsts": "Azure DevOps", Jira: "Jira", "Microsoft.Planner": "Planner" };

// The item's page at its source: Azure DevOps and Jira have one, Planner none.
function pageAt(details, there) {
  const project = details.projectId ?? {};
  let base = (project.hostname ?? "").trim().replace(/\/+$/, "");
  if (!base) return null;
  if (!base.includes("://")) base = `https://${base}`;
  if (details.source === "Microsoft.Vsts") {
    return `${base}/${encodeURIComponent(project.sourceId ?? "")}/_workitems/edit/${encodeURIComponent(there)}`;
  }
  if (details.source === "Jira") return `${base}/browse/${encodeURIComponent(there)}`;
  return null;
}

function problemOf(details, name) {
  switch (details.sync?.status) {
    case "Svc_PENDING": return `Waiting to be sent to ${name}`;
    case "Svc_MAPPING_NOTFOUND": return `Not synced: no mapping for its ${name} state`;
    case "Svc_TRANSITION_NOTFOUND": return `Not synced: ${name}'s workflow offers no way to this status`;
    case "Svc_SOURCE_ERROR": return `Not synced: ${name} refused the change: ${details.sync.message ?? ""}`;
    default: return null;
  }
}

export function syncedLine(details) {
  const name = SOURCES[details.source];
  if (!name) return null;
  // Until it is made at the source, a synced item's sourceId is its own _id.
  const there = details.sourceId && details.sourceId !== details._id ? details.sourceId : null;
  const problem = problemOf(details, name);
  if (!there && !problem) return null;
  const url = there ? pageAt(details, there) : null;
  const place = url ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, `${name} ${there}`) : `${name} ${there}`;
  return h("p", { class: "synced" },
    there ? ["Synced with ", place] : [],
    problem ? h("span", { class: details.sync.status === "Svc_PENDING" ? "waiting" : "error" }, ` ${problem}`) : []);
}
