// Which tab page this is (the shell's data-page), its context and session, then the page.
import { ApiError } from "./api.js";
import { channelTab } from "./channel.js";
import { configTab } from "./config.js";
import { signIn, tabContext } from "./context.js";
import { h, replace } from "./dom.js";
import { meTab } from "./me.js";

const PAGES = { channel: channelTab, me: meTab };

async function start() {
  const root = document.getElementById("app");
  const page = document.body.dataset.page;
  try {
    const context = await tabContext();
    if (page === "config") return configTab(root, context);
    await signIn(context);
    await PAGES[page](root, context);
  } catch (error) {
    root.setAttribute("aria-busy", "false");
    if (error instanceof ApiError && error.status === 401) {
      replace(root, h("h1", {}, "Sign in to see the tracker"),
        h("p", {}, "In Microsoft Teams this tab signs you in. In a browser, ask an administrator for a session: "),
        h("p", {}, h("code", {}, "python -m bot admin session create --user <your email>")),
        h("p", {}, "and keep it as this site's graphNodeCookie cookie."));
    } else {
      replace(root, h("h1", {}, "The tracker could not load"), h("p", { role: "alert" }, error.message));
    }
  }
}

start();
