// The JSON API from the same origin: the session cookie, or Bearer once Teams SSO gave a token.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let bearer = null;
export const useBearer = (token) => { bearer = token; };

// Where a call acts: a channel (team and channel ids) or the personal views (an entity id).
export function channelScope(teamId, channelId) {
  return { "x-svc-teamid": teamId, "x-svc-channelId": channelId };
}
export const personalScope = (entityId) => ({ "x-svc-entityId": entityId || "me" });

export function headersOf(scope, extra = {}) {
  const headers = { ...scope, ...extra };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  return headers;
}

// A link the API wrote (next links, file links) carries PUBLIC_URL: keep its path on this origin.
export function local(link) {
  const url = new URL(link, location.href);
  return url.pathname + url.search;
}

export async function call(path, { method = "GET", body, scope = {} } = {}) {
  const init = { method, credentials: "same-origin", headers: headersOf(scope) };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(local(path), init);
  if (response.status === 204) return null;
  const text = await response.text();
  let answer = null;
  try { answer = text ? JSON.parse(text) : null; } catch { answer = { error: text }; }
  if (!response.ok) {
    const message = answer?.error ?? answer?.message ?? `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return answer;
}

// Every page of a list, following its next links.
export async function all(path, scope) {
  const rows = [];
  let next = path;
  while (next) {
    const page = await call(next, { scope });
    rows.push(...page.value);
    next = page["@odata.nextLink"];
  }
  return rows;
}

// An upload with its progress (fetch reports none): resolves with the attachment.
export function upload(path, file, scope, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", local(path));
    for (const [name, value] of Object.entries(headersOf(scope))) request.setRequestHeader(name, value);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener("load", () => {
      let answer = null;
      try { answer = JSON.parse(request.responseText); } catch { answer = { error: request.responseText }; }
      if (request.status === 201) resolve(answer);
      else reject(new ApiError(request.status, answer?.error ?? `HTTP ${request.status}`));
    });
    request.addEventListener("error", () => reject(new ApiError(0, "The upload failed: the network is down.")));
    const form = new FormData();
    form.append("file", file);
    request.send(form);
  });
}

// OData string literal: quotes doubled.
export const quoted = (text) => `'${String(text).replaceAll("'", "''")}'`;
