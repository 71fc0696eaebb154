// Live: a change made elsewhere shows without a reload. Each tab follows a stream of server-sent
// events, read with fetch() because EventSource cannot send the Bearer token Teams on the web
// needs: the channel tab its channel's changes (GET /api/changes/stream), the personal tab the
// lists of every channel its user may read (GET /api/me/changes/stream). Neither polls.
import { headersOf } from "./api.js";

const BUSY_RETRY_MS = 300;
const RECONNECT_MS = [500, 1000, 2000, 5000, 15000];

// Redraws (onChange) when the stream tells of a change to `kind`'s list: onChange(ids) with the
// ids of the items changed, or onChange(null) when the whole list must be read again (`list`,
// `reload`); while the view is busy (a drag, an open dialog) the redraw waits. A cut stream
// reconnects with the last event id it saw, and the server answers `reload` when changes were
// missed meanwhile.
export function follow(path, scope, kind, onChange, isBusy) {
  let stopped = false;
  let pending = null; // the ids changed since the last redraw; "all" for a whole redraw
  let drawing = false;
  let lastId = null;
  let controller = null;

  const draw = async () => {
    if (stopped || !pending || drawing) return;
    if (isBusy()) { setTimeout(draw, BUSY_RETRY_MS); return; }
    const asked = pending;
    pending = null;
    drawing = true;
    let done = false;
    try {
      done = (await onChange(asked === "all" ? null : [...asked])) !== false;
    } catch {
      done = false;
    } finally {
      drawing = false;
    }
    if (!done) note(asked);
    // Told more while drawing: drawn next at once; refused (busy, failed): after a while.
    if (pending) setTimeout(draw, done ? 0 : BUSY_RETRY_MS);
  };
  const note = (ids) => {
    if (ids === "all" || pending === "all") pending = "all";
    else pending = new Set([...(pending ?? []), ...ids]);
  };
  const told = (event, data) => {
    if (!["change", "list", "reload"].includes(event)) return;
    const about = event === "reload" ? null : JSON.parse(data);
    if (about && about.itemKind !== kind) return;
    note(event === "change" ? [about.itemId] : "all");
    draw();
  };
  const read = async () => {
    controller = new AbortController();
    const headers = headersOf(scope, { Accept: "text/event-stream" });
    if (lastId) headers["Last-Event-ID"] = lastId;
    const response = await fetch(path, { headers, credentials: "same-origin", signal: controller.signal });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = "message";
        const data = [];
        for (const line of block.split("\n")) {
          const colon = line.indexOf(":");
          if (colon === 0) continue; // a comment: the server's keep-alive
          const field = colon < 0 ? line : line.slice(0, colon);
          const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") event = text;
          else if (field === "data") data.push(text);
          else if (field === "id") lastId = text;
        }
        if (data.length) told(event, data.join("\n"));
      }
    }
  };
  const run = async () => {
    for (let failures = 0; !stopped; failures += 1) {
      try {
        await read();
        failures = 0; // it ended cleanly (the server restarting): reconnect at once
      } catch {
        // Cut, refused or offline: try again after a while.
      }
      if (stopped) return;
      const wait = RECONNECT_MS[Math.min(failures, RECONNECT_MS.length - 1)];
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  run();
  return () => {
    stopped = true;
    controller?.abort();
  };
}
