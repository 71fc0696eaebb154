// Live: a change made elsewhere shows without a reload. Until the server streams a channel's
// changes, a small poll: the newest change time and the count; either differs → redraw.
import { call } from "./api.js";

const POLL_MS = 1000;

export function watch(path, scope, onChange, isBusy) {
  let last = null;
  let stopped = false;
  const tick = async () => {
    if (stopped) return;
    try {
      const page = await call(`${path}?$top=1&$orderby=updatedAt desc&$select=updatedAt`, { scope });
      const now = `${page["@odata.count"]}/${page.value[0]?.updatedAt ?? ""}`;
      let seen = !isBusy();
      if (seen && last !== null && now !== last) seen = (await onChange()) !== false;
      if (seen) last = now;
    } catch {
      // A failed poll is retried on the next tick.
    }
    if (!stopped) setTimeout(tick, document.hidden ? POLL_MS * 5 : POLL_MS);
  };
  tick();
  return () => { stopped = true; };
}
