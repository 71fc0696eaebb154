// The channel tab's configuration page: pick what the tab opens on; Teams saves the content URL.
import { pages } from "@microsoft/teams-js";
import { h, replace } from "./dom.js";
import { select } from "./fields.js";

export function configTab(root, context) {
  const kind = select("Show", [["bug", "Bugs"], ["task", "Tasks"]], "bug", { name: "kind" });
  const view = select("As", [["board", "A board"], ["list", "A list"]], "board", { name: "view" });
  const contentUrl = () => `${location.origin}/tabs/channel?teamId={teamId}&channelId={channelId}&kind=${kind.value}&view=${view.value}`;
  replace(root,
    h("h1", {}, "Set up the tracker tab"),
    h("p", {}, "Choose what the tab shows first; people can switch in the tab."),
    h("div", { class: "field" }, h("label", { for: "kind" }, "Show"), Object.assign(kind, { id: "kind" })),
    h("div", { class: "field" }, h("label", { for: "view" }, "As"), Object.assign(view, { id: "view" })),
    context.inTeams ? null : h("p", { class: "hint" }, "Outside Teams there is nothing to save: open this page from Teams' Add a tab."));
  root.setAttribute("aria-busy", "false");
  if (!context.inTeams) return;
  pages.config.registerOnSaveHandler((save) => {
    const label = kind.value === "bug" ? "Bugs" : "Tasks";
    pages.config.setConfig({ contentUrl: contentUrl(), websiteUrl: contentUrl(), entityId: `tracker-${kind.value}-${view.value}`, suggestedDisplayName: label })
      .then(() => save.notifySuccess(), (error) => save.notifyFailure(String(error)));
  });
  pages.config.setValidityState(true);
}
