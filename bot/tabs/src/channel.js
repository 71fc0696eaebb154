// The channel tab: Bugs / Tasks, Board / List, New item, and the item panel.
import { all, call, channelScope, quoted } from "./api.js";
import { Board } from "./board.js";
import { h, replace } from "./dom.js";
import { KINDS, loadChoices } from "./fields.js";
import { List } from "./list.js";
import { follow } from "./live.js";
import { newItem, openItem } from "./panel.js";

export async function channelTab(root, context) {
  if (!context.teamId || !context.channelId) {
    replace(root, h("h1", {}, "Which channel?"), h("p", {}, "Open this tab in a Teams channel, or add ?teamId=…&channelId=… to its address."));
    return;
  }
  const scope = channelScope(context.teamId, context.channelId);
  const params = () => new URL(location.href).searchParams;
  const kind = KINDS[params().get("kind")] ? params().get("kind") : "bug";
  const view = params().get("view") === "list" ? "list" : "board";
  // Everything the first view needs, asked for at once.
  const [where, choices, items] = await Promise.all([
    call("/api/context", { scope }),
    loadChoices(kind, scope),
    view === "board" ? boardItems(kind, scope) : null,
  ]);
  const body = h("div", { class: "view" });
  let shown = null;

  const go = (changes) => {
    const url = new URL(location.href);
    for (const [name, value] of Object.entries(changes)) url.searchParams.set(name, value);
    if (changes.kind) for (const name of ["status", "priority", "severity", "assignee"]) url.searchParams.delete(name);
    history.replaceState(null, "", url);
    stop();
    channelTab(root, context);
  };
  const open = (item) => openItem({ kind, scope, choices, item, onChanged: () => redraw() });
  // `ids`: the items the stream told of, read alone; none (or too many): the whole list again.
  const redraw = async (ids = null) => {
    if (view === "board") {
      const some = ids && ids.length <= FEW;
      const items = some ? await boardItems(kind, scope, ids) : await boardItems(kind, scope);
      if (shown.busy) return false; // a move or drag began meanwhile: the next look redraws
      if (some) shown.update(ids, items);
      else {
        shown.items = new Map(items.map((item) => [item._id, item]));
        shown.renderKeepingFocus();
      }
    } else await shown.load();
    return true;
  };
  const toggle = (label, options, current, onPick) => h("div", { role: "group", "aria-label": label, class: "toggle" },
    options.map(([value, text]) => h("button", { type: "button", "aria-pressed": String(value === current), onclick: () => value !== current && onPick(value) }, text)));

  replace(root,
    h("header", { class: "bar" },
      h("h1", {}, `${KINDS[kind].labels} · ${`${where.team.name} › ${where.channel.name}`}`),
      toggle("Kind", [["bug", "Bugs"], ["task", "Tasks"]], kind, (value) => go({ kind: value })),
      toggle("View", [["board", "Board"], ["list", "List"]], view, (value) => go({ view: value })),
      h("button", { type: "button", class: "primary", onclick: () => newItem({ kind, scope, choices, onCreated: () => redraw() }) }, `New ${KINDS[kind].label.toLowerCase()}`)),
    body);
  if (view === "board") {
    shown = new Board(body, { kind, scope, choices, items, onOpen: open });
    shown.render();
  } else {
    shown = new List(body, { kind, scope, choices, onOpen: open });
    await shown.load();
  }
  const stop = follow("/api/changes/stream", scope, kind, redraw, () => shown.busy || Boolean(document.querySelector("dialog[open]")));
  root.setAttribute("aria-busy", "false");
  performance.mark("tabs:ready");
}

// Changed items read by id up to this many at once; more, and the board is read again.
const FEW = 50;
const boardItems = (kind, scope, ids = null) => {
  const only = ids ? `&$filter=${encodeURIComponent(`_id in (${ids.map(quoted).join(",")})`)}` : "";
  return all(`/odata/${KINDS[kind].plural}?$top=1000${only}`, scope);
};
